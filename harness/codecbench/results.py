"""Measurements as pandas DataFrames: the long table (one row per measurement), the joined results
table (one row per dataset × codec × mode × count × producer → consumer), and the result files.

Reports and plots build on `measurements_frame` and `summary_frame`; nothing here prints.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import socket
import sys
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from google.protobuf import json_format

from .pb import operation_name, task_status_name
from .scenario import DATASETS

MEASUREMENT_COLUMNS = [
    "run_id", "task_id", "operation", "dataset", "codec", "decode_mode", "record_count",
    "producer", "consumer", "worker_id", "language", "payload_bytes", "round_ns_per_op",
    "rounds", "ops_per_round", "median_ns_per_op", "q1_ns_per_op", "q3_ns_per_op", "spread",
    "ns_per_record", "alloc_bytes_per_op", "verified", "failure", "runtime", "runtime_version",
    "build_profile", "cpu_model", "cores", "hostname", "os", "environment_details", "extras",
    "recorded_at",
]

SUMMARY_KEYS = ["dataset", "codec", "mode", "record_count", "producer", "consumer"]


def round_stats(rounds: Iterable[float]) -> tuple[float, float, float, float]:
    """(median, q1, q3, spread) of per-round ns/op; spread = half the interquartile range / median."""
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
    }


def task_failure_row(t, run_id: str) -> dict:
    """A failed task that stored no measurement still belongs in the table, with its message."""
    row = {c: None for c in MEASUREMENT_COLUMNS}
    row.update({
        "run_id": run_id, "task_id": t.id, "operation": operation_name(t.operation),
        "dataset": t.dataset, "codec": t.codec, "decode_mode": t.decode_mode,
        "record_count": int(t.record_count), "producer": t.producer_worker_id,
        "consumer": t.consumer_worker_id, "worker_id": "", "language": "", "payload_bytes": 0,
        "round_ns_per_op": [], "rounds": 0, "ops_per_round": 0, "median_ns_per_op": math.nan,
        "q1_ns_per_op": math.nan, "q3_ns_per_op": math.nan, "spread": math.nan,
        "ns_per_record": math.nan, "alloc_bytes_per_op": math.nan, "verified": False,
        "failure": t.failure or f"task {task_status_name(t.status)}",
        "environment_details": "{}", "extras": "{}", "recorded_at": "",
    })
    return row


def measurements_frame(measurements: Iterable, tasks: Iterable = (), run_id: str = "") -> pd.DataFrame:
    """One row per measurement (plus one per failed task that reported none)."""
    tasks = list(tasks)
    task_ops = {t.id: operation_name(t.operation) for t in tasks}
    rows = [measurement_row(m, task_ops) for m in measurements]
    measured = {r["task_id"] for r in rows}
    failed = [t for t in tasks if task_status_name(t.status) == "failed" and t.id not in measured]
    rows += [task_failure_row(t, run_id) for t in failed]
    df = pd.DataFrame(rows, columns=MEASUREMENT_COLUMNS)
    return df.astype({"record_count": "int64", "payload_bytes": "int64", "rounds": "int64",
                      "ops_per_round": "int64", "verified": "bool"})


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


def _side(rows: list[dict], prefix: str) -> dict:
    """Fields of one operation's measurement (the one with rounds, if several rows share a key)."""
    if not rows:
        return {f"{prefix}_ns_per_record": math.nan, f"{prefix}_ns_per_op": math.nan,
                f"{prefix}_spread": math.nan, f"{prefix}_alloc_bytes_per_op": math.nan,
                f"{prefix}_language": ""}
    timed = [r for r in rows if r["rounds"] > 0]
    row = (timed or rows)[0]
    return {f"{prefix}_ns_per_record": row["ns_per_record"],
            f"{prefix}_ns_per_op": row["median_ns_per_op"],
            f"{prefix}_spread": row["spread"],
            f"{prefix}_alloc_bytes_per_op": row["alloc_bytes_per_op"],
            f"{prefix}_language": row["language"] or ""}


SUMMARY_COLUMNS = SUMMARY_KEYS + [
    "payload_bytes",
    "encode_ns_per_record", "encode_ns_per_op", "encode_spread", "encode_alloc_bytes_per_op", "encode_language",
    "decode_ns_per_record", "decode_ns_per_op", "decode_spread", "decode_alloc_bytes_per_op", "decode_language",
    "transfer_ns_per_record", "transfer_ns_per_op", "transfer_spread", "transfer_alloc_bytes_per_op",
    "transfer_language", "end_to_end_ns_per_op", "end_to_end_ns_per_record", "verified", "failure",
]


