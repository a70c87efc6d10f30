"""Comparing two runs: per matching measurement, the ratio of medians B/A and a verdict judged by
the trials' rerun intervals and both runs' noise floors (stats.py).

A measurement is matched by (dataset, codec, decode mode, operation, record count, producer
language, consumer language). Several cells of one key in one run (rust-1 and rust-2, an A/A twin)
are one entry: their trial figures are pooled. Each side is the median over pass-adjusted trials
with its 95 % distribution-free rerun interval (stats.cell_interval). The verdict of a matched pair:

- slower: B/A above the threshold AND above both runs' noise floors AND the intervals do not
  overlap (B's lower bound above A's upper bound);
- faster: the same the other way (A/B above threshold and floors, B's upper bound below A's lower);
- no significant change: anything else (a tie: within the intervals, the threshold or the noise);
  upload and download rows are held to the transfer noise floor (download A/A groups: one
  consumer fetching the same blob for several producers), the decode floor when neither run
  measured one;
- now fails / fixed / fails in both: a measurement that failed (or was not verified) in B, in A,
  or in both; only in A / only in B: no match in the other run.

Whole columns. Two runs on a shared machine also differ by a factor common to every cell one
language measured in one operation (the machine's speed drifts over tens of minutes; docs/DESIGN.md
rule 3), which no interval computed inside one run can see. So compare judges a column and its
cells apart. A *column* (the measurements one language timed in one operation, matched and
verified in both runs) moved by the median of its ratios; with at least MIN_COLUMN_CELLS of them
that median is its shift, and its verdict is slower (faster) when more than half of its cells are
slower (faster) by the rule above, each judged by itself, AND the cells moved one way (a two-sided
sign test at 5 %). Each cell of such a column is then judged after dividing B by its column's
shift: a cell is slower when it moved beyond its column, by the rule above. A change in one codec moves its cells past the column; a
change in the machine, the runtime or code every codec shares moves the column, and is judged once.

`slower` and `now fails` are regressions, of a cell or a column: `codecbench compare` exits 1 when
there is any.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import stats
from .calibration import widen
from .results import cells_frame, lang_of, language_map, run_noise_floor

# payload_codec: the implementation that wrote a decoded payload (`codec` unless another of its
# format did: results/summary.py), last so the positions before it stay.
KEY = ["dataset", "codec", "decode_mode", "operation", "record_count", "producer_language",
       "consumer_language", "compression", "payload_codec"]
REGRESSIONS = ("slower", "now fails")
RULE = ("slower: B/A > threshold and > both runs' noise floors, and the 95 % rerun intervals of "
        "the medians over trials do not overlap (B's lower bound > A's upper bound); faster: the same "
        "the other way; otherwise no significant change (a tie). In a column of ≥ 6 matched cells "
        "(one language, one operation) B is first divided by the column's shift (the median B/A), "
        "which is judged once: slower when more than half of its cells are slower by themselves and "
        "the cells moved one way (sign test, 5 %). Exit 1 on any slower or newly failing measurement "
        "or column.")
# A column's shift is estimated (and cells judged against it) from this many matched cells on: the
# median of fewer would move with one changed cell, and a sign test of fewer cannot reach 5 %.
MIN_COLUMN_CELLS = 6


@dataclass
class Side:
    median: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    trials: int = 0
    coverage: float = 0.0
    unsteady: int = 0
    payload_bytes: int = 0
    ok: bool = False
    failure: str = ""
    workers: str = ""
    figures: list = field(default_factory=list)

    def interval(self) -> stats.Interval:
        return stats.Interval(self.median, self.lo, self.hi, self.trials, self.coverage)


def entries(df: pd.DataFrame, run_doc: dict | None = None, cells: pd.DataFrame | None = None
            ) -> dict[tuple, Side]:
    """One Side per comparison key of a run's long measurement frame (cells: its cells_frame)."""
    langs = language_map(df, run_doc or {})
    cells = (cells_frame(df) if cells is None else cells).copy()
    out: dict[tuple, Side] = {}
    if cells.empty:
        return out
    cells["producer_language"] = cells["producer"].map(lambda w: lang_of(w, langs))
    # Encode and upload have no consumer; download and decode are measured by the consumer.
    cells["consumer_language"] = [
        "" if op in ("encode", "upload") else lang_of(c or w, langs)
        for op, c, w in zip(cells["operation"], cells["consumer"], cells["worker_id"])]
    cells["decode_mode"] = cells["decode_mode"].fillna("")
    cells["compression"] = cells["compression"].fillna("") if "compression" in cells else ""
    if "payload_codec" not in cells:
        cells["payload_codec"] = cells["codec"]
    for key, g in cells.groupby(KEY, sort=False, dropna=False):
        figures = [float(x) for fs in g["trial_ns_per_op"] for x in fs]
        adjusted = [float(x) for fs in g["adjusted_ns_per_op"] for x in fs]
        failures = [f for f in g["failure"] if isinstance(f, str) and f]
        ok = bool(figures) and not failures and bool(g["verified"].all())
        ci = stats.cell_interval(figures, adjusted)
        out[tuple(key)] = Side(
            median=ci.median, lo=ci.lo, hi=ci.hi, trials=ci.n, coverage=ci.coverage,
            unsteady=int(g["unsteady"].sum()), payload_bytes=int(g["payload_bytes"].max() or 0), ok=ok,
            failure="; ".join(dict.fromkeys(failures)) or ("" if ok else "not verified"),
            workers=", ".join(sorted(set(w for w in g["worker_id"] if w))), figures=figures)
    return out


