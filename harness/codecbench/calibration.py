"""This host's run-to-run term: what one run's intervals cannot see, measured from repeated runs.

A run's rerun interval (stats.py) comes from its own trials. On a shared machine the speed of
every cell one language measures in one operation (a *column*, compare.column_of) also wanders
with the machine over tens of minutes, and each cell has a small level of its own in each run;
both hold for the whole run, so no interval computed inside it can see them (docs/DESIGN.md,
"What one run's interval cannot see"). They can be measured from outside: run one scenario
several times on this host, unchanged, and split the spread of its cells' medians across runs.

For every group of runs of one scenario (same name, same scenario text, same measuring code when
recorded: results.source_version, same host; k ≥ 2 runs) and every column with at least compare.MIN_COLUMN_CELLS cells
verified in all k runs, with y[r, c] the log median of cell c in run r:

    centred   d[r, c] = y[r, c] − mean over runs of y[·, c]
    run level a[r]    = median over cells of d[r, ·], centred over runs   (the column moved by a[r])
    residual  e[r, c] = d[r, c] − a[r]
    column variance   σ² = Σ a[r]² / (k − 1)
    cell variance     τ² = max(0, Σ e² / ((k − 1)(n − 1)) − w)
    a run's own       ω² = w

where w is the mean variance one run's median has from its own trials alone, read back from its
rerun interval: a half-width h (in log) with coverage p is about z_p · √2 · se, z_p the normal
quantile. Groups are pooled per column, weighted by their k − 1 degrees of freedom.

A cell's **host interval** then says where a rerun's median lands on this host, run-to-run term
included. The rerun's median M' and this run's M differ by two column levels, two cell levels and
two medians' own noise: var(M' − M) = 2σ² + 2τ² + w_this + w_rerun. w_this is this run's, read
from its interval (h = z_p √(2 w_this)); w_rerun is not this run's but that of whatever run comes
next, and runs on a shared host differ in how noisy they are (two aa.yaml runs 3 hours apart had
rerun intervals of −4 %/+8 % and ±1.5 % for the same Rust cells), so it is the host's typical ω².
Each side's log half-width h becomes

    h' = max(h, √(h²/2 + z_p² (ω² + 2σ² + 2τ²)))

never narrower than the run's own interval (a rerun as noisy as this run is possible too). The
earlier form √(h² + 2 z_p² (σ² + τ²)) assumed the rerun as noisy as this run: a quiet run's narrow
interval then missed the median of a noisier rerun. Out of sample (terms from one aa.yaml pair,
applied to another): 79 % of 180 medians inside each other's host intervals in the earlier form
(Rust 68 %), 95 % in this one (Rust 97 %); the other way round 100 % in both (README, "This host's
run-to-run term"). It is a normal approximation laid over a distribution-free
interval, and only as good as the runs it was measured from (their number is printed with it):
the machine's wander has no fixed period, and a calibration from runs an hour apart says nothing
about a quieter or busier day.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from statistics import NormalDist
from typing import Iterable

import numpy as np

from . import stats

FILE = "calibration.json"
VERSION = 2  # 2: a run's own noise (run_sd) and the prediction form of widen


def host_key(run_doc: dict) -> str:
    """What makes two runs' hosts the same machine for this purpose: the harness's record of its
    hostname, platform and CPU count (local workers run beside it)."""
    h = run_doc.get("harness", {}) or {}
    return " | ".join([str(h.get("hostname", "")), str(h.get("platform", "")), f"{h.get('cpuCount', '')} cpus"])


def group_key(run_doc: dict) -> tuple[str, str, str, str]:
    """Runs that repeat one experiment: scenario name, its text, the measuring code's tree
    (results.source_version; the commit for runs that recorded only that), the host."""
    run = run_doc.get("run", {}) or {}
    name = (run.get("scenario") or {}).get("name") or run.get("name", "")
    text = json.dumps(run_doc.get("scenarioAsWritten") or run.get("scenario") or {}, sort_keys=True)
    src = (run_doc.get("harness") or {}).get("source") or {}
    source = src.get("measuring") or src.get("commit", "")
    return str(name), hashlib.sha256(str(text).encode()).hexdigest()[:12], str(source), host_key(run_doc)


def z_of(coverage: float) -> float:
    """The normal quantile whose two-sided coverage is `coverage` (1.96 for 95 %)."""
    if not 0 < coverage < 1:
        return math.nan
    return NormalDist().inv_cdf((1 + coverage) / 2)


def run_variance(iv: stats.Interval) -> float:
    """Variance of log(median) from one run's own trials, read back from its rerun interval."""
    z = z_of(iv.coverage)
    if iv.n == 0 or not (iv.lo > 0 and iv.hi > 0 and iv.median > 0) or math.isnan(z):
        return math.nan
    h = (math.log(iv.hi / iv.median) + math.log(iv.median / iv.lo)) / 2
    return (h / z) ** 2 / 2


@dataclass(frozen=True)
class Term:
    """One column's run-to-run term on this host (standard deviations of log medians ≈ fractions)."""
    language: str
    operation: str
    column_sd: float  # σ: the whole column's level from run to run
    cell_sd: float    # τ: each cell's own level from run to run, beyond its trials and its column
    df: int           # degrees of freedom behind the estimate: Σ (k − 1) over the groups
    groups: int
    cells: int        # cells behind the estimate, summed over groups
    run_sd: float = 0.0  # ω: a run's median from its own trials, typical of this host's runs

    @property
    def variance(self) -> float:
        return self.column_sd ** 2 + self.cell_sd ** 2

    def sentence(self) -> str:
        return (f"{self.language} {self.operation}: column ±{self.column_sd:.1%}, cell ±{self.cell_sd:.1%}, "
                f"a run's own ±{self.run_sd:.1%} "
                f"(sd; {self.df} df from {self.groups} set{'s' if self.groups != 1 else ''} of repeated runs)")


