"""The interval of the median, the noise floor and the tie rule (codecbench/stats.py)."""

from __future__ import annotations

import math
import random

import pytest

from codecbench import stats
from codecbench.stats import Interval


def test_coverage_is_the_rerun_median_formula():
    # min..max of 5: the rerun's median (its 3rd figure) is below x(1) when ≥ 3 of its 5 figures
    # are: sum over t = 3..5 of C(t, t)·C(9 − t, 5 − t) / C(10, 5) = (6 + 4 + 1) / 252 ... per side.
    below = sum(math.comb(9 - t, 5 - t) for t in (3, 4, 5)) / math.comb(10, 5)
    assert stats.coverage(5, 1) == pytest.approx(1 - 2 * below)
    assert stats.coverage(5, 1) == pytest.approx(5 / 6)
    assert stats.coverage(1, 1) == 0.0
    assert stats.coverage(4, 3) == 0.0, "ranks past the middle hold nothing"


@pytest.mark.parametrize("n, ranks, cov", [
    (1, (1, 1), 0.0), (2, (1, 2), 0.0), (3, (1, 3), 0.6), (5, (1, 5), 0.8333), (7, (1, 7), 0.9301),
    (8, (1, 8), 0.9231), (9, (1, 9), 0.9706), (12, (1, 12), 0.9863), (13, (2, 12), 0.9698),
    (17, (3, 15), 0.9745), (20, (4, 17), 0.9593)])
def test_ranks_are_the_widest_j_reaching_95_percent(n, ranks, cov):
    j, k, c = stats.ci_ranks(n)
    assert (j, k) == ranks
    assert c == pytest.approx(cov, abs=1e-4)
    # The next narrower interval would miss 95 % (when there is one).
    assert n < 9 or stats.coverage(n, j + 1) < 0.95
    assert stats.MIN_TRIALS == 9


def test_median_ci_picks_the_order_statistics():
    ci = stats.median_ci([5.0, 1.0, 4.0, 2.0, 3.0])
    assert (ci.median, ci.lo, ci.hi, ci.n) == (3.0, 1.0, 5.0, 5)
    assert ci.coverage == pytest.approx(5 / 6)
    ci = stats.median_ci(list(range(1, 14)))  # 13 trials: ranks 2 and 12
    assert (ci.median, ci.lo, ci.hi) == (7, 2, 12)
    assert stats.median_ci([100.0, 104.0]).median == 102.0
    assert stats.median_ci([]).n == 0 and math.isnan(stats.median_ci([]).median)
    assert stats.median_ci([float("nan"), 7.0]).n == 1


def test_half_width_is_the_larger_side_in_percent():
    assert Interval(100, 97, 106, 5, 0.94).half_width_pct == pytest.approx(6.0)
    assert Interval(100, 90, 101, 5, 0.94).half_width_pct == pytest.approx(10.0)


def test_one_trial_has_no_interval_to_print():
    one = stats.median_ci([2485.0])
    assert (one.median, one.n) == (2485.0, 1)
    assert math.isnan(one.half_width_pct), "one trial's min..max is the figure, not a ±0 % interval"
    assert stats.median_ci([100.0, 104.0]).half_width_pct == pytest.approx(100 * 2 / 102)


def test_a_reruns_median_lands_inside_about_as_often_as_stated():
    # Two independent runs of identical work: the second run's median falls in the first run's
    # interval as often as the coverage says (exact for odd n, at least that for even n). The
    # shape does not matter: a skewed distribution (lognormal) as measured timings are.
    rng = random.Random(7)
    for n in (5, 8, 9, 13):
        runs = 4000
        hits = 0
        for _ in range(runs):
            ci = stats.median_ci([rng.lognormvariate(0, 0.3) for _ in range(n)])
            rerun = stats.median([rng.lognormvariate(0, 0.3) for _ in range(n)])
            hits += ci.lo <= rerun <= ci.hi
        stated = stats.ci_ranks(n)[2]
        if n % 2:
            assert abs(hits / runs - stated) < 0.02, (n, hits / runs, stated)
        else:
            assert hits / runs > stated - 0.01, (n, hits / runs, stated)