def verdict(a: Side | None, b: Side | None, threshold: float, noise_floor: float = 1.0,
            shift: float = 1.0) -> tuple[str, float]:
    """The verdict of one matched pair and the ratio B/A; `noise_floor` is the larger of the two
    runs' noise floors (a ratio ≥ 1); `shift` the pair's column shift, which B is divided by before
    it is judged (1.0: none)."""
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
    if math.isnan(ratio) or not stats.differ(a.interval(), b.interval().scaled(1 / shift), noise_floor, threshold):
        return "no significant change", ratio
    return ("slower" if ratio > shift else "faster"), ratio


def column_of(key: tuple) -> tuple[str, str]:
    """(measuring language, operation) of a comparison key: the producer's for encode and upload,
    the consumer's otherwise."""
    k = dict(zip(KEY, key))
    op = k["operation"]
    who = k["producer_language"] if op in ("encode", "upload") else k["consumer_language"]
    # A compressed transfer leg is other work than the identity leg: a column of its own.
    return who, f"{op} ({k['compression']})" if k.get("compression") else op


def sign_test(up: int, n: int) -> float:
    """Two-sided exact sign test: P(a split at least as uneven as `up` of `n` | no shift)."""
    if n == 0:
        return 1.0
    k = max(up, n - up)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n)


def column_shifts(ea: dict, eb: dict, threshold: float, floor_of: dict) -> dict[tuple, "Shift"]:
    """Per (language, operation), the shift of its matched, verified measurements and its verdict."""
    ratios: dict[tuple, list[float]] = {}
    alone: dict[tuple, list[str]] = {}  # each cell's verdict judged by itself, not against the column
    for key, a in ea.items():
        b = eb.get(key)
        if b is None or not (a.ok and b.ok) or not a.median > 0 or not b.median > 0:
            continue
        col = column_of(key)
        ratios.setdefault(col, []).append(b.median / a.median)
        alone.setdefault(col, []).append(verdict(a, b, threshold, floor_of[key])[0])
    out = {}
    for (lang, op), rs in ratios.items():
        med = float(np.median(rs))
        up = sum(1 for r in rs if r > 1)
        down = sum(1 for r in rs if r < 1)
        adjusts = len(rs) >= MIN_COLUMN_CELLS
        v = "no significant change"
        # The column moved when most of its cells moved beyond their own intervals, the threshold
        # and the floors, and the cells moved one way: a shift inside cells' wide intervals (transfer
        # legs that are sometimes 1 ms and sometimes 6) is no verdict, however many moved up.
        if adjusts and sign_test(up, up + down) < 0.05:
            for side in ("slower", "faster"):
                if alone[(lang, op)].count(side) * 2 > len(rs):
                    v = side
        out[(lang, op)] = Shift(str(lang), str(op), len(rs), med, up, adjusts, v)
    return out


