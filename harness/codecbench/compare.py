"""Comparing two runs: per matching measurement, the ratio of medians B/A and a verdict that takes
both runs' spreads into account.

A measurement is matched by (dataset, codec, decode mode, operation, record count, producer
language, consumer language). Several workers of one language in one run (rust-1, rust-2) are one
entry: their rounds are pooled. The verdict of a matched pair:

- slower: B/A ≥ threshold AND the interquartile ranges of the rounds do not overlap (B's first
  quartile above A's third);
- faster: B/A ≤ 1/threshold AND B's third quartile below A's first;
- no significant change: anything else (a ratio beyond the threshold whose rounds overlap is
  within the spread, and is not a change);
- now fails / fixed / fails in both: a measurement that failed (or was not verified) in B, in A,
  or in both; only in A / only in B: no match in the other run.

`slower` and `now fails` are regressions: `codecbench compare` exits 1 when there is any.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .results import lang_of, language_map

KEY = ["dataset", "codec", "decode_mode", "operation", "record_count", "producer_language",
       "consumer_language"]
REGRESSIONS = ("slower", "now fails")
RULE = ("slower: B/A ≥ threshold and B's first quartile > A's third quartile (the rounds' "
        "interquartile ranges do not overlap); faster: B/A ≤ 1/threshold and B's third quartile < "
        "A's first quartile; otherwise no significant change. Exit 1 on any slower or newly failing "
        "measurement.")


@dataclass
class Side:
    median: float = math.nan
    q1: float = math.nan
    q3: float = math.nan
    rounds: int = 0
    payload_bytes: int = 0
    ok: bool = False
    failure: str = ""
    workers: str = ""


def entries(df: pd.DataFrame, run_doc: dict | None = None) -> dict[tuple, Side]:
    """One Side per comparison key of a run's long measurement frame."""
    langs = language_map(df, run_doc or {})
    out: dict[tuple, Side] = {}
    df = df.copy()
    df["producer_language"] = df["producer"].map(lambda w: lang_of(w, langs))
    # Encode has no consumer; transfer and decode are measured by the consumer.
    df["consumer_language"] = [
        "" if op == "encode" else lang_of(c or w, langs)
        for op, c, w in zip(df["operation"], df["consumer"], df["worker_id"])]
    df["decode_mode"] = df["decode_mode"].fillna("")
    for key, g in df.groupby(KEY, sort=False, dropna=False):
        values = [float(x) for rounds in g["round_ns_per_op"] for x in rounds]
        failures = [f for f in g["failure"] if isinstance(f, str) and f]
        ok = bool(values) and not failures and bool(g["verified"].all())
        side = Side(rounds=len(values), payload_bytes=int(g["payload_bytes"].max() or 0), ok=ok,
                    failure="; ".join(dict.fromkeys(failures)) or ("" if ok else "not verified"),
                    workers=", ".join(sorted(set(w for w in g["worker_id"] if w))))
        if values:
            side.q1, side.median, side.q3 = (float(v) for v in np.percentile(values, [25, 50, 75]))
        out[tuple(key)] = side
    return out


def verdict(a: Side | None, b: Side | None, threshold: float) -> tuple[str, float]:
    if a is None:
        return "only in B", math.nan
    if b is None:
        return "only in A", math.nan
    if not a.ok and not b.ok:
        return "fails in both", math.nan
    if not b.ok:
        return "now fails", math.nan
    if not a.ok:
        return "fixed", math.nan
    ratio = b.median / a.median if a.median > 0 else math.nan
    if math.isnan(ratio):
        return "no significant change", ratio
    if ratio >= threshold and b.q1 > a.q3:
        return "slower", ratio
    if ratio <= 1 / threshold and b.q3 < a.q1:
        return "faster", ratio
    return "no significant change", ratio


def compare(df_a: pd.DataFrame, df_b: pd.DataFrame, threshold: float = 1.10,
            doc_a: dict | None = None, doc_b: dict | None = None) -> pd.DataFrame:
    """One row per key found in either run, with both sides, the ratio and the verdict."""
    ea, eb = entries(df_a, doc_a), entries(df_b, doc_b)
    rows = []
    for key in list(ea) + [k for k in eb if k not in ea]:
        a, b = ea.get(key), eb.get(key)
        v, ratio = verdict(a, b, threshold)
        row = dict(zip(KEY, key))
        for name, side in (("a", a), ("b", b)):
            side = side or Side()
            row.update({f"{name}_median_ns_per_op": side.median, f"{name}_q1_ns_per_op": side.q1,
                        f"{name}_q3_ns_per_op": side.q3, f"{name}_rounds": side.rounds,
                        f"{name}_payload_bytes": side.payload_bytes, f"{name}_failure": side.failure,
                        f"{name}_workers": side.workers})
        row.update({"ratio": ratio, "verdict": v})
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["_v"] = out["verdict"].map(ORDER)
    return out.sort_values(["_v", "dataset", "codec", "operation", "decode_mode", "record_count",
                            "producer_language", "consumer_language"], kind="stable") \
        .drop(columns="_v").reset_index(drop=True)


ORDER = {"slower": 0, "now fails": 1, "faster": 2, "fixed": 3, "no significant change": 4,
         "fails in both": 5, "only in A": 6, "only in B": 7}


def counts(table: pd.DataFrame) -> dict[str, int]:
    if table.empty:
        return {}
    vc = table["verdict"].value_counts()
    return {k: int(vc[k]) for k in sorted(vc.index, key=lambda v: ORDER.get(v, 99))}


def regressions(table: pd.DataFrame) -> int:
    return 0 if table.empty else int(table["verdict"].isin(REGRESSIONS).sum())


def to_json(table: pd.DataFrame) -> list[dict]:
    def clean(v):
        if isinstance(v, float) and math.isnan(v):
            return None
        if isinstance(v, (np.integer,)):
            return int(v)
        if isinstance(v, (np.floating,)):
            return None if math.isnan(v) else float(v)
        return v
    return [{k: clean(v) for k, v in row.items()} for row in table.to_dict("records")]
