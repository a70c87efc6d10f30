"""The statistics every figure of codecbench rests on (issue 9; DESIGN.md rule 3).

A **cell** is one operation of one dataset × count × codec × producer (encode, upload) or
× consumer × decode mode (decode, download). It is measured in independent **trials** (each a
fresh process); each trial times several rounds.

- A trial's figure is the **median of its rounds** (ns per operation). Rounds are a diagnostic.
- A cell's figure is the **median over its trials' figures**, each divided by its pass factor
  ("Pass adjustment" below).
- Its uncertainty is a **95 % rerun interval**: where the median of a rerun of the cell (the same
  number of trials, same machine, same conditions) lands, distribution-free. Sort the n trial
  figures x(1) ≤ … ≤ x(n); the interval is [x(j), x(n−j+1)] (1-based ranks). If the 2n trial
  figures of the two runs are exchangeable (any order of them as likely as any other: no shape
  assumed), the number K of the rerun's figures below x(j) has the negative hypergeometric law

      P(K = t) = C(j−1+t, t) · C(n−j+n−t, n−t) / C(2n, n)

  and the rerun's median falls below x(j) exactly when K ≥ (n+1)/2 (odd n; for even n, K ≥ n/2
  is necessary, which bounds the miss from above), so by symmetry

      coverage(j) = 1 − 2 · P(K ≥ ⌈n/2⌉)      (exact for odd n, a lower bound for even n).

  We take the largest j ≥ 1 with coverage(j) ≥ 95 %. When even j = 1 (min..max) gives less, the
  interval is min..max and its actual coverage is reported: 60 % for n = 3, 83.3 % for 5,
  93.0 % for 7; 9 trials are the fewest that reach 95 % (min..max, 97.1 %); from 13 trials on
  j = 2 (97.0 %), from 17 on j = 3.
  Why not the confidence interval of the median (the true median of this run's conditions)? It
  is narrower by about √2 and does not say what a user asks of a benchmark ("what would I get
  if I ran it again?"): even for ideal independent trials, a 5-trial min..max CI (93.75 %) holds
  the median of an identical rerun only 83 % of the time, and both medians each other's only
  72 % (simulated; tests/test_stats.py checks the coverage by simulation).
- The interval's **half-width** in % of the median is max(median − lo, hi − median) / median;
  control's adaptive trials (Sampling.target_ci_pct) add trials to a cell while this exceeds the
  target, with the same rule (rust/control implements it identically).

**Pass adjustment.** Control runs trial k of every cell in one pass, in a seeded random order,
before any trial k+1 (a randomized block design: the passes are the blocks). This machine's speed
drifts by several % between passes, and the drift is shared by every worker: in an aa.yaml run
(20261125-040914-397e) the typical decode of all three languages ran 5–6 % slow in passes 2–3
and 2–6 % fast in passes 6–8. A plain median over trials lets that shared drift pick different
passes for different cells, so byte-identical cells disagreed by a median 3.7 % in the browser.
The analysis that matches the design takes the block out: for each worker, operation and pass,
the pass factor is the median over that pass's cells of (trial figure / the cell's median over
its trials), centred so that the median factor over passes is 1 (one sweep of Tukey's median
polish, in logs). A cell's **figure** is the median of its trial figures divided by their pass
factors: every cell is stated at the same, typical machine speed of the run. Only passes with
at least PASS_MIN_CELLS cells of ≥ 3 trials get a factor (others keep factor 1: a pass of
adaptive trials with few cells says too little about the machine). The **interval** stays the
rerun interval of the unadjusted trial figures (widened to hold the figure if it ever falls
outside): a rerun meets the drift again, so the interval keeps it. Same aa.yaml run: A/A groups
median 3.7 → 1.4 % (browser), 2.8 → 2.0 % (java), 1.8 → 1.0 % (rust); the
worst group 7.1 → 3.9 %.

**Noise floor.** Cells that do byte-identical work (one consumer decoding the same payload — same
payload_blob_id — in the same mode, produced by different workers, plus the deliberate A/A twins
of Sampling.aa_cells) form an A/A group. Each group's ratio is max/min of its cells' medians; the
run's noise floor is the largest such ratio (and its median is reported beside it).

**Tie rule.** Two figures differ only when their intervals do not overlap AND the ratio of their
medians exceeds the noise floor (and, in compare, the user's threshold); otherwise they are a tie,
and no winner is declared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

CONFIDENCE = 0.95
METHOD = ("median over trials (a trial's figure is the median of its rounds, divided by its pass's "
          "speed factor: how fast that worker ran the pass's other cells, as the machine's speed "
          "drifts between passes), with a distribution-free 95 % rerun interval of the unadjusted "
          "figures: the range [x(j), x(n−j+1)] that the median of an identical rerun (same trials, "
          "same conditions) falls in with ≥ 95 % probability, from order statistics (the largest j "
          "that still reaches 95 %; with fewer than 9 trials the interval is min..max and its "
          "actual coverage, e.g. 83.3 % for 5 trials, is shown)")


def median(values: Iterable[float]) -> float:
    xs = sorted(float(v) for v in values if not _nan(v))
    n = len(xs)
    if n == 0:
        return math.nan
    mid = n // 2
    return xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def coverage(n: int, j: int) -> float:
    """Probability that the median of an identical rerun (n trials) lands in [x(j), x(n−j+1)] of
    these n trials: 1 − 2·P(K ≥ ⌈n/2⌉), K the rerun's figures below x(j) (module doc). Exact in
    integers for odd n; a lower bound for even n."""
    if n <= 0 or j < 1 or 2 * j > n + 1:
        return 0.0
    need = (n + 1) // 2
    below = sum(math.comb(j - 1 + t, t) * math.comb(2 * n - j - t, n - t) for t in range(need, n + 1))
    return max(0.0, 1.0 - 2.0 * below / math.comb(2 * n, n))


def ci_ranks(n: int, level: float = CONFIDENCE) -> tuple[int, int, float]:
    """(j, k, coverage): 1-based ranks of the interval's ends (k = n − j + 1) and its coverage."""
    if n <= 0:
        return 0, 0, 0.0
    j = 1
    while coverage(n, j + 1) >= level:
        j += 1
    return j, n - j + 1, coverage(n, j)


