"""Reading a results folder back: measurements, duet copies, run.json."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .rows import MEASUREMENT_COLUMNS


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
    # Runs recorded before implementations had a payload codec: every payload was its codec's own.
    df["payload_codec"] = [p if isinstance(p, str) and p else c for p, c in zip(df["payload_codec"], df["codec"])]
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
