"""This host's run-to-run term (calibration.py): estimated from repeated runs, it widens intervals
so that a rerun's medians land inside them as often as they claim; `codecbench calibrate` writes
it, compare and report read it."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from codecbench import calibration, results, stats
from codecbench.compare import Side

from conftest import DATA, run_cli

NO_CONTROL = {"CODECBENCH_CONTROL": "127.0.0.1:9"}


def side(figures) -> Side:
    ci = stats.median_ci(figures)
    return Side(median=ci.median, lo=ci.lo, hi=ci.hi, trials=ci.n, coverage=ci.coverage, ok=True,
                figures=list(figures))


def key(cell: int, op: str = "decode", lang: str = "rust") -> tuple:
    # compare.KEY: dataset, codec, decode_mode, operation, record_count, producer, consumer language
    return (f"d{cell}", "json", "typed" if op == "decode" else "", op, 1000, lang,
            lang if op == "decode" else "")


def simulate_run(rng, cells: int, trials: int, column_sd: float, cell_sd: float, trial_sd: float,
                 base=None) -> dict:
    """One run's entries: every cell's trials share the run's column level and the cell's own level
    in this run, then vary by trial_sd (log-normal)."""
    base = base if base is not None else np.linspace(1000, 5000, cells)
    level = rng.normal(0, column_sd)
    out = {}
    for c in range(cells):
        own = rng.normal(0, cell_sd)
        out[key(c)] = side(base[c] * np.exp(level + own + rng.normal(0, trial_sd, trials)))
    return out


def test_column_and_cell_terms_are_recovered_from_repeated_runs():
    rng = np.random.default_rng(7)
    groups = [[simulate_run(rng, 12, 13, 0.03, 0.01, 0.01) for _ in range(4)] for _ in range(10)]
    cal = calibration.calibrate(groups, "host", ["r"])
    (t,) = cal.terms
    assert (t.language, t.operation, t.df, t.groups, t.cells) == ("rust", "decode", 30, 10, 120)
    assert 0.02 < t.column_sd < 0.04, t
    assert 0.005 < t.cell_sd < 0.016, t
    # Without a run-level term the estimates are about nothing.
    quiet = calibration.calibrate([[simulate_run(rng, 12, 13, 0, 0, 0.01) for _ in range(4)]
                                   for _ in range(10)], "host", ["r"])
    assert quiet.terms[0].column_sd < 0.005 and quiet.terms[0].cell_sd < 0.004, quiet.terms


def test_a_column_of_too_few_cells_or_a_single_run_gives_no_term():
    rng = np.random.default_rng(1)
    assert calibration.column_estimates([simulate_run(rng, 12, 9, 0.03, 0, 0.01)]) == {}
    assert calibration.column_estimates([simulate_run(rng, 5, 9, 0.03, 0, 0.01) for _ in range(3)]) == {}
    # A cell that failed in one run is left out, not counted as a level.
    runs = [simulate_run(rng, 8, 9, 0.03, 0, 0.01) for _ in range(3)]
    runs[1][key(0)].ok = False
    (est,) = calibration.column_estimates(runs).values()
    assert est[3] == 7


def test_host_intervals_hold_a_reruns_median_where_run_intervals_do_not():
    """The A/A property the term exists for: with a machine level that moves from run to run,
    back-to-back runs' medians fall inside each other's run intervals far less often than 95 %;
    inside host intervals (term measured from other runs) about as often as identical conditions
    would give."""
    rng = np.random.default_rng(11)
    cells, trials = 16, 13
    base = rng.uniform(500, 5000, cells)
    run = lambda: simulate_run(rng, cells, trials, 0.03, 0.01, 0.015, base)  # noqa: E731
    cal = calibration.calibrate([[run(), run()] for _ in range(12)], "host", ["r"])
    term = cal.term("rust", "decode")
    raw = host = total = 0
    for _ in range(40):
        a, b = run(), run()
        for k in a:
            total += 1
            raw += a[k].lo <= b[k].median <= a[k].hi and b[k].lo <= a[k].median <= b[k].hi
            ha, hb = calibration.widen(a[k].interval(), term), calibration.widen(b[k].interval(), term)
            host += ha.lo <= b[k].median <= ha.hi and hb.lo <= a[k].median <= hb.hi
    assert raw / total < 0.6, raw / total
    assert host / total >= 0.88, host / total


def test_host_intervals_hold_when_runs_differ_in_how_noisy_they_are():
    """Runs on a shared host are quiet or busy: a quiet run's narrow interval must still hold the
    median of a busy rerun. The form that assumed the rerun as noisy as this run (√(h² + 2z²(σ² +
    τ²))) held far fewer than 90 % of such pairs; the prediction form (module doc) holds them."""
    rng = np.random.default_rng(5)
    cells, trials = 16, 9
    base = rng.uniform(500, 5000, cells)
    run = lambda: simulate_run(rng, cells, trials, 0.0, 0.0, rng.choice([0.004, 0.04]), base)  # noqa: E731
    cal = calibration.calibrate([[run(), run()] for _ in range(12)], "host", ["r"])
    term = cal.term("rust", "decode")
    assert 0.005 < term.run_sd < 0.04, term
    old = calibration.Term(*[getattr(term, f) for f in ("language", "operation", "column_sd", "cell_sd", "df",
                                                          "groups", "cells")])

    def old_widen(iv):  # √(h² + 2z²(σ² + τ²)) on each side
        z, ex = calibration.z_of(iv.coverage), 2 * calibration.z_of(iv.coverage) ** 2 * old.variance
        return stats.Interval(iv.median, iv.median * math.exp(-math.sqrt(math.log(iv.median / iv.lo) ** 2 + ex)),
                              iv.median * math.exp(math.sqrt(math.log(iv.hi / iv.median) ** 2 + ex)), iv.n, iv.coverage)

    new = was = total = 0
    for _ in range(60):
        a, b = run(), run()
        for k in a:
            total += 1
            ha, hb = calibration.widen(a[k].interval(), term), calibration.widen(b[k].interval(), term)
            new += ha.lo <= b[k].median <= ha.hi and hb.lo <= a[k].median <= hb.hi
            oa, ob = old_widen(a[k].interval()), old_widen(b[k].interval())
            was += oa.lo <= b[k].median <= oa.hi and ob.lo <= a[k].median <= ob.hi
    assert was / total < 0.85, was / total
    assert new / total >= 0.9, new / total


def test_widen_adds_the_term_to_each_side_and_keeps_the_median():
    iv = stats.Interval(100.0, 98.0, 103.0, 13, stats.coverage(13, 2))
    assert calibration.widen(iv, None) == iv
    t = calibration.Term("rust", "decode", 0.02, 0.01, 4, 2, 16, 0.015)
    w = calibration.widen(iv, t)
    z = calibration.z_of(iv.coverage)
    extra = z * z * (t.run_sd ** 2 + 2 * t.variance)
    assert w.median == 100.0 and w.n == 13 and w.coverage == iv.coverage
    assert math.isclose(math.log(100 / w.lo), math.sqrt(math.log(100 / 98) ** 2 / 2 + extra))
    assert math.isclose(math.log(w.hi / 100), math.sqrt(math.log(103 / 100) ** 2 / 2 + extra))
    # Never narrower than the run's own interval: a wide side keeps its width.
    wide = stats.Interval(100.0, 80.0, 101.0, 13, iv.coverage)
    assert calibration.widen(wide, t).lo == 80.0 and calibration.widen(wide, t).hi > 101.0
    assert calibration.widen(stats.EMPTY, t) == stats.EMPTY


def test_runs_repeat_one_experiment_only_with_one_scenario_source_and_host():
    doc = json.loads((DATA / "trials-a" / "run.json").read_text())
    k = calibration.group_key(doc)
    other = json.loads(json.dumps(doc))
    other.setdefault("harness", {})["source"] = {"commit": "abc"}
    assert calibration.group_key(other) != k
    # The measuring code's tree decides, not the commit (a docs or harness change is the same experiment).
    again = json.loads(json.dumps(other))
    other["harness"]["source"]["measuring"] = again["harness"]["source"]["measuring"] = "tree1"
    again["harness"]["source"]["commit"] = "def"
    assert calibration.group_key(other) == calibration.group_key(again)
    other = json.loads(json.dumps(doc))
    other["harness"]["hostname"] = "elsewhere"
    assert calibration.group_key(other) != k and calibration.host_key(other) != calibration.host_key(doc)
    other = json.loads(json.dumps(doc))
    other["run"]["scenario"]["seed"] = "2"
    other.pop("scenarioAsWritten", None)
    doc.pop("scenarioAsWritten", None)
    assert calibration.group_key(other) != calibration.group_key(doc)


def test_a_run_records_the_tree_of_the_code_that_measures():
    src = results.source_version()
    assert src["commit"] and src["measuring"], src
    assert src == results.source_version()  # the same tree, the same record
    assert results.source_version(DATA) == {} or "measuring" in results.source_version(DATA)


def test_calibrate_writes_the_term_and_compare_and_report_use_it(tmp_path):
    for name in ("recorded-a", "recorded-b"):
        shutil.copytree(DATA / name, tmp_path / name)
    res = run_cli("calibrate", "--results-dir", str(tmp_path), "--json", env=NO_CONTROL)
    assert res.returncode == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert sorted(doc["runs"]) == ["recorded-a", "recorded-b"]
    assert doc["terms"] and all(t["df"] == 1 for t in doc["terms"]), doc["terms"]
    assert (tmp_path / "calibration.json").exists()
    res = run_cli("compare", "recorded-a", "recorded-b", "--results-dir", str(tmp_path), "--json", env=NO_CONTROL)
    cmp = json.loads(res.stdout)
    agree = cmp["agreement"]
    assert agree["hostPairs"] > 0 and agree["insideHostIntervals"] >= agree["insideEachOthersIntervals"]
    hosted = [r for r in cmp["rows"] if r.get("a_host_lo_ns_per_op") is not None]
    assert hosted and all(r["a_host_lo_ns_per_op"] <= r["a_lo_ns_per_op"] for r in hosted)
    res = run_cli("report", "recorded-b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 0, res.stderr
    md = (tmp_path / "recorded-b" / "report.md").read_text()
    assert "| host run-to-run term |" in md and " host ±" in md
    # Text output names the term it used.
    res = run_cli("compare", "recorded-a", "recorded-b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert "this host's run-to-run term (codecbench calibrate" in res.stdout


def test_calibrate_without_a_repeated_scenario_or_with_a_broken_file_says_what_to_do(tmp_path):
    shutil.copytree(DATA / "recorded-a", tmp_path / "recorded-a")
    shutil.copytree(DATA / "trials-a", tmp_path / "trials-a")
    res = run_cli("calibrate", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 64 and "no scenario was run twice unchanged" in res.stderr, res.stderr
    assert not (tmp_path / "calibration.json").exists()
    res = run_cli("calibrate", "nope", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 4 and "no results for 'nope'" in res.stderr  # no such run
    (tmp_path / "calibration.json").write_text("{not json")
    res = run_cli("compare", "recorded-a", "recorded-a", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 64 and "calibration.json: not a codecbench calibration" in res.stderr, res.stderr
    # Without a calibration, compare says there is none and how to get one.
    (tmp_path / "calibration.json").unlink()
    res = run_cli("compare", "recorded-a", "recorded-a", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert "host intervals: none" in res.stdout


@pytest.mark.parametrize("coverage,z", [(0.95, 1.959964), (0.833, 1.3817)])
def test_z_of_coverage(coverage, z):
    assert math.isclose(calibration.z_of(coverage), z, rel_tol=1e-3)
    assert math.isnan(calibration.z_of(0)) and math.isnan(calibration.z_of(1))