def compare(df_a: pd.DataFrame, df_b: pd.DataFrame, threshold: float = 1.10,
            doc_a: dict | None = None, doc_b: dict | None = None, calibration=None) -> pd.DataFrame:
    """One row per key found in either run, with both sides, the ratio and the verdict. The table's
    attrs hold both runs' noise floors (stats.NoiseFloor) under "noise_a" and "noise_b", and their
    transfer floors (download A/A groups) under "transfer_noise_a" and "transfer_noise_b". With this
    host's `calibration` (calibration.Calibration), each side also has its host interval
    (a_host_lo_ns_per_op, …): its rerun interval widened by its column's run-to-run term."""
    cells_a, cells_b = cells_frame(df_a), cells_frame(df_b)
    noise_a, noise_b = run_noise_floor(cells_a), run_noise_floor(cells_b)
    floor = max(noise_a.worst, noise_b.worst)
    # Transfer legs are judged by the floor their own A/A groups (one consumer downloading the
    # same blob for several producers) measured, in either run; the decode floor when neither did.
    transfer_a, transfer_b = run_noise_floor(cells_a, "download"), run_noise_floor(cells_b, "download")
    measured = [n.worst for n in (transfer_a, transfer_b) if n.groups]
    transfer_floor = max(measured) if measured else floor
    ea, eb = entries(df_a, doc_a, cells_a), entries(df_b, doc_b, cells_b)
    keys = list(ea) + [k for k in eb if k not in ea]
    floor_of = {key: transfer_floor if key[3] in ("upload", "download") else floor for key in keys}
    columns = column_shifts(ea, eb, threshold, floor_of)
    rows = []
    for key in keys:
        a, b = ea.get(key), eb.get(key)
        col = columns.get(column_of(key))
        shift = col.median_ratio if col is not None and col.adjusts else 1.0
        v, ratio = verdict(a, b, threshold, floor_of[key], shift)
        row = dict(zip(KEY, key))
        for name, side in (("a", a), ("b", b)):
            side = side or Side()
            row.update({f"{name}_median_ns_per_op": side.median, f"{name}_lo_ns_per_op": side.lo,
                        f"{name}_hi_ns_per_op": side.hi, f"{name}_trials": side.trials,
                        f"{name}_coverage": side.coverage, f"{name}_unsteady": side.unsteady,
                        f"{name}_payload_bytes": side.payload_bytes, f"{name}_failure": side.failure,
                        f"{name}_workers": side.workers})
        term = calibration.term(*column_of(key)) if calibration is not None else None
        for name, side in (("a", a), ("b", b)):
            host = widen(side.interval(), term) if side is not None and term is not None else None
            row.update({f"{name}_host_lo_ns_per_op": host.lo if host else math.nan,
                        f"{name}_host_hi_ns_per_op": host.hi if host else math.nan})
        row.update({"ratio": ratio, "column_shift": shift,
                    "adjusted_ratio": ratio / shift if not math.isnan(ratio) else math.nan, "verdict": v})
        rows.append(row)
    out = pd.DataFrame(rows)
    # Set again after sorting: a new frame does not keep them in every pandas version.
    floors = dict(noise_a=noise_a, noise_b=noise_b, transfer_noise_a=transfer_a, transfer_noise_b=transfer_b,
                  shifts=sorted(columns.values(), key=lambda c: (c.language, c.operation)))
    out.attrs.update(floors)
    if out.empty:
        return out
    out["_v"] = out["verdict"].map(ORDER)
    out = out.sort_values(["_v", "dataset", "codec", "operation", "decode_mode", "record_count",
                           "producer_language", "consumer_language"], kind="stable") \
        .drop(columns="_v").reset_index(drop=True)
    out.attrs.update(floors)
    return out


