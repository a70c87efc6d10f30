"""Measurements as pandas DataFrames: the long table (one row per measurement = one trial of one
cell), the cells table (one row per cell and operation: median over trials with its interval,
stats.py), the joined results table (one row per dataset × codec × mode × count × producer →
consumer, with the encode, upload, download and decode legs), and the result files.

Reports and plots build on `measurements_frame`, `cells_frame` and `summary_frame`; nothing here
prints.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from google.protobuf import json_format

from . import duets, timing
from .pb import operation_name, task_status_name
from .scenario import DATASETS

MEASUREMENT_COLUMNS = [
    "run_id", "task_id", "cell_id", "trial", "operation", "dataset", "codec", "decode_mode",
    "record_count", "producer", "consumer", "worker_id", "language", "payload_bytes",
    "gzip_bytes", "zstd_bytes", "compression", "payload_blob_id", "aa_twin", "steady", "round_ns_per_op", "rounds",
    "ops_per_round",
    "median_ns_per_op", "q1_ns_per_op", "q3_ns_per_op", "spread", "ns_per_record",
    "alloc_bytes_per_op", "verified", "failure", "runtime", "runtime_version", "build_profile",
    "cpu_model", "cores", "hostname", "os", "environment_details", "extras", "recorded_at",
    # TaskSummary.duet: the duet a duet copy's trial belongs to ('' for ordinary rows; duets.py).
    "duet",
]

SUMMARY_KEYS = ["dataset", "codec", "mode", "record_count", "producer", "consumer"]
# The timed legs of one payload, in the order end to end adds them.
LEGS = ("encode", "upload", "download", "decode")
# The suffix control gives the twin of a deliberate A/A cell (Sampling.aa_cells).
AA_SUFFIX = "~aa"


def round_stats(rounds: Iterable[float]) -> tuple[float, float, float, float]:
    """(median, q1, q3, spread) of one trial's per-round ns/op; spread = half the interquartile
    range / median. A diagnostic of the trial: the uncertainty comes from trials (stats.py)."""
    values = np.asarray(list(rounds), dtype=float)
    if values.size == 0:
        return (math.nan,) * 4
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    spread = (q3 - q1) / 2 / median if median > 0 else math.nan
    return float(median), float(q1), float(q3), float(spread)


def _operation(m, task_ops: dict[str, str]) -> str:
    op = operation_name(m.operation)
    if op:
        return op
    # A failure row without an operation: take it from its task, else guess from its identity.
    return task_ops.get(m.task_id) or ("decode" if m.decode_mode else "encode")


def measurement_row(m, task_ops: dict[str, str] | None = None) -> dict:
    median, q1, q3, spread = round_stats(m.round_ns_per_op)
    env = m.environment
    return {
        "run_id": m.run_id,
        "task_id": m.task_id,
        "cell_id": m.cell_id,
        "trial": int(m.trial),
        "operation": _operation(m, task_ops or {}),
        "dataset": m.dataset,
        "codec": m.codec,
        "decode_mode": m.decode_mode,
        "record_count": int(m.record_count),
        "producer": m.producer_worker_id,
        "consumer": m.consumer_worker_id,
        "worker_id": m.worker_id,
        "language": m.language or env.language,
        "payload_bytes": int(m.payload_bytes),
        "gzip_bytes": float(m.gzip_bytes) if m.HasField("gzip_bytes") else math.nan,
        "zstd_bytes": float(m.zstd_bytes) if m.HasField("zstd_bytes") else math.nan,
        # Upload and download: the gRPC compression of the leg ("" = identity).
        "compression": m.compression,
        "payload_blob_id": m.payload_blob_id,
        "aa_twin": bool(m.aa_twin),
        "steady": bool(m.steady),
        "round_ns_per_op": [float(x) for x in m.round_ns_per_op],
        "rounds": len(m.round_ns_per_op),
        "ops_per_round": int(m.ops_per_round),
        "median_ns_per_op": median,
        "q1_ns_per_op": q1,
        "q3_ns_per_op": q3,
        "spread": spread,
        "ns_per_record": median / m.record_count if m.record_count else math.nan,
        "alloc_bytes_per_op": m.alloc_bytes_per_op if m.HasField("alloc_bytes_per_op") else math.nan,
        "verified": bool(m.verified),
        "failure": m.failure,
        "runtime": env.runtime,
        "runtime_version": env.runtime_version,
        "build_profile": env.build_profile,
        "cpu_model": env.cpu_model,
        "cores": int(env.cores),
        "hostname": env.hostname,
        "os": env.os,
        "environment_details": json.dumps(dict(sorted(env.details.items()))),
        "extras": json.dumps(dict(sorted(m.extras.items()))),
        "recorded_at": m.recorded_at.ToJsonString() if m.HasField("recorded_at") else "",
        "duet": "",
    }


def task_failure_row(t, run_id: str) -> dict:
    """A failed task that stored no measurement still belongs in the table, with its message."""
    row = {c: None for c in MEASUREMENT_COLUMNS}
    row.update({
        "run_id": run_id, "task_id": t.id, "cell_id": t.cell_id, "trial": int(t.trial),
        "operation": operation_name(t.operation),
        "dataset": t.dataset, "codec": t.codec, "decode_mode": t.decode_mode,
        "record_count": int(t.record_count), "producer": t.producer_worker_id,
        "consumer": t.consumer_worker_id, "worker_id": "", "language": "", "payload_bytes": 0,
        "gzip_bytes": math.nan, "zstd_bytes": math.nan, "payload_blob_id": "", "aa_twin": t.cell_id.endswith(AA_SUFFIX), "steady": False,
        "round_ns_per_op": [], "rounds": 0, "ops_per_round": 0, "median_ns_per_op": math.nan,
        "q1_ns_per_op": math.nan, "q3_ns_per_op": math.nan, "spread": math.nan,
        "ns_per_record": math.nan, "alloc_bytes_per_op": math.nan, "verified": False,
        "failure": t.failure or f"task {task_status_name(t.status)}",
        "environment_details": "{}", "extras": "{}", "recorded_at": "", "duet": t.duet,
    })
    return row


def measurements_frame(measurements: Iterable, tasks: Iterable = (), run_id: str = "") -> pd.DataFrame:
    """One row per measurement (plus one per failed task that reported none)."""
    tasks = list(tasks)
    task_ops = {t.id: operation_name(t.operation) for t in tasks}
    rows = [measurement_row(m, task_ops) for m in measurements]
    duet_of = {t.id: t.duet for t in tasks if t.duet}
    for r in rows:
        r["duet"] = duet_of.get(r["task_id"], "")
    measured = {r["task_id"] for r in rows}
    failed = [t for t in tasks if task_status_name(t.status) == "failed" and t.id not in measured]
    rows += [task_failure_row(t, run_id) for t in failed]
    df = pd.DataFrame(rows, columns=MEASUREMENT_COLUMNS)
    return df.astype({"record_count": "int64", "payload_bytes": "int64", "rounds": "int64",
                      "ops_per_round": "int64", "trial": "int64", "verified": "bool",
                      "steady": "bool", "aa_twin": "bool"})


def _first(values: Iterable) -> str:
    for v in values:
        if isinstance(v, str) and v:
            return v
    return ""


def _failures(rows: list[dict]) -> str:
    # Worker messages start with their step ("decode failed: ..."); others get the operation.
    # A message that quotes one already kept (control's "not run: the payload's encode (...)
    # failed: <its message>") adds nothing.
    raw: list[str] = []
    shown: list[str] = []
    for r in rows:
        op, msg = r["operation"], r["failure"]
        if not isinstance(msg, str) or not msg or any(prev in msg for prev in raw):
            continue
        raw.append(msg)
        shown.append(msg if msg.startswith(op) else f"{op}: {msg}")
    return "; ".join(shown)


# ---- cells: one row per cell and operation, its trials summarised --------------------------------

CELL_COLUMNS = [
    "cell_key", "cell_id", "operation", "dataset", "codec", "decode_mode", "record_count", "producer",
    "consumer", "worker_id", "language", "payload_bytes", "gzip_bytes", "zstd_bytes", "compression",
    "payload_blob_id", "aa_twin", "trials",
    "trial_ns_per_op", "adjusted_ns_per_op", "median_ns_per_op", "lo_ns_per_op", "hi_ns_per_op", "coverage", "ci_pct",
    "unsteady", "rounds", "alloc_bytes_per_op", "ns_per_record", "verified", "failure",
]


def _str(v) -> str:
    return v if isinstance(v, str) else ""


def compressed_sizes(parts: Iterable[dict]) -> dict[str, float]:
    """gzip_bytes and zstd_bytes of the payload some measurements (or cells) share: control sets
    them on every measurement of a payload it holds; NaN where none carries them (a run recorded
    before control measured them, or a failed encode)."""
    parts = list(parts)
    out = {}
    for col in ("gzip_bytes", "zstd_bytes"):
        known = [float(p[col]) for p in parts if p.get(col) is not None and not _isnan(p[col])]
        out[col] = max(known) if known else math.nan
    return out


def cell_key(r: dict) -> str:
    """The cell a measurement belongs to. Runs recorded before cells existed have no cell_id: each
    identity (operation, dataset, codec, mode, count, producer, consumer) is then one cell whose
    measurements are its trials."""
    # A compressed transfer leg is a cell of its own beside the identity leg of the same task.
    squeezed = f"@{r['compression']}" if _str(r.get("compression")) else ""
    if _str(r.get("cell_id")):
        return r["cell_id"] + squeezed
    who = _str(r.get("consumer")) if r["operation"] in ("decode", "download") else ""
    return "|".join(str(x) for x in (r["dataset"], r["record_count"], r["codec"],
                                     _str(r.get("decode_mode")), _str(r.get("producer")), who)) + squeezed


_CELL_INPUT = ["cell_id", "trial", "operation", "dataset", "codec", "decode_mode", "record_count", "producer",
               "consumer", "worker_id", "language", "payload_bytes", "gzip_bytes", "zstd_bytes", "compression",
               "payload_blob_id", "aa_twin", "steady",
               "round_ns_per_op", "rounds", "alloc_bytes_per_op", "verified", "failure"]


def _records(df: pd.DataFrame) -> list[dict]:
    # Only the columns cells need: converting the environment strings of every row costs seconds.
    records = df[[c for c in _CELL_INPUT if c in df]].to_dict("records")
    for r in records:
        for k in ("failure", "language", "decode_mode", "consumer", "producer", "worker_id", "cell_id",
                  "payload_blob_id", "compression"):
            r[k] = _str(r.get(k))
        r["aa_twin"] = bool(r.get("aa_twin")) if r.get("aa_twin") is not None else False
        st = r.get("steady")
        r["steady"] = True if st is None or (isinstance(st, float) and math.isnan(st)) else bool(st)
    return records


def cells_frame(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, operation): the median over its trials (each trial = the median of its
    rounds, divided by its pass factor: stats.pass_factors), its 95 % rerun interval
    (stats.cell_interval), trial and unsteady counts. A cell
    any of whose trials failed or was not verified carries the failure."""
    from . import stats

    if df.empty:
        return pd.DataFrame(columns=CELL_COLUMNS)
    groups: dict[tuple, list[dict]] = {}
    for r in _records(df):
        groups.setdefault((cell_key(r), r["operation"]), []).append(r)
    timed_of = {g: [r for r in rs if r["rounds"] > 0 and not r["failure"]] for g, rs in groups.items()}
    figure_of = {id(r): stats.trial_figure(r["round_ns_per_op"]) for rs in timed_of.values() for r in rs}
    factors = stats.pass_factors((_block(r, op), (key, op), figure_of[id(r)])
                                 for (key, op), rs in timed_of.items() for r in rs)
    rows = []
    for (key, op), rs in groups.items():
        timed = timed_of[(key, op)]
        figures = [figure_of[id(r)] for r in timed]
        adjusted = [f / factors.get(_block(r, op), 1.0) for r, f in zip(timed, figures)]
        ci = stats.cell_interval(figures, adjusted)
        first = (timed or rs)[0]
        count = int(first["record_count"])
        failure = _failures(rs)
        allocs = [r["alloc_bytes_per_op"] for r in timed if not _isnan(r["alloc_bytes_per_op"])]
        rows.append({
            "cell_key": key, "cell_id": first["cell_id"], "operation": op, "dataset": first["dataset"],
            "codec": first["codec"], "decode_mode": first["decode_mode"], "record_count": count,
            "producer": first["producer"],
            "consumer": first["consumer"] or (first["worker_id"] if op in ("decode", "download") else ""),
            "worker_id": _first(r["worker_id"] for r in rs), "language": _first(r["language"] for r in rs),
            "payload_bytes": int(max([int(r["payload_bytes"] or 0) for r in rs] + [0])),
            **compressed_sizes(rs), "compression": first["compression"],
            "payload_blob_id": _first(r["payload_blob_id"] for r in rs),
            "aa_twin": any(r["aa_twin"] for r in rs) or first["cell_id"].endswith(AA_SUFFIX),
            "trials": ci.n, "trial_ns_per_op": figures, "adjusted_ns_per_op": adjusted,
            "median_ns_per_op": ci.median,
            "lo_ns_per_op": ci.lo, "hi_ns_per_op": ci.hi, "coverage": ci.coverage,
            "ci_pct": ci.half_width_pct, "unsteady": sum(1 for r in timed if not r["steady"]),
            "rounds": sum(int(r["rounds"]) for r in timed),
            "alloc_bytes_per_op": stats.median(allocs) if allocs else math.nan,
            "ns_per_record": ci.median / count if count else math.nan,
            "verified": bool(timed) and not failure and all(bool(r["verified"]) for r in rs),
            "failure": failure,
        })
    return pd.DataFrame(rows, columns=CELL_COLUMNS)


