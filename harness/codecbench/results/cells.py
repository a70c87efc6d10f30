"""Cells: one row per cell and operation, its trials summarised (median over trials and its rerun
interval, stats.py); the A/A groups and the run's noise floor."""

from __future__ import annotations

import math
from typing import Iterable

import pandas as pd

from .hosts import replica_block, replica_factors
from .rows import AA_SUFFIX, SAME_BYTES, _failures, _first, lang_of


CELL_COLUMNS = [
    "cell_key", "cell_id", "operation", "dataset", "codec", "payload_codec", "decode_mode", "record_count", "producer",
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


_CELL_INPUT = ["cell_id", "trial", "operation", "dataset", "codec", "payload_codec", "decode_mode", "record_count", "producer",
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
        r["payload_codec"] = _str(r.get("payload_codec")) or r["codec"]
        st = r.get("steady")
        r["steady"] = True if st is None or (isinstance(st, float) and math.isnan(st)) else bool(st)
    return records


def cells_frame(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, operation): the median over its trials (each trial = the median of its
    rounds, divided by its replica's factor when trials were spread over replicas, hosts.py, and
    by its pass factor: stats.pass_factors), its 95 % rerun interval
    (stats.cell_interval), trial and unsteady counts. A cell
    any of whose trials failed or was not verified carries the failure."""
    from .. import stats

    if df.empty:
        return pd.DataFrame(columns=CELL_COLUMNS)
    groups: dict[tuple, list[dict]] = {}
    for r in _records(df):
        if r["operation"] == SAME_BYTES:
            continue  # not a measurement: a cell measured in its lead (summary_frame)
        groups.setdefault((cell_key(r), r["operation"]), []).append(r)
    timed_of = {g: [r for r in rs if r["rounds"] > 0 and not r["failure"]] for g, rs in groups.items()}
    figure_of = {id(r): stats.trial_figure(r["round_ns_per_op"]) for rs in timed_of.values() for r in rs}
    # Replicas first (hosts.py: the replica that timed a trial is a block too), then passes.
    replicas = replica_factors(timed_of, figure_of)
    steady_of = {id(r): figure_of[id(r)] / replicas.get(replica_block(r, op), 1.0)
                 for (_, op), rs in timed_of.items() for r in rs}
    factors = stats.pass_factors((_block(r, op), (key, op), steady_of[id(r)])
                                 for (key, op), rs in timed_of.items() for r in rs)
    rows = []
    for (key, op), rs in groups.items():
        timed = timed_of[(key, op)]
        figures = [figure_of[id(r)] for r in timed]
        adjusted = [steady_of[id(r)] / factors.get(_block(r, op), 1.0) for r in timed]
        ci = stats.cell_interval(figures, adjusted)
        first = (timed or rs)[0]
        count = int(first["record_count"])
        failure = _failures(rs)
        allocs = [r["alloc_bytes_per_op"] for r in timed if not _isnan(r["alloc_bytes_per_op"])]
        rows.append({
            "cell_key": key, "cell_id": first["cell_id"], "operation": op, "dataset": first["dataset"],
            "codec": first["codec"], "payload_codec": first["payload_codec"], "decode_mode": first["decode_mode"], "record_count": count,
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
    from .. import stats

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
    from .. import stats

    groups = aa_groups(cells, operation)
    return stats.noise_floor(groups["ratio"] if not groups.empty else [])


def language_noise_floors(cells: pd.DataFrame, langs: dict[str, str]) -> dict:
    """language → stats.NoiseFloor of the decode A/A groups its consumers measured (languages
    without a group are absent)."""
    from .. import stats

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