# The fewest trials whose min..max reaches the confidence level (9 at 95 %).
MIN_TRIALS = next(n for n in range(1, 100) if ci_ranks(n)[2] >= CONFIDENCE)


@dataclass(frozen=True)
class Interval:
    """A cell's figure: median over trials, its rerun interval, and how it was obtained."""
    median: float
    lo: float
    hi: float
    n: int
    coverage: float

    @property
    def half_width_pct(self) -> float:
        # One trial has no spread to show: its min..max is the figure itself, which printed as
        # "±0.0%" would claim a precision no rerun supports.
        if self.n < 2 or not self.median > 0:
            return math.nan
        return max(self.median - self.lo, self.hi - self.median) / self.median * 100

    def scaled(self, factor: float) -> "Interval":
        return Interval(self.median * factor, self.lo * factor, self.hi * factor, self.n, self.coverage)


EMPTY = Interval(math.nan, math.nan, math.nan, 0, 0.0)


def median_ci(values: Sequence[float], level: float = CONFIDENCE) -> Interval:
    """The median of `values` and its distribution-free 95 % rerun interval (see module doc)."""
    xs = sorted(float(v) for v in values if not _nan(v))
    n = len(xs)
    if n == 0:
        return EMPTY
    j, k, cov = ci_ranks(n, level)
    return Interval(median(xs), xs[j - 1], xs[k - 1], n, cov)


# A pass gets its own factor only when it holds this many cells with ≥ PASS_MIN_TRIALS trials.
PASS_MIN_CELLS = 6
PASS_MIN_TRIALS = 3


def pass_factors(trials: Iterable[tuple[object, object, float]]) -> dict:
    """(block, cell, figure) per timed trial, block = (worker, operation, pass) → {block: factor}
    (module doc, "Pass adjustment"); blocks without enough cells are absent (factor 1)."""
    by_cell: dict = {}
    rows = [(b, c, float(f)) for b, c, f in trials if not _nan(f) and f > 0]
    for _, c, f in rows:
        by_cell.setdefault(c, []).append(f)
    centre = {c: median(fs) for c, fs in by_cell.items() if len(fs) >= PASS_MIN_TRIALS}
    devs: dict = {}
    for b, c, f in rows:
        if c in centre:
            devs.setdefault(b, {}).setdefault(c, []).append(math.log(f / centre[c]))
    logs = {b: median(median(v) for v in cells.values())
            for b, cells in devs.items() if len(cells) >= PASS_MIN_CELLS}
    # Centre per (worker, operation): the figure stays at the run's typical speed.
    series: dict = {}
    for b, v in logs.items():
        series.setdefault(tuple(b)[:-1], []).append(v)
    mid = {s: median(vs) for s, vs in series.items()}
    return {b: math.exp(v - mid[tuple(b)[:-1]]) for b, v in logs.items()}