def _block(r: dict, op: str) -> tuple:
    """The block of the pass adjustment (stats.py): who timed the trial, what, in which pass."""
    trial = r.get("trial")
    return (r["worker_id"], op, r.get("compression") or "", -1 if _isnan(trial) else int(trial))


def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def interval_of(row, prefix: str = "") -> "object":
    """The stats.Interval stored in a cells_frame row (prefix "") or a summary row ("decode_"...)."""
    from . import stats

    n = row[f"{prefix}trials"] if f"{prefix}trials" in row else 0
    if _isnan(n) or not n:
        return stats.EMPTY
    return stats.Interval(float(row[f"{prefix}median_ns_per_op" if not prefix else f"{prefix}ns_per_op"]),
                          float(row[f"{prefix}lo_ns_per_op"]), float(row[f"{prefix}hi_ns_per_op"]),
                          int(n), float(row[f"{prefix}coverage"]))


def aa_groups(cells: pd.DataFrame, operation: str = "decode") -> pd.DataFrame:
    """A/A groups: cells doing byte-identical work. For decode, one consumer, dataset, codec, mode,
    count and payload (payload_blob_id), from different producers, plus each deliberate A/A twin
    with its original. For download (operation="download"), one consumer fetching the same blob for
    different producers' cells (the decode mode does not change a download). One row per group of
    ≥ 2 timed cells: its cells, producers, medians and the ratio max/min of the medians."""
    cols = ["consumer", "dataset", "codec", "decode_mode", "record_count", "payload_blob_id", "cells",
            "producers", "medians", "ratio"]
    if cells.empty:
        return pd.DataFrame(columns=cols)
    timed = cells[(cells["operation"] == operation) & cells["verified"] & (cells["trials"] > 0)]
    groups: dict[tuple, list] = {}
    for r in timed.to_dict("records"):
        # Without a blob id (older runs) only a twin and its original are known to be identical.
        same = r["payload_blob_id"] or "cell:" + r["cell_key"].removesuffix(AA_SUFFIX)
        mode = r["decode_mode"] if operation == "decode" else ""
        # A gzip download of a blob is other work than its identity download: groups of its own.
        same += f"@{r['compression']}" if r.get("compression") else ""
        key = (r["consumer"], r["dataset"], r["codec"], mode, int(r["record_count"]), same)
        groups.setdefault(key, []).append(r)
    rows = []
    for key, rs in groups.items():
        if len(rs) < 2:
            continue
        meds = [float(r["median_ns_per_op"]) for r in rs]
        rows.append({**dict(zip(cols[:6], key)), "cells": [r["cell_key"] for r in rs],
                     "producers": [r["producer"] + (" (A/A twin)" if r["aa_twin"] else "") for r in rs],
                     "medians": meds, "ratio": max(meds) / min(meds) if min(meds) > 0 else math.nan})
    return pd.DataFrame(rows, columns=cols)