ORDER = {"slower": 0, "now fails": 1, "faster": 2, "fixed": 3, "no significant change": 4,
         "fails in both": 5, "only in A": 6, "only in B": 7}


def counts(table: pd.DataFrame) -> dict[str, int]:
    if table.empty:
        return {}
    vc = table["verdict"].value_counts()
    return {k: int(vc[k]) for k in sorted(vc.index, key=lambda v: ORDER.get(v, 99))}


@dataclass(frozen=True)
class Agreement:
    """How closely two runs agree on the measurements both timed: what an A/A pair of runs (the
    same scenario twice) should show. `inside` is the share of pairs whose medians each lie inside
    the other run's interval, `one_way` the share of the 2 × pairs medians that lie inside the
    other run's interval, `expected` what `inside` would be for identical conditions in both runs
    (about the mean product of the two intervals' coverages: 0.69 with 5 trials a side, 0.94 with
    9); `median_abs_diff` the median |B/A − 1|."""
    pairs: int
    inside: float
    median_abs_diff: float
    one_way: float = math.nan
    expected: float = math.nan
    inside_adjusted: float = math.nan  # `inside` after dividing B by its column's shift
    inside_host: float = math.nan  # `inside` of the host intervals (this host's run-to-run term)
    host_pairs: int = 0  # pairs whose column has a host term

    def sentence(self) -> str:
        if not self.pairs:
            return "agreement: no measurement timed in both runs"
        adjusted = "" if math.isnan(self.inside_adjusted) or self.inside_adjusted == self.inside else (
            f"; {self.inside_adjusted:.0%} after each column's shift")
        host = "" if not self.host_pairs else (
            f"; {self.inside_host:.0%} of the {self.host_pairs} with a host term inside each other's host intervals")
        return (f"agreement: {self.inside:.0%} of {self.pairs} medians lie inside each other's 95 % "
                f"rerun intervals ({self.one_way:.0%} one way; identical conditions would give about "
                f"{self.expected:.0%}{adjusted}{host}); median |B/A − 1| = {self.median_abs_diff:.1%}")


def agreement(table: pd.DataFrame) -> Agreement:
    if table.empty:
        return Agreement(0, math.nan, math.nan)
    both = table[table["ratio"].notna()]
    if both.empty:
        return Agreement(0, math.nan, math.nan)
    a_in_b = both["a_median_ns_per_op"].between(both["b_lo_ns_per_op"], both["b_hi_ns_per_op"])
    b_in_a = both["b_median_ns_per_op"].between(both["a_lo_ns_per_op"], both["a_hi_ns_per_op"])
    expected = (both["a_coverage"].astype(float) * both["b_coverage"].astype(float)).mean()
    s = both["column_shift"].astype(float) if "column_shift" in both else 1.0
    a_in_b_adj = (both["a_median_ns_per_op"] * s).between(both["b_lo_ns_per_op"], both["b_hi_ns_per_op"])
    b_in_a_adj = (both["b_median_ns_per_op"] / s).between(both["a_lo_ns_per_op"], both["a_hi_ns_per_op"])
    inside_host, host_pairs = math.nan, 0
    if "a_host_lo_ns_per_op" in both:
        hosted = both[both["a_host_lo_ns_per_op"].notna() & both["b_host_lo_ns_per_op"].notna()]
        host_pairs = len(hosted)
        if host_pairs:
            inside_host = float((hosted["a_median_ns_per_op"].between(hosted["b_host_lo_ns_per_op"], hosted["b_host_hi_ns_per_op"])
                                 & hosted["b_median_ns_per_op"].between(hosted["a_host_lo_ns_per_op"], hosted["a_host_hi_ns_per_op"])
                                 ).mean())
    return Agreement(len(both), float((a_in_b & b_in_a).mean()), float((both["ratio"] - 1).abs().median()),
                     float((a_in_b.mean() + b_in_a.mean()) / 2), float(expected),
                     float((a_in_b_adj & b_in_a_adj).mean()), inside_host, host_pairs)