def summary_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Join encode measurements (keyed dataset, codec, count, producer) with decode measurements
    (one per decode task: dataset, codec, mode, count, producer, consumer) and transfer
    measurements (keyed dataset, codec, count, producer, consumer: control times the transfer of
    a payload once per consumer, on one of its decode tasks, and it holds for every mode).

    Encode results without any decode task (a scenario measuring encode only, or decode tasks
    that never ran) get a row of their own with an empty mode and consumer.
    End to end (encode + transfer + decode medians) is added where all three were measured.
    """
    if df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    cols = ["task_id", "operation", "dataset", "codec", "decode_mode", "record_count", "producer",
            "consumer", "worker_id", "language", "payload_bytes", "rounds", "median_ns_per_op",
            "spread", "ns_per_record", "alloc_bytes_per_op", "verified", "failure"]
    # Plain dicts: grouping hundreds of tiny frames in pandas costs seconds.
    records = df[cols].to_dict("records")
    for r in records:
        r["failure"] = r["failure"] if isinstance(r["failure"], str) else ""
        r["language"] = r["language"] if isinstance(r["language"], str) else ""
        r["decode_mode"] = r["decode_mode"] if isinstance(r["decode_mode"], str) else ""
        r["consumer"] = r["consumer"] if isinstance(r["consumer"], str) else ""
    enc_key = ("dataset", "codec", "record_count", "producer")
    encodes: dict[tuple, list[dict]] = {}
    transfers: dict[tuple, list[dict]] = {}
    tasks: dict[str, list[dict]] = {}
    for r in records:
        key = tuple(r[k] for k in enc_key)
        if r["operation"] == "encode":
            encodes.setdefault(key, []).append(r)
        elif r["operation"] in ("decode", "transfer"):
            if r["operation"] == "transfer":
                transfers.setdefault(key + (r["consumer"],), []).append(r)
            tasks.setdefault(r["task_id"], []).append(r)
    rows = []
    used_encodes = set()
    for task in tasks.values():
        dec = [r for r in task if r["operation"] == "decode"]
        ident = (dec or task)[0]
        key = tuple(ident[k] for k in enc_key)
        enc = encodes.get(key, [])
        tr = transfers.get(key + (ident["consumer"],), [])
        used_encodes.add(key)
        parts = enc + tr + dec
        rows.append({
            "dataset": ident["dataset"], "codec": ident["codec"],
            "mode": _first(r["decode_mode"] for r in dec) or _first(r["decode_mode"] for r in task),
            "record_count": int(ident["record_count"]), "producer": ident["producer"],
            "consumer": ident["consumer"] or ident["worker_id"],
            "payload_bytes": int(max([r["payload_bytes"] for r in parts] + [0])),
            **_side(enc, "encode"), **_side(dec, "decode"), **_side(tr, "transfer"),
            "verified": bool(all(r["verified"] for r in parts) and not _failures(parts) and dec and enc),
            "failure": _failures(parts),
        })
    for key, enc in encodes.items():
        if key in used_encodes:
            continue
        ident = enc[0]
        rows.append({
            "dataset": ident["dataset"], "codec": ident["codec"], "mode": "",
            "record_count": int(ident["record_count"]), "producer": ident["producer"],
            "consumer": "", "payload_bytes": int(max(r["payload_bytes"] for r in enc)),
            **_side(enc, "encode"), **_side([], "decode"), **_side([], "transfer"),
            "verified": bool(all(r["verified"] for r in enc) and not _failures(enc)),
            "failure": _failures(enc),
        })
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out = add_end_to_end(out)
    order = {d: i for i, d in enumerate(DATASETS)}
    out["_d"] = out["dataset"].map(lambda d: order.get(d, len(order)))
    out = out.sort_values(["_d", "dataset", "record_count", "codec", "mode", "producer", "consumer"],
                          kind="stable").drop(columns="_d").reset_index(drop=True)
    return out


def add_end_to_end(summary: pd.DataFrame) -> pd.DataFrame:
    """End to end = encode + transfer + decode of one payload (medians, ns per operation), per
    producer → consumer cell and decode mode. Only where all three were measured: a sum with a
    missing part would look faster than it is."""
    parts = summary[["encode_ns_per_op", "transfer_ns_per_op", "decode_ns_per_op"]].astype(float)
    total = parts.sum(axis=1, min_count=3)
    summary["end_to_end_ns_per_op"] = total
    counts = summary["record_count"].astype(float).where(summary["record_count"] > 0)
    summary["end_to_end_ns_per_record"] = total / counts
    return summary


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
                              "ns_per_record", "alloc_bytes_per_op")})
        df["round_ns_per_op"] = df["round_ns_per_op"].map(
            lambda v: [float(x) for x in json.loads(v)] if isinstance(v, str) and v else [])
        df["verified"] = df["verified"].map(lambda v: str(v).lower() == "true")
    else:
        raise FileNotFoundError(f"{run_dir} holds neither measurements.parquet nor measurements.csv")
    for col in MEASUREMENT_COLUMNS:
        if col not in df:
            df[col] = None
    for col in ("failure", "decode_mode", "producer", "consumer", "worker_id", "language", "runtime",
                "runtime_version", "build_profile", "cpu_model", "hostname", "os"):
        df[col] = df[col].fillna("").astype(str)
    for col in ("environment_details", "extras"):
        df[col] = df[col].map(lambda v: v if isinstance(v, str) and v else "{}")
    return df[MEASUREMENT_COLUMNS]


def read_run_doc(run_dir: Path) -> dict:
    """run.json of a results folder ({} when absent)."""
    path = run_dir / "run.json"
    return json.loads(path.read_text()) if path.exists() else {}


# ---- result files -----------------------------------------------------------------------------

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
    }


def worker_environments(measurements: Iterable) -> dict[str, dict]:
    """The environment each worker reported, once per worker id."""
    envs: dict[str, dict] = {}
    for m in measurements:
        if m.worker_id and m.worker_id not in envs and m.HasField("environment"):
            envs[m.worker_id] = json_format.MessageToDict(m.environment)
    return envs


def write_results(out_dir: Path, run, tasks, measurements, control_addr: str = "",
                  extra: dict | None = None) -> dict[str, Path]:
    """Write measurements.csv/.parquet (long), summary.csv (joined) and run.json into out_dir."""
    measurements = list(measurements)
    tasks = list(tasks)
    out_dir.mkdir(parents=True, exist_ok=True)
    df = measurements_frame(measurements, tasks, run_id=run.id)
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
    summary_frame(df).to_csv(files["summary"], index=False)
    doc = {
        "run": json_format.MessageToDict(run),
        "tasks": [json_format.MessageToDict(t) for t in tasks],
        "workers": worker_environments(measurements),
        "harness": harness_environment(control_addr),
        **(extra or {}),
    }
    files["run"].write_text(json.dumps(doc, indent=2) + "\n")
    return files