def run_noise_floor(cells: pd.DataFrame, operation: str = "decode"):
    """The run's noise floor (stats.NoiseFloor) from its A/A groups of one operation: decode (the
    floor every table uses) or download (the transfer legs' own, which are noisier)."""
    from . import stats

    groups = aa_groups(cells, operation)
    return stats.noise_floor(groups["ratio"] if not groups.empty else [])


def language_noise_floors(cells: pd.DataFrame, langs: dict[str, str]) -> dict:
    """language → stats.NoiseFloor of the decode A/A groups its consumers measured (languages
    without a group are absent)."""
    from . import stats

    groups = aa_groups(cells)
    if groups.empty:
        return {}
    by_lang = groups.groupby(groups["consumer"].map(lambda w: lang_of(w, langs)))["ratio"]
    return {lang: stats.noise_floor(ratios) for lang, ratios in by_lang}


def _side(c: dict | None, prefix: str) -> dict:
    """Fields of one leg of a summary row, from its cell (None: not measured)."""
    if c is None:
        return {f"{prefix}_ns_per_record": math.nan, f"{prefix}_ns_per_op": math.nan,
                f"{prefix}_lo_ns_per_op": math.nan, f"{prefix}_hi_ns_per_op": math.nan,
                f"{prefix}_ci_pct": math.nan, f"{prefix}_coverage": math.nan, f"{prefix}_trials": 0,
                f"{prefix}_unsteady": 0, f"{prefix}_alloc_bytes_per_op": math.nan,
                f"{prefix}_language": ""}
    return {f"{prefix}_ns_per_record": c["ns_per_record"], f"{prefix}_ns_per_op": c["median_ns_per_op"],
            f"{prefix}_lo_ns_per_op": c["lo_ns_per_op"], f"{prefix}_hi_ns_per_op": c["hi_ns_per_op"],
            f"{prefix}_ci_pct": c["ci_pct"], f"{prefix}_coverage": c["coverage"],
            f"{prefix}_trials": int(c["trials"]), f"{prefix}_unsteady": int(c["unsteady"]),
            f"{prefix}_alloc_bytes_per_op": c["alloc_bytes_per_op"], f"{prefix}_language": c["language"]}


