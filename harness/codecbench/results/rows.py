"""The long frame: one row per measurement (one trial of one cell), one per failed task; and which
language each worker id is."""

from __future__ import annotations

import json
import math
import re
from typing import Iterable

import numpy as np
import pandas as pd

from ..pb import operation_name, task_status_name


MEASUREMENT_COLUMNS = [
    "run_id", "task_id", "cell_id", "trial", "operation", "dataset", "codec", "payload_codec", "decode_mode",
    "record_count", "producer", "consumer", "worker_id", "language", "payload_bytes",
    "gzip_bytes", "zstd_bytes", "compression", "payload_blob_id", "aa_twin", "steady", "round_ns_per_op", "rounds",
    "ops_per_round",
    "median_ns_per_op", "q1_ns_per_op", "q3_ns_per_op", "spread", "ns_per_record",
    "alloc_bytes_per_op", "verified", "failure", "runtime", "runtime_version", "build_profile",
    "cpu_model", "cores", "hostname", "os", "environment_details", "extras", "recorded_at",
    # TaskSummary.duet: the duet a duet copy's trial belongs to ('' for ordinary rows; duets.py).
    "duet",
    # A SAME_BYTES row (Measurement.same_bytes_as): the lead cell that measured this cell's work.
    "same_bytes_as",
]

# The operation of a row control writes for a decode cell it did not run because its payload is
# byte-identical to the one a lead cell decodes on the same consumer (Sampling.repeat_same_bytes
# off): not a measurement. summary_frame gives the cell a row carrying the lead's figures; cells,
# A/A groups, compare and failures leave it out.
SAME_BYTES = "same-bytes"

# payload_codec: the implementation that wrote the payload (`codec` unless another of its format did).
SUMMARY_KEYS = ["dataset", "codec", "payload_codec", "mode", "record_count", "producer", "consumer"]
# The timed legs of one payload, in the order end to end adds them.
LEGS = ("encode", "upload", "download", "decode")
# The suffix control gives the twin of a deliberate A/A cell (Sampling.aa_cells).
AA_SUFFIX = "~aa"


def writer_tag(codec, payload_codec) -> str:
    """"[json/v2]" after a producer when another implementation of the codec's format wrote the
    payload (proto Measurement.payload_codec); "" when the codec's own did."""
    return f"[{payload_codec}]" if isinstance(payload_codec, str) and payload_codec and payload_codec != codec else ""


def own_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of payloads their own codec wrote: one implementation's round trip. A decode of a
    payload another implementation of the format wrote is an interop cell (summary.csv and the
    every-cell tables show it), not a codec's figure."""
    if "payload_codec" not in frame or frame.empty:
        return frame
    return frame[frame["payload_codec"].isna() | (frame["payload_codec"] == "") | (frame["payload_codec"] == frame["codec"])]


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
    if m.same_bytes_as:
        return SAME_BYTES
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
        # The implementation that wrote the payload (proto Measurement.payload_codec): `codec`
        # itself unless another implementation of its format did.
        "payload_codec": m.payload_codec or m.codec,
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
        "same_bytes_as": m.same_bytes_as,
    }


def task_failure_row(t, run_id: str) -> dict:
    """A failed task that stored no measurement still belongs in the table, with its message."""
    row = {c: None for c in MEASUREMENT_COLUMNS}
    row.update({
        "run_id": run_id, "task_id": t.id, "cell_id": t.cell_id, "trial": int(t.trial),
        "operation": operation_name(t.operation),
        "dataset": t.dataset, "codec": t.codec, "payload_codec": t.payload_codec or t.codec, "decode_mode": t.decode_mode,
        "record_count": int(t.record_count), "producer": t.producer_worker_id,
        "consumer": t.consumer_worker_id, "worker_id": "", "language": "", "payload_bytes": 0,
        "gzip_bytes": math.nan, "zstd_bytes": math.nan, "payload_blob_id": "", "aa_twin": t.cell_id.endswith(AA_SUFFIX), "steady": False,
        "round_ns_per_op": [], "rounds": 0, "ops_per_round": 0, "median_ns_per_op": math.nan,
        "q1_ns_per_op": math.nan, "q3_ns_per_op": math.nan, "spread": math.nan,
        "ns_per_record": math.nan, "alloc_bytes_per_op": math.nan, "verified": False,
        "failure": t.failure or f"task {task_status_name(t.status)}",
        "environment_details": "{}", "extras": "{}", "recorded_at": "", "duet": t.duet, "same_bytes_as": "",
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
    # A producer shown with its payload's writer ("go-1[json/v2]": writer_tag) is that worker.
    worker = re.sub(r"\[[^\]]*\]$", "", worker)
    if worker in langs:
        return langs[worker]
    # Worker ids are "<name>-<n>" and the default name is the language.
    return worker.rsplit("-", 1)[0] if re.search(r"-\d+$", worker) else worker