def test_a_confidence_interval_of_the_median_would_not_hold_a_rerun():
    # Why the interval is a rerun interval: the 5-trial min..max read as a CI of the median
    # (93.75 %) holds an identical rerun's median only ~83 % of the time.
    rng = random.Random(11)
    runs = 4000
    hits = sum(min(a) <= stats.median(b) <= max(a)
               for a, b in (([rng.gauss(0, 1) for _ in range(5)], [rng.gauss(0, 1) for _ in range(5)])
                            for _ in range(runs)))
    assert 0.80 < hits / runs < 0.86


def test_trial_figure_is_the_median_of_rounds():
    assert stats.trial_figure([10, 30, 20, 1000]) == 25


def test_tie_rule_needs_both_no_overlap_and_a_ratio_beyond_the_floor():
    a = Interval(100, 98, 102, 5, 0.94)
    # Disjoint and 20 % apart: a difference.
    assert stats.differ(a, Interval(120, 118, 123, 5, 0.94))
    # 20 % apart but overlapping intervals: a tie.
    assert not stats.differ(a, Interval(120, 101, 140, 5, 0.94))
    # Disjoint but within a noise floor of 25 %: a tie.
    assert not stats.differ(a, Interval(120, 118, 123, 5, 0.94), noise_floor=1.25)
    # Disjoint, beyond the floor, but under a compare threshold: a tie.
    assert not stats.differ(a, Interval(120, 118, 123, 5, 0.94), noise_floor=1.05, threshold=1.3)
    # Symmetric, and faster is a difference too.
    assert stats.differ(Interval(80, 79, 81, 5, 0.94), a) and stats.differ(a, Interval(80, 79, 81, 5, 0.94))
    assert not stats.differ(a, stats.EMPTY)


def test_best_and_ties_never_names_a_winner_inside_a_tie():
    figs = {"json": Interval(100, 98, 103, 5, 0.94), "bson": Interval(104, 101, 108, 5, 0.94),
            "protobuf": Interval(150, 148, 155, 5, 0.94)}
    best, ties = stats.best_and_ties(figs)
    assert best == "json" and ties == {"json", "bson"}
    best, ties = stats.best_and_ties({"json": figs["json"], "protobuf": figs["protobuf"]})
    assert ties == {"json"}
    # A noise floor wider than the gap turns the difference into a tie.
    _, ties = stats.best_and_ties({"json": figs["json"], "protobuf": figs["protobuf"]}, noise_floor=1.6)
    assert ties == {"json", "protobuf"}


def test_noise_floor_is_the_worst_aa_ratio_with_its_median():
    nf = stats.noise_floor([1.02, 1.10, 1.04])
    assert nf.worst == 1.10 and nf.median == 1.04 and nf.groups == 3
    assert nf.sentence() == "noise floor: identical work differed by ≤ 10.0 % (median 4.0 %, 3 A/A groups)"
    assert stats.noise_floor([]).groups == 0
    assert "not measured" in stats.noise_floor([]).sentence()


# ---- pass adjustment (module doc, "Pass adjustment") ----------------------------------------------

def _design(cells: int, passes: int, drift, noise, worker="w", op="decode"):
    """(block, cell, figure) of a block design: every cell's true figure 1000, trial k × drift[k]
    (the machine that pass) × noise(cell, k)."""
    return [((worker, op, k), f"c{c}", 1000.0 * drift[k] * noise(c, k))
            for c in range(cells) for k in range(passes)]


def test_pass_factors_are_the_shared_drift_centred_on_the_typical_pass():
    drift = [1.20, 1.0, 0.85, 1.05, 0.95]
    factors = stats.pass_factors(_design(8, 5, drift, lambda c, k: 1.0))
    # Centred so the median pass has factor 1: the figures stay at the run's typical speed.
    assert [factors[("w", "decode", k)] for k in range(5)] == pytest.approx(drift)


