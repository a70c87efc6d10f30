"""The statistics every figure of codecbench rests on (issue 9; DESIGN.md rule 3).

A **cell** is one operation of one dataset × count × codec × producer (encode, upload) or
× consumer × decode mode (decode, download). It is measured in independent **trials** (each a
fresh process); each trial times several rounds.

- A trial's figure is the **median of its rounds** (ns per operation). Rounds are a diagnostic.
- A cell's figure is the **median over its trials' figures**.
- Its uncertainty is the **distribution-free 95 % confidence interval of the median from binomial
  order statistics** (no assumption about the shape of the distribution): sort the n trial
  figures x(1) ≤ … ≤ x(n); the interval [x(j), x(n−j+1)] (1-based ranks) holds the true median
  with probability

      coverage(j) = 1 − 2 · P(Binomial(n, ½) ≤ j − 1)

  We take the largest j ≥ 1 with coverage(j) ≥ 95 %. When even j = 1 (min..max) gives less
  (n ≤ 5), the interval is min..max and the actual coverage is reported: 93.8 % for n = 5,
  87.5 % for n = 4, 75 % for n = 3, 50 % for n = 2, 0 % for n = 1.
  Examples: n = 6, 7, 8 → j = 1 (min..max, 96.9 %, 98.4 %, 99.2 %); n = 9 → j = 2 (96.1 %);
  n = 12 → j = 3 (96.1 %); n = 20 → j = 6 (95.9 %).
- The interval's **half-width** in % of the median is max(median − lo, hi − median) / median;
  control's adaptive trials (Sampling.target_ci_pct) add trials to a cell while this exceeds the
  target, with the same rule (rust/control implements it identically).

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
METHOD = ("median over trials (each trial = the median of its rounds), with a distribution-free "
          "95 % confidence interval of the median from binomial order statistics (ranks j and "
          "n−j+1, the largest j whose coverage is ≥ 95 %; with 5 or fewer trials the interval is "
          "min..max and its actual coverage, e.g. 93.8 % for 5 trials, is shown)")


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
    """Probability that [x(j), x(n−j+1)] holds the true median: 1 − 2·P(Bin(n, ½) ≤ j − 1).
    Written out: the binomial CDF at p = ½ is a sum of binomial coefficients, exact in integers."""
    if n <= 0 or j < 1 or 2 * j > n + 1:
        return 0.0
    tail = sum(math.comb(n, i) for i in range(j))
    return 1.0 - 2.0 * tail / 2 ** n


def ci_ranks(n: int, level: float = CONFIDENCE) -> tuple[int, int, float]:
    """(j, k, coverage): 1-based ranks of the interval's ends (k = n − j + 1) and its coverage."""
    if n <= 0:
        return 0, 0, 0.0
    j = 1
    while coverage(n, j + 1) >= level:
        j += 1
    return j, n - j + 1, coverage(n, j)


@dataclass(frozen=True)
class Interval:
    """A cell's figure: median over trials, its confidence interval, and how it was obtained."""
    median: float
    lo: float
    hi: float
    n: int
    coverage: float

    @property
    def half_width_pct(self) -> float:
        if self.n == 0 or not self.median > 0:
            return math.nan
        return max(self.median - self.lo, self.hi - self.median) / self.median * 100

    def scaled(self, factor: float) -> "Interval":
        return Interval(self.median * factor, self.lo * factor, self.hi * factor, self.n, self.coverage)


EMPTY = Interval(math.nan, math.nan, math.nan, 0, 0.0)


def median_ci(values: Sequence[float], level: float = CONFIDENCE) -> Interval:
    """The median of `values` and its distribution-free confidence interval (see module doc)."""
    xs = sorted(float(v) for v in values if not _nan(v))
    n = len(xs)
    if n == 0:
        return EMPTY
    j, k, cov = ci_ranks(n, level)
    return Interval(median(xs), xs[j - 1], xs[k - 1], n, cov)


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

    def sentence(self) -> str:
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