LEG_FIELDS = ["ns_per_record", "ns_per_op", "lo_ns_per_op", "hi_ns_per_op", "ci_pct", "coverage",
              "trials", "unsteady", "alloc_bytes_per_op", "language"]
SUMMARY_COLUMNS = SUMMARY_KEYS + ["cell_id", "aa_twin", "encode_mode", "payload_bytes", "gzip_bytes", "zstd_bytes",
                                  "payload_blob_id", "same_bytes_as"] + [
    f"{leg}_{f}" for leg in LEGS for f in LEG_FIELDS] + [
    "end_to_end_ns_per_op", "end_to_end_ns_per_record", "end_to_end_lo_ns_per_op",
    "end_to_end_hi_ns_per_op", "verified", "failure"]


def summary_frame(df: pd.DataFrame) -> pd.DataFrame:
    """One row per decode cell (dataset, codec, mode, count, producer → consumer), joined with the
    producer's encode and upload cells (keyed dataset, codec, count, producer) and the consumer's
    download cell (its own, else the one for the same payload and consumer). Each leg is the median
    over trials with its interval (cells_frame).

    Encode cells without any decode cell get a row of their own with an empty mode and consumer.
    End to end (encode + upload + download + decode, a sum of the parts' medians) is added where all
    four were measured. `same_bytes_as` names the other producers whose payload was byte-identical.
    """
    if df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    cells = cells_frame(df)
    recs = cells.to_dict("records")
    enc_key = ("dataset", "codec", "record_count", "producer")
    encodes: dict[tuple, dict] = {}
    uploads: dict[tuple, dict] = {}
    downloads: dict[tuple, list[dict]] = {}
    by_cell: dict[tuple, dict] = {}
    decodes: list[dict] = []
    blob_producers: dict[tuple, set] = {}
    # Compressed transfer legs have a table of their own (transfer_compression); rows join identity legs.
    recs = [c for c in recs if not c["compression"]]
    for c in recs:
        key = tuple(c[k] for k in enc_key)
        by_cell[(c["cell_key"], c["operation"])] = c
        if c["payload_blob_id"]:
            blob_producers.setdefault((c["dataset"], c["codec"], c["record_count"], c["payload_blob_id"]),
                                      set()).add(c["producer"])
        if c["operation"] == "encode":
            # In memory ("") or streaming: a streaming decode row takes the streaming encode.
            encodes.setdefault(key + (c["decode_mode"],), c)
        elif c["operation"] == "upload":
            uploads.setdefault(key, c)
        elif c["operation"] == "download":
            downloads.setdefault(key + (c["consumer"],), []).append(c)
    for c in recs:
        if c["operation"] == "decode":
            decodes.append(c)
    # A download cell with no decode cell of its own (its decode task failed before timing) still
    # names its consumer's row.
    decode_keys = {c["cell_key"] for c in decodes}
    for dl in (d for ds in downloads.values() for d in ds):
        if dl["cell_key"] not in decode_keys:
            decodes.append({**dl, "operation": "decode-missing"})
            decode_keys.add(dl["cell_key"])
    rows = []
    used = set()
    for dec in decodes:
        key = tuple(dec[k] for k in enc_key)
        enc_mode = dec["decode_mode"] if key + (dec["decode_mode"],) in encodes else ""
        enc, up = encodes.get(key + (enc_mode,)), uploads.get(key)
        dl = by_cell.get((dec["cell_key"], "download"))
        if dl is None:
            same = [d for d in downloads.get(key + (dec["consumer"],), []) if not d["aa_twin"]]
            dl = same[0] if same else None
        real_dec = dec if dec["operation"] == "decode" else None
        if not dec["aa_twin"]:
            # Twin rows are left out of leaderboards: an encode joined only to twins keeps its own row.
            used.add(key + (enc_mode,))
        parts = [p for p in (enc, up, dl, real_dec) if p is not None]
        failure = _failures([{"operation": p["operation"], "failure": p["failure"]} for p in parts]
                            + ([{"operation": "decode", "failure": dec["failure"]}] if real_dec is None else []))
        blob = dec["payload_blob_id"] or (enc or {}).get("payload_blob_id", "")
        others = sorted(blob_producers.get((dec["dataset"], dec["codec"], dec["record_count"], blob), set())
                        - {dec["producer"]}) if blob else []
        rows.append({
            "dataset": dec["dataset"], "codec": dec["codec"], "mode": dec["decode_mode"],
            "record_count": int(dec["record_count"]), "producer": dec["producer"],
            "consumer": dec["consumer"], "cell_id": dec["cell_id"], "aa_twin": bool(dec["aa_twin"]),
            # "streaming" where the encode leg is the streaming encode, else "" (in memory).
            "encode_mode": enc_mode if enc is not None else "",
            "payload_bytes": int(max([p["payload_bytes"] for p in parts] + [0])),
            **compressed_sizes(parts),
            "payload_blob_id": blob, "same_bytes_as": ", ".join(others),
            **_side(enc, "encode"), **_side(up, "upload"), **_side(dl, "download"),
            **_side(real_dec, "decode"),
            # The payload itself was verified by the cell's prepare task (a failure there fails
            # every decode of it), so a decode stands verified even when no encode trial ran.
            "verified": bool(real_dec is not None and not failure and all(p["verified"] for p in parts)),
            "failure": failure,
        })
    for key, enc in encodes.items():
        if key in used:
            continue
        up = uploads.get(key[:-1]) if not key[-1] else None
        parts = [p for p in (enc, up) if p is not None]
        rows.append({
            "dataset": enc["dataset"], "codec": enc["codec"], "mode": key[-1],
            "record_count": int(enc["record_count"]), "producer": enc["producer"], "consumer": "",
            "cell_id": enc["cell_id"], "aa_twin": False, "encode_mode": key[-1],
            "payload_bytes": int(max(p["payload_bytes"] for p in parts)),
            **compressed_sizes(parts),
            "payload_blob_id": enc["payload_blob_id"], "same_bytes_as": "",
            **_side(enc, "encode"), **_side(up, "upload"), **_side(None, "download"), **_side(None, "decode"),
            "verified": bool(all(p["verified"] for p in parts) and not _failures(parts)),
            "failure": _failures(parts),
        })
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out = add_end_to_end(out)
    order = {d: i for i, d in enumerate(DATASETS)}
    out["_d"] = out["dataset"].map(lambda d: order.get(d, len(order)))
    out["_m"] = out["mode"].map(lambda m: {"typed": 0, "tree": 1, "lazy": 2, "streaming": 3}.get(m, 4))
    out = out.sort_values(["_d", "dataset", "record_count", "codec", "_m", "producer", "consumer", "aa_twin"],
                          kind="stable").drop(columns=["_d", "_m"]).reset_index(drop=True)
    return out