@dataclass
class Calibration:
    host: str
    created: str
    runs: list[str]
    terms: list[Term] = field(default_factory=list)
    version: int = VERSION

    def term(self, language: str, operation: str) -> Term | None:
        return next((t for t in self.terms if t.language == language and t.operation == operation), None)

    def to_json(self) -> dict:
        return {"version": self.version, "host": self.host, "created": self.created, "runs": self.runs,
                "terms": [asdict(t) for t in self.terms]}

    @classmethod
    def from_json(cls, doc: dict) -> "Calibration":
        if doc.get("version") != VERSION:
            raise ValueError(f"calibration version {doc.get('version')!r}, this harness reads {VERSION}")
        return cls(doc["host"], doc["created"], list(doc["runs"]), [Term(**t) for t in doc["terms"]])

    def sentence(self) -> str:
        return (f"this host's run-to-run term (codecbench calibrate, {self.created[:16].replace('T', ' ')} UTC, "
                f"{len(self.runs)} runs): " + "; ".join(t.sentence() for t in self.terms))


def column_estimates(runs: list[dict]) -> dict[tuple[str, str], tuple[float, float, int, int, float]]:
    """One group of k ≥ 2 repeated runs (each: compare.entries of the run) → per column
    (σ², τ², k − 1, cells, ω²). Columns with fewer than compare.MIN_COLUMN_CELLS cells verified in
    every run are left out: their run level would be one cell's."""
    from .compare import MIN_COLUMN_CELLS, column_of

    k = len(runs)
    if k < 2:
        return {}
    keys = [key for key in runs[0] if all(key in e and e[key].ok and e[key].median > 0 for e in runs)]
    by_col: dict[tuple, list] = {}
    for key in keys:
        by_col.setdefault(column_of(key), []).append(key)
    out = {}
    for col, ks in by_col.items():
        if len(ks) < MIN_COLUMN_CELLS:
            continue
        w = [run_variance(e[key].interval()) for e in runs for key in ks]
        if any(math.isnan(v) for v in w):
            continue
        y = np.log(np.array([[e[key].median for key in ks] for e in runs]))
        d = y - y.mean(axis=0)
        a = np.median(d, axis=1)
        a = a - a.mean()
        e = d - a[:, None]
        col_var = float((a ** 2).sum() / (k - 1))
        own = float(np.mean(w))
        cell_var = max(0.0, float((e ** 2).sum() / ((k - 1) * (len(ks) - 1))) - own)
        out[(str(col[0]), str(col[1]))] = (col_var, cell_var, k - 1, len(ks), own)
    return out


def calibrate(groups: Iterable[list[dict]], host: str, run_ids: list[str]) -> Calibration:
    """Pools column_estimates over groups of repeated runs, weighted by degrees of freedom."""
    acc: dict[tuple, list] = {}
    for group in groups:
        for col, (cv, tv, df, n, wv) in column_estimates(group).items():
            a = acc.setdefault(col, [0.0, 0.0, 0, 0, 0, 0.0])
            a[0] += cv * df
            a[1] += tv * df
            a[2] += df
            a[3] += 1
            a[4] += n
            a[5] += wv * df
    terms = [Term(lang, op, math.sqrt(a[0] / a[2]), math.sqrt(a[1] / a[2]), a[2], a[3], a[4], math.sqrt(a[5] / a[2]))
             for (lang, op), a in sorted(acc.items())]
    return Calibration(host, datetime.now(timezone.utc).isoformat(timespec="seconds"), run_ids, terms)


def widen(iv: stats.Interval, term: Term | None) -> stats.Interval:
    """The host interval: each side's log half-width h becomes max(h, √(h²/2 + z² (ω² + 2σ² + 2τ²))),
    z the normal quantile of the interval's coverage (module doc). Without a term (or a usable
    interval) it is unchanged."""
    z = z_of(iv.coverage)
    if term is None or iv.n == 0 or math.isnan(z) or not (iv.lo > 0 and iv.hi > 0 and iv.median > 0):
        return iv
    extra = z * z * (term.run_sd ** 2 + 2 * term.variance)

    def side(h: float) -> float:
        return max(h, math.sqrt(h * h / 2 + extra))

    # min/max: a side the term does not widen keeps its bound exactly (not one rounded through logs).
    lo = min(iv.lo, iv.median * math.exp(-side(math.log(iv.median / iv.lo))))
    hi = max(iv.hi, iv.median * math.exp(side(math.log(iv.hi / iv.median))))
    return stats.Interval(iv.median, lo, hi, iv.n, iv.coverage)


def path_in(results: Path) -> Path:
    return Path(results) / FILE


def load(results: Path, host: str | None = None) -> Calibration | None:
    """The results folder's calibration, if there is one (and it is for `host`, when given). A
    file that cannot be read is an error saying which, not a silent absence."""
    p = path_in(results)
    if not p.exists():
        return None
    try:
        cal = Calibration.from_json(json.loads(p.read_text()))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{p}: not a codecbench calibration ({exc}); delete it or run `codecbench calibrate`") from exc
    if host is not None and cal.host != host:
        return None
    return cal


def save(cal: Calibration, results: Path) -> Path:
    p = path_in(results)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(cal.to_json(), indent=2) + "\n")
    return p