def agreement_by_language(table: pd.DataFrame) -> dict[str, Agreement]:
    """Agreement per measuring language (column_of): languages differ in how much a rerun moves."""
    if table.empty:
        return {}
    langs = [column_of(tuple(r))[0] for r in table[KEY].itertuples(index=False)]
    by_lang = {lang: agreement(g) for lang, g in table.groupby(pd.Series(langs, index=table.index), sort=True)}
    return {lang: a for lang, a in by_lang.items() if a.pairs}


@dataclass(frozen=True)
class Shift:
    """How one language's whole column of one operation moved from A to B: the median ratio B/A
    over its matched measurements and how many of them moved up. A shift shared by every cell of
    a column is a change in the machine or the runtime between the runs (or in code every codec
    shares), not in one codec: read single-cell verdicts of that column against it."""
    language: str
    operation: str
    cells: int
    median_ratio: float
    slower: int
    adjusts: bool = False  # enough cells: its cells are judged after dividing B by the shift
    verdict: str = "no significant change"

    def sentence(self) -> str:
        judged = f", {self.verdict}" if self.adjusts else ""
        return (f"{self.language} {self.operation} ×{self.median_ratio:.3f} "
                f"({self.slower} of {self.cells} above 1{judged})")


def shifts(table: pd.DataFrame) -> list[Shift]:
    """Per measuring language (the producer's for encode and upload, the consumer's otherwise) and
    operation, the median B/A over the measurements matched and verified in both runs, with its
    verdict (compare() computes them)."""
    return list(table.attrs.get("shifts", []))


def regressions(table: pd.DataFrame) -> int:
    """Slower or newly failing measurements, plus slower columns."""
    if table.empty:
        return 0
    return int(table["verdict"].isin(REGRESSIONS).sum()) + sum(1 for m in shifts(table) if m.verdict == "slower")


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


# Conditions two runs must share for their ratios to mean a change in the code under test, not in
# how it was measured. The trial order seed differs on purpose; everything else in sampling counts.
_SAMPLING_IGNORED = {"orderSeed"}
_WORKER_FIELDS = (("runtime", "runtime"), ("runtimeVersion", "runtime version"),
                  ("buildProfile", "build profile"), ("hostname", "host"), ("cpuModel", "CPU"),
                  ("cores", "cores"), ("os", "OS"))


def _by_language(doc: dict) -> dict[str, dict[str, str]]:
    """language → field → the values its workers reported (joined when several workers differ)."""
    out: dict[str, dict[str, set]] = {}
    for env in (doc.get("workers") or {}).values():
        lang = env.get("language", "")
        for key, _ in _WORKER_FIELDS:
            out.setdefault(lang, {}).setdefault(key, set()).add(str(env.get(key, "")))
    return {lang: {k: ", ".join(sorted(v)) for k, v in fields.items()} for lang, fields in out.items()}


def condition_mismatches(doc_a: dict, doc_b: dict) -> list[str]:
    """What differs between the two runs' conditions: sampling (other than the trial order seed),
    the languages that measured, and per language the runtime, build profile, host, CPU and OS.
    Empty when the runs are comparable (or when either run's run.json does not say)."""
    if not doc_a or not doc_b:
        return []
    out = []
    sa = ((doc_a.get("run") or {}).get("scenario") or {}).get("sampling") or {}
    sb = ((doc_b.get("run") or {}).get("scenario") or {}).get("sampling") or {}
    for key in sorted((set(sa) | set(sb)) - _SAMPLING_IGNORED):
        if sa.get(key) != sb.get(key):
            out.append(f"sampling.{key}: {sa.get(key, 'default')} in A, {sb.get(key, 'default')} in B")
    la, lb = _by_language(doc_a), _by_language(doc_b)
    if la and lb and set(la) != set(lb):
        out.append(f"workers: {', '.join(sorted(la))} in A, {', '.join(sorted(lb))} in B")
    for lang in sorted(set(la) & set(lb)):
        for key, name in _WORKER_FIELDS:
            if la[lang].get(key) != lb[lang].get(key):
                out.append(f"{lang} {name}: {la[lang].get(key) or '?'} in A, {lb[lang].get(key) or '?'} in B")
    return out