def add_end_to_end(summary: pd.DataFrame) -> pd.DataFrame:
    """End to end = encode + upload + download + decode of one payload (each the median over its
    trials, ns per operation), per producer → consumer cell and decode mode: a sum of parts, only
    where all four were measured (a sum with a missing part would look faster than it is). Its
    bounds are the sums of the parts' bounds (wider than a joint interval: conservative)."""
    total = summary[[f"{leg}_ns_per_op" for leg in LEGS]].astype(float).sum(axis=1, min_count=4)
    summary["end_to_end_ns_per_op"] = total
    summary["end_to_end_lo_ns_per_op"] = summary[[f"{leg}_lo_ns_per_op" for leg in LEGS]].astype(float) \
        .sum(axis=1, min_count=4)
    summary["end_to_end_hi_ns_per_op"] = summary[[f"{leg}_hi_ns_per_op" for leg in LEGS]].astype(float) \
        .sum(axis=1, min_count=4)
    counts = summary["record_count"].astype(float).where(summary["record_count"] > 0)
    summary["end_to_end_ns_per_record"] = total / counts
    return summary


def control_memory(start: int, peak: int, df: pd.DataFrame) -> str:
    """Control's resident memory during a run (Run.control_rss_start_bytes and its peak, VmHWM reset
    when the run started), beside the largest payload that passed through it."""
    largest = int(df["payload_bytes"].max()) if len(df) else 0
    return (f"resident {start / 2**20:.0f} MiB at the start, peak +{max(peak - start, 0) / 2**20:.1f} MiB "
            f"during the run (largest payload {largest / 2**20:.1f} MiB)")