def cell_interval(figures: Sequence[float], adjusted: Sequence[float],
                  level: float = CONFIDENCE) -> Interval:
    """A cell's figure (median of its pass-adjusted trial figures) with the rerun interval of its
    unadjusted ones, widened to hold the figure (module doc, "Pass adjustment")."""
    raw = median_ci(figures, level)
    if raw.n == 0:
        return raw
    mid = median(adjusted)
    if _nan(mid):
        return raw
    return Interval(mid, min(raw.lo, mid), max(raw.hi, mid), raw.n, raw.coverage)


def trial_figure(rounds: Iterable[float]) -> float:
    """One trial's figure: the median of its rounds' ns/op."""
    return median(rounds)


def overlap(a: Interval, b: Interval) -> bool:
    return not (a.hi < b.lo or b.hi < a.lo)


def ratio(a: Interval, b: Interval) -> float:
    """The larger median over the smaller (≥ 1)."""
    if not (a.median > 0 and b.median > 0):
        return math.nan
    return max(a.median, b.median) / min(a.median, b.median)


def differ(a: Interval, b: Interval, noise_floor: float = 1.0, threshold: float = 1.0) -> bool:
    """True when a and b really differ: the intervals do not overlap AND the ratio of the medians
    exceeds both the noise floor and the threshold (ratios ≥ 1). Anything else is a tie."""
    if a.n == 0 or b.n == 0:
        return False
    r = ratio(a, b)
    if math.isnan(r):
        return False
    floor = max(_or1(noise_floor), _or1(threshold))
    return not overlap(a, b) and r > floor


def _or1(v) -> float:
    return 1.0 if _nan(v) or v < 1 else float(v)


def best_and_ties(figures: dict, noise_floor: float = 1.0) -> tuple[object, set]:
    """The key with the smallest median and every key tied with it (the best included). A winner
    exists only when the tie set holds the best alone."""
    known = {k: v for k, v in figures.items() if v.n > 0 and not _nan(v.median)}
    if not known:
        return None, set()
    best = min(known, key=lambda k: known[k].median)
    ties = {k for k, v in known.items() if k == best or not differ(known[best], v, noise_floor)}
    return best, ties


@dataclass(frozen=True)
class NoiseFloor:
    """Largest and median max/min ratio over the run's A/A groups (1.0 each when there are none)."""
    worst: float
    median: float
    groups: int

    @property
    def worst_pct(self) -> float:
        return (self.worst - 1) * 100

    @property
    def median_pct(self) -> float:
        return (self.median - 1) * 100

    def sentence(self, transfer: bool = False) -> str:
        if transfer:
            if self.groups == 0:
                return ("transfer noise floor: not measured (no consumer downloaded one blob for two "
                        "cells); transfer legs are judged by the decode noise floor")
            return (f"transfer noise floor: identical downloads differed by ≤ {self.worst_pct:.1f} % "
                    f"(median {self.median_pct:.1f} %, {self.groups} A/A group"
                    f"{'s' if self.groups != 1 else ''}); upload and download are judged by it")
        if self.groups == 0:
            return ("noise floor: not measured (no A/A group: no two cells did byte-identical work); "
                    "ties are judged by the intervals alone")
        return (f"noise floor: identical work differed by ≤ {self.worst_pct:.1f} % "
                f"(median {self.median_pct:.1f} %, {self.groups} A/A group"
                f"{'s' if self.groups != 1 else ''})")


NO_FLOOR = NoiseFloor(1.0, 1.0, 0)


def noise_floor(group_ratios: Iterable[float]) -> NoiseFloor:
    rs = [float(r) for r in group_ratios if not _nan(r)]
    if not rs:
        return NO_FLOOR
    return NoiseFloor(max(rs), median(rs), len(rs))