def test_identical_cells_agree_once_the_pass_is_taken_out():
    # Two byte-identical cells whose small trial noise falls in different passes: the plain median
    # lets the 20 % drift pick different passes for them; the adjusted median does not.
    drift = [1.20, 1.0, 0.85]
    bumps = {(0, 1): 1.02, (1, 2): 1.02}
    trials = _design(8, 3, drift, lambda c, k: bumps.get((c, k), 1.0))
    factors = stats.pass_factors(trials)
    figs = {c: [(f, f / factors[b]) for b, cc, f in trials if cc == c] for c in ("c0", "c1")}
    plain = {c: stats.median(f for f, _ in v) for c, v in figs.items()}
    adjusted = {c: stats.cell_interval([f for f, _ in v], [a for _, a in v]) for c, v in figs.items()}
    assert plain["c0"] / plain["c1"] == pytest.approx(1.02)
    assert adjusted["c0"].median == pytest.approx(adjusted["c1"].median) == pytest.approx(1000.0)
    # The interval is the unadjusted trials' (a rerun meets the drift again).
    assert (adjusted["c0"].lo, adjusted["c0"].hi) == (pytest.approx(850.0), pytest.approx(1200.0))


def test_under_random_drift_adjusted_aa_ratios_are_smaller():
    # 200 simulated runs of 9 passes × 30 cells: ±6 % shared drift per pass, 3 % own noise per
    # trial; the A/A ratio of cells 0 and 1 (identical work) with and without the adjustment.
    rnd = random.Random(7)
    plain, adj = [], []
    for _ in range(200):
        drift = [math.exp(rnd.gauss(0, 0.06)) for _ in range(9)]
        noise = {(c, k): math.exp(rnd.gauss(0, 0.03)) for c in range(30) for k in range(9)}
        trials = _design(30, 9, drift, lambda c, k: noise[(c, k)])
        factors = stats.pass_factors(trials)
        med = {c: (stats.median(f for b, cc, f in trials if cc == c),
                   stats.median(f / factors[b] for b, cc, f in trials if cc == c)) for c in ("c0", "c1")}
        plain.append(max(med["c0"][0], med["c1"][0]) / min(med["c0"][0], med["c1"][0]))
        adj.append(max(med["c0"][1], med["c1"][1]) / min(med["c0"][1], med["c1"][1]))
    assert stats.median(adj) < stats.median(plain) - 0.005, (stats.median(adj), stats.median(plain))


def test_thin_passes_and_short_cells_get_no_factor():
    # 5 cells in a pass (fewer than PASS_MIN_CELLS): no factor. Cells of 2 trials say nothing.
    assert stats.PASS_MIN_CELLS == 6 and stats.PASS_MIN_TRIALS == 3
    assert stats.pass_factors(_design(5, 4, [1.2, 1.0, 0.9, 1.1], lambda c, k: 1.0)) == {}
    assert stats.pass_factors(_design(10, 2, [1.2, 0.9], lambda c, k: 1.0)) == {}
    # Each (worker, operation) is centred on its own passes, and a pass of an adaptive trial with
    # two cells (k = 5) keeps factor 1.
    trials = (_design(6, 5, [1.1, 1.0, 0.9, 1.0, 1.0], lambda c, k: 1.0, worker="a")
              + _design(6, 5, [2.0, 2.0, 2.0, 1.0, 2.0], lambda c, k: 1.0, worker="b")
              + [(("a", "decode", 5), "c0", 1300.0), (("a", "decode", 5), "c1", 1300.0)])
    factors = stats.pass_factors(trials)
    assert ("a", "decode", 5) not in factors
    assert factors[("a", "decode", 0)] == pytest.approx(1.1)
    assert factors[("b", "decode", 3)] == pytest.approx(0.5) and factors[("b", "decode", 0)] == pytest.approx(1.0)


def test_cell_interval_holds_its_figure():
    ci = stats.cell_interval([100.0, 110.0, 120.0], [130.0, 130.0, 131.0])
    assert (ci.median, ci.lo, ci.hi, ci.n) == (130.0, 100.0, 130.0, 3)
    assert stats.cell_interval([], []) == stats.EMPTY