def extra_medians(df: pd.DataFrame, key: str, langs: dict[str, str] | None = None) -> pd.DataFrame:
    """The median over trials of one measurement extra (e.g. peak_heap_bytes) per dataset, codec,
    operation, decode mode, record count and language, where the worker reported it."""
    from . import stats

    cols = ["dataset", "codec", "operation", "decode_mode", "record_count", "language", "trials", key]
    t = df[df["failure"] == ""]
    groups: dict[tuple, list[float]] = {}
    for r, extras in zip(_records(t), t["extras"]):
        v = json.loads(extras or "{}").get(key)
        if v is None:
            continue
        lang = r["language"] or (lang_of(r["worker_id"], langs) if langs else "")
        k = (r["dataset"], r["codec"], r["operation"], r["decode_mode"], int(r["record_count"]), lang)
        groups.setdefault(k, []).append(float(v))
    return pd.DataFrame([[*k, len(v), stats.median(v)] for k, v in groups.items()], columns=cols)


COMPRESSION_COLUMNS = ["operation", "dataset", "codec", "record_count", "worker_id", "language", "compression",
                       "payload_bytes", "wire_estimate_bytes", "trials", "median_ns_per_op", "lo_ns_per_op",
                       "hi_ns_per_op", "identity_ns_per_op", "vs_identity"]


def compression_frame(cells: pd.DataFrame, langs: dict[str, str] | None = None) -> pd.DataFrame:
    """Every transfer leg (upload, download) per payload, worker and compression (identity first,
    then gzip, zstd), verified and not an A/A twin: its median over trials with the rerun interval,
    the payload's size compressed whole by control (gzip level 6, zstd level 3: an estimate of the
    wire bytes; gRPC compresses each 1 MiB chunk on its own) and the leg's time relative to the
    identity leg of the same payload and worker."""
    t = cells[cells["operation"].isin(["upload", "download"]) & ~cells["aa_twin"].astype(bool)
              & cells["verified"].astype(bool)]
    if t.empty:
        return pd.DataFrame(columns=COMPRESSION_COLUMNS)
    identity = {(r["operation"], r["cell_id"]): r["median_ns_per_op"]
                for r in t.to_dict("records") if not r["compression"]}
    rows = []
    for r in t.to_dict("records"):
        c = r["compression"] or "identity"
        wire = {"identity": r["payload_bytes"], "gzip": r["gzip_bytes"], "zstd": r["zstd_bytes"]}.get(c, math.nan)
        base = identity.get((r["operation"], r["cell_id"]), math.nan)
        rows.append([r["operation"], r["dataset"], r["codec"], int(r["record_count"]), r["worker_id"],
                     r["language"] or (lang_of(r["worker_id"], langs) if langs else ""), c,
                     int(r["payload_bytes"]), wire, int(r["trials"]), r["median_ns_per_op"], r["lo_ns_per_op"],
                     r["hi_ns_per_op"], base, r["median_ns_per_op"] / base if base and base > 0 else math.nan])
    out = pd.DataFrame(rows, columns=COMPRESSION_COLUMNS)
    order = {"identity": 0, "gzip": 1, "zstd": 2}
    out["_c"] = out["compression"].map(lambda c: order.get(c, 3))
    return out.sort_values(["dataset", "record_count", "operation", "codec", "language", "worker_id", "_c"],
                           kind="stable").drop(columns="_c").reset_index(drop=True)


