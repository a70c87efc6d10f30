"""The interval of the median, the noise floor and the tie rule (codecbench/stats.py)."""

from __future__ import annotations

import math
import random

import pytest

from codecbench import stats
from codecbench.stats import Interval


def test_coverage_is_the_binomial_order_statistic_formula():
    # min..max of 5 trials: 1 - 2/32.
    assert stats.coverage(5, 1) == pytest.approx(0.9375)
    assert stats.coverage(9, 2) == pytest.approx(1 - 2 * (1 + 9) / 512)
    assert stats.coverage(1, 1) == 0.0
    assert stats.coverage(4, 3) == 0.0, "ranks past the middle hold nothing"


@pytest.mark.parametrize("n, ranks, cov", [
    (1, (1, 1), 0.0), (2, (1, 2), 0.5), (3, (1, 3), 0.75), (4, (1, 4), 0.875), (5, (1, 5), 0.9375),
    (6, (1, 6), 0.96875), (8, (1, 8), 0.9921875), (9, (2, 8), 0.9609375), (12, (3, 10), 0.9614),
    (20, (6, 15), 0.9586)])
def test_ranks_are_the_widest_j_reaching_95_percent(n, ranks, cov):
    j, k, c = stats.ci_ranks(n)
    assert (j, k) == ranks
    assert c == pytest.approx(cov, abs=1e-4)
    # The next narrower interval would miss 95 % (when there is one).
    assert n < 6 or stats.coverage(n, j + 1) < 0.95


def test_median_ci_picks_the_order_statistics():
    ci = stats.median_ci([5.0, 1.0, 4.0, 2.0, 3.0])
    assert (ci.median, ci.lo, ci.hi, ci.n) == (3.0, 1.0, 5.0, 5)
    assert ci.coverage == pytest.approx(0.9375)
    ci = stats.median_ci(list(range(1, 10)))  # 9 trials: ranks 2 and 8
    assert (ci.median, ci.lo, ci.hi) == (5, 2, 8)
    assert stats.median_ci([100.0, 104.0]).median == 102.0
    assert stats.median_ci([]).n == 0 and math.isnan(stats.median_ci([]).median)
    assert stats.median_ci([float("nan"), 7.0]).n == 1


def test_half_width_is_the_larger_side_in_percent():
    assert Interval(100, 97, 106, 5, 0.94).half_width_pct == pytest.approx(6.0)
    assert Interval(100, 90, 101, 5, 0.94).half_width_pct == pytest.approx(10.0)


def test_interval_covers_the_true_median_about_as_often_as_it_says():
    rng = random.Random(7)
    for n in (5, 9, 15):
        hits = 0
        runs = 4000
        for _ in range(runs):
            ci = stats.median_ci([rng.lognormvariate(0, 0.1) for _ in range(n)])
            hits += ci.lo <= 1.0 <= ci.hi  # the true median of lognormal(0, σ) is 1
        assert abs(hits / runs - stats.ci_ranks(n)[2]) < 0.02, n


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