def transfer_vs_raw_tcp(df: pd.DataFrame, langs: dict[str, str] | None = None) -> pd.DataFrame:
    """Each transfer leg (upload, download) of each payload size and worker beside the raw loopback
    TCP copy of the same bytes the worker timed in the same trial (extras raw_tcp_ns_per_op, the
    Rust worker's; other workers report none): medians over trials, throughputs in MB/s (10^6 B/s)
    and the leg's share of the raw throughput."""
    from . import stats

    cols = ["operation", "dataset", "codec", "record_count", "language", "payload_bytes", "trials",
            "leg_ns_per_op", "raw_ns_per_op", "leg_mb_s", "raw_mb_s", "share_of_raw"]
    t = df[df["operation"].isin(["upload", "download"]) & (df["failure"] == "") & (df["compression"] == "")]
    groups: dict[tuple, list] = {}
    for r, extras in zip(_records(t), t["extras"]):
        if not r["round_ns_per_op"]:
            continue
        raw = json.loads(extras or "{}").get("raw_tcp_ns_per_op")
        lang = r["language"] or (lang_of(r["worker_id"], langs) if langs else "")
        key = (r["operation"], r["dataset"], r["codec"], int(r["record_count"]), lang, int(r["payload_bytes"] or 0))
        groups.setdefault(key, []).append((stats.trial_figure(r["round_ns_per_op"]), raw))
    rows = []
    for (op, ds, codec, count, lang, size), trials in groups.items():
        leg = stats.median([f for f, _ in trials])
        raws = [x for _, x in trials if x]
        raw = stats.median(raws) if raws else math.nan
        rows.append([op, ds, codec, count, lang, size, len(trials), leg, raw, size / leg * 1e3 if leg else math.nan,
                     size / raw * 1e3 if raws and raw else math.nan, raw / leg if raws and leg else math.nan])
    return pd.DataFrame(rows, columns=cols)


def language_map(df: pd.DataFrame, run_doc: dict) -> dict[str, str]:
    """worker id → language, from the measurements and run.json's environments."""
    langs: dict[str, str] = {}
    for wid, env in (run_doc.get("workers") or {}).items():
        if env.get("language"):
            langs[wid] = env["language"]
    for wid, lang in zip(df["worker_id"], df["language"]):
        if wid and lang and wid not in langs:
            langs[wid] = lang
    return langs


def lang_of(worker: str, langs: dict[str, str]) -> str:
    if not worker:
        return ""
    if worker in langs:
        return langs[worker]
    # Worker ids are "<name>-<n>" and the default name is the language.
    return worker.rsplit("-", 1)[0] if re.search(r"-\d+$", worker) else worker


# ---- reading result files -----------------------------------------------------------------------

def read_measurements(run_dir: Path) -> pd.DataFrame:
    """measurements.parquet (or .csv, whose per-round values are a JSON array) of a results folder."""
    parquet, csv = run_dir / "measurements.parquet", run_dir / "measurements.csv"
    if parquet.exists():
        df = pd.read_parquet(parquet)
        df["round_ns_per_op"] = df["round_ns_per_op"].map(
            lambda v: [float(x) for x in v] if v is not None else [])
    elif csv.exists():
        df = pd.read_csv(csv, keep_default_na=False, na_values={
            c: [""] for c in ("median_ns_per_op", "q1_ns_per_op", "q3_ns_per_op", "spread",
                              "ns_per_record", "alloc_bytes_per_op", "gzip_bytes", "zstd_bytes")})
        df["round_ns_per_op"] = df["round_ns_per_op"].map(
            lambda v: [float(x) for x in json.loads(v)] if isinstance(v, str) and v else [])
        for col in ("verified", "steady", "aa_twin"):
            if col in df:
                df[col] = df[col].map(lambda v: str(v).lower() == "true")
    else:
        raise FileNotFoundError(f"{run_dir} holds neither measurements.parquet nor measurements.csv")
    # Runs recorded before issue 9 have no cells, trials or steady flag: every measurement is then
    # its cell's one trial, taken as steady (the old protocol did not judge it).
    defaults = {"steady": True, "aa_twin": False, "trial": 0, "duet": ""}
    for col in MEASUREMENT_COLUMNS:
        if col not in df:
            df[col] = defaults.get(col)
    for col in ("failure", "decode_mode", "producer", "consumer", "worker_id", "language", "runtime",
                "runtime_version", "build_profile", "cpu_model", "hostname", "os", "cell_id",
                "payload_blob_id", "compression", "duet"):
        df[col] = df[col].fillna("").astype(str)
    # Compressed sizes: NaN where unknown (runs recorded before control measured them, too).
    for col in ("gzip_bytes", "zstd_bytes"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    # They called the consumer's fetch "transfer": it is the download leg.
    df["operation"] = df["operation"].replace({"transfer": "download"})
    for col in ("environment_details", "extras"):
        df[col] = df[col].map(lambda v: v if isinstance(v, str) and v else "{}")
    return df[MEASUREMENT_COLUMNS]


def read_duets(run_dir: Path) -> pd.DataFrame:
    """The duet copies' measurements of a results folder (empty when the run had none)."""
    path = run_dir / "duets.parquet"
    if not path.exists():
        return pd.DataFrame(columns=MEASUREMENT_COLUMNS)
    df = pd.read_parquet(path)
    df["round_ns_per_op"] = df["round_ns_per_op"].map(lambda v: [float(x) for x in v] if v is not None else [])
    return df


def read_run_doc(run_dir: Path) -> dict:
    """run.json of a results folder ({} when absent)."""
    path = run_dir / "run.json"
    return json.loads(path.read_text()) if path.exists() else {}


# ---- result files -----------------------------------------------------------------------------

def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def host_memory(sys_root: Path = Path("/sys")) -> dict:
    """What the kernel does to memory behind the benchmark's back, as far as /sys tells: the
    transparent huge page mode, and DAMON schemes that page memory out (a guest reclaiming idle
    pages evicts file pages such as a browser's binary, which are then read back into other
    physical pages). Empty where /sys does not say (not Linux)."""
    out = {}
    thp = _read(sys_root / "kernel/mm/transparent_hugepage/enabled")
    if "[" in thp:
        out["transparentHugepages"] = thp.split("[")[1].split("]")[0]
    schemes = []
    for kd in sorted((sys_root / "kernel/mm/damon/admin/kdamonds").glob("[0-9]*")):
        if _read(kd / "state") != "on":
            continue
        for ctx in sorted((kd / "contexts").glob("[0-9]*")):
            aggr_us = _read(ctx / "monitoring_attrs/intervals/aggr_us")
            for sc in sorted((ctx / "schemes").glob("[0-9]*")):
                action, age = _read(sc / "action"), _read(sc / "access_pattern/age/min")
                idle = (f" of memory idle ≥ {int(age) * int(aggr_us) / 1e6:g} s"
                        if age.isdigit() and aggr_us.isdigit() else "")
                schemes.append(f"{action}{idle} ({_read(ctx / 'operations') or '?'})")
    if schemes:
        out["damon"] = "; ".join(schemes)
    return out


def harness_environment(control_addr: str = "") -> dict:
    from importlib.metadata import PackageNotFoundError, version

    def v(pkg: str) -> str:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return ""

    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpuCount": os.cpu_count(),
        "control": control_addr,
        "packages": {p: v(p) for p in ("codecbench", "grpcio", "protobuf", "pandas", "pyarrow")},
        "hostMemory": host_memory(),
        "source": source_version(),
    }


def source_version(repo: Path | None = None) -> dict:
    """The commit the harness ran from and the git tree of the code that measures (proto, codecs,
    the workers: `measuring`, with "-dirty" when tracked files there differ from it). Runs of one
    scenario repeat one experiment only on one measuring tree (calibration.group_key); a change to
    the harness or the docs does not make them another. Empty outside git."""
    repo = repo or Path(__file__).resolve().parents[2]

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              timeout=10).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        if not commit:
            return {}
        paths = [p for p in MEASURING_PATHS if (repo / p).exists()]
        trees = git("rev-parse", *[f"HEAD:{p}" for p in paths]).split()
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", *paths)
    except (OSError, subprocess.SubprocessError):
        return {}
    measuring = hashlib.sha1(" ".join(trees).encode()).hexdigest()[:16] + ("-dirty" if dirty else "")
    return {"commit": commit, "measuring": measuring, "dirty": bool(dirty)}


# What a worker's figures depend on: the contract, the codecs' shared files and the three workers.
MEASURING_PATHS = ("proto", "codecs", "rust", "java", "web")


def worker_environments(measurements: Iterable) -> dict[str, dict]:
    """The environment each worker reported, once per worker id."""
    envs: dict[str, dict] = {}
    for m in measurements:
        if m.worker_id and m.worker_id not in envs and m.HasField("environment"):
            envs[m.worker_id] = json_format.MessageToDict(m.environment)
    return envs


def write_results(out_dir: Path, run, tasks, measurements, control_addr: str = "",
                  extra: dict | None = None, workers: Iterable = ()) -> dict[str, Path]:
    """Write measurements.csv/.parquet (long), summary.csv (joined) and run.json into out_dir."""
    measurements = list(measurements)
    tasks = list(tasks)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Duet copies ran two at once: they go to duets.parquet, out of every cell and verdict.
    df, duet_rows = duets.split(measurements_frame(measurements, tasks, run_id=run.id))
    files = {
        "csv": out_dir / "measurements.csv",
        "parquet": out_dir / "measurements.parquet",
        "summary": out_dir / "summary.csv",
        "run": out_dir / "run.json",
    }
    csv = df.copy()
    # CSV has no list type: the per-round values go in as a JSON array.
    csv["round_ns_per_op"] = csv["round_ns_per_op"].map(json.dumps)
    csv.to_csv(files["csv"], index=False)
    df.to_parquet(files["parquet"], index=False)
    if not duet_rows.empty:
        files["duets"] = out_dir / "duets.parquet"
        duet_rows.to_parquet(files["duets"], index=False)
    summary_frame(df).to_csv(files["summary"], index=False)
    envs = worker_environments(measurements)
    run_dict, task_dicts = json_format.MessageToDict(run), [json_format.MessageToDict(t) for t in tasks]
    doc = {
        "run": run_dict,
        "tasks": task_dicts,
        "workers": envs,
        # Where the run's wall time went (timing.py), from the tasks' stamps and phases.
        "timeBreakdown": timing.breakdown(run_dict, task_dicts, lambda w: lang_of(w, {k: e.get("language", "") for k, e in envs.items()})),
        # The workers attached when the run started (GetRunResponse.workers): their codecs and
        # each codec's declared timed regions, for the report's boundary table.
        "workerInfo": [json_format.MessageToDict(w) for w in workers],
        "harness": harness_environment(control_addr),
        **(extra or {}),
    }
    files["run"].write_text(json.dumps(doc, indent=2) + "\n")
    return files
