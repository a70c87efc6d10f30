"""Planning before a run (cli/planning.py): `run --plan` answers from control's plan without
starting anything, and a budget (sampling.maxSeconds) is set against the estimate up front, with
the trial count that would fit."""
from __future__ import annotations

import json

from codecbench.cli import planning
from conftest import require_rust, run_cli, write_scenario
from test_estimate import SAMPLING, task, write_run


def _plan(cells: int, trials: int) -> list[dict]:
    """A plan in run.json form: one prepare task per cell, then `trials` passes over the cells."""
    out = [dict(task("encode", "rust-1", 0, 0, prepare=True), cellId=f"c{c}") for c in range(cells)]
    for k in range(trials):
        out += [dict(task("decode", "rust-1", 0, 0, "typed"), cellId=f"c{c}", trial=k) for c in range(cells)]
    return out


def test_the_budget_names_the_trials_that_would_fit(tmp_path):
    # History: a Rust decode trial costs 1 s, a prepare 0.5 s, nothing idle.
    write_run(tmp_path, "20261128-000001-aaaa", [task("decode", "rust-1", 0, 1.0, "typed"),
                                                 task("encode", "rust-1", 1, 0.5, prepare=True)], wall=1.5)
    doc = {"scenario": {"sampling": SAMPLING, "operations": ["OPERATION_ENCODE", "OPERATION_DECODE"]}, "lanes": 1}
    langs = {"rust-1": "rust"}
    plan = _plan(cells=10, trials=9)                     # 10 × 0.5 + 90 × 1 = 95 s
    est = planning.estimate_for(doc, plan, langs, tmp_path)
    assert est["seconds"] == 95.0 and est["tasksWithoutHistory"] == 0
    # 60 s hold 5 prepare-plus-trials passes: 5 + 10 × 5 = 55 s.
    k, fit = planning.fitting_trials(doc, plan, langs, tmp_path, 60)
    assert (k, fit["seconds"]) == (5, 55.0)
    said = planning.over_budget(doc, plan, langs, tmp_path, est, 60)
    assert said.startswith("the plan is estimated at 1 min 35 s, over sampling.maxSeconds (1 min 0 s): "
                           "with sampling.trials 5 it would take about 55.0 s"), said
    # Not even 3 trials (35 s) fit 20 s.
    assert planning.fitting_trials(doc, plan, langs, tmp_path, 20) is None
    assert "not even 3 trials a cell fit" in planning.over_budget(doc, plan, langs, tmp_path, est, 20)
    assert planning.fits(est, 100) == "estimated 1 min 35 s of sampling.maxSeconds 1 min 40 s"


def test_a_plan_over_its_budget_is_built_to_fit_it(tmp_path, monkeypatch):
    import pytest

    from codecbench.cli.base import CliError
    from codecbench.pb import scenario as scenario_pb2

    write_run(tmp_path, "20261128-000001-aaaa", [task("decode", "rust-1", 0, 1.0, "typed"),
                                                 task("encode", "rust-1", 1, 0.5, prepare=True)], wall=1.5)
    doc = {"scenario": {"sampling": SAMPLING, "operations": ["OPERATION_ENCODE", "OPERATION_DECODE"]}, "lanes": 1}
    # What control would plan: 10 cells × 9 trials (95 s), as test_the_budget_names_the_trials_that_would_fit.
    monkeypatch.setattr(planning, "_plan_docs", lambda control, scenario, source: (doc, _plan(10, 9), {"rust-1": "rust"}))
    sc = scenario_pb2.Scenario()
    sc.sampling.trials, sc.sampling.max_trials, sc.sampling.max_seconds = 9, 13, 60
    said = []
    fitted = planning.check_budget(None, sc, "s.yaml", tmp_path, say=said.append)
    assert (fitted.sampling.trials, fitted.sampling.max_trials) == (5, 5), "the most trials that fit, no adaptive ones"
    assert (sc.sampling.trials, sc.sampling.max_trials) == (9, 13), "the scenario given is left alone"
    assert said == ["budget: the plan as written is estimated at 1 min 35 s, over sampling.maxSeconds 1 min 0 s: "
                    "built to fit with sampling.trials 5 (was 9, up to 13), estimated 55.0 s of sampling.maxSeconds "
                    "1 min 0 s; --no-fit runs it as written"], said
    # --no-fit: as written, with the warning.
    said.clear()
    assert planning.check_budget(None, sc, "s.yaml", tmp_path, say=said.append, fit=False) is sc
    assert "run as written (--no-fit)" in said[0]
    # Not even 3 trials a cell fit 20 s: refused, exit 2, saying what would.
    sc.sampling.max_seconds = 20
    with pytest.raises(CliError) as refused:
        planning.check_budget(None, sc, "s.yaml", tmp_path, say=said.append)
    assert refused.value.code == 2 and "not even 3 trials a cell fit" in str(refused.value)
    # Within the budget, or with no history here: unchanged.
    sc.sampling.max_seconds = 100
    assert planning.check_budget(None, sc, "s.yaml", tmp_path, say=said.append) is sc
    assert planning.check_budget(None, sc, "s.yaml", tmp_path / "empty", say=said.append) is sc


def test_run_plan_prints_the_plan_and_starts_nothing(tmp_path):
    require_rust()
    path = write_scenario(tmp_path / "s.yaml", """\
datasets: [dummy]
codecs: [json, protobuf]
decodeModes: [typed]
counts: [10]
producers: [rust]
consumers: [rust]
operations: [encode, decode]
sampling: {trials: 3, maxSeconds: 600, aaCells: 1}
""")
    env = {"CODECBENCH_STATE": str(tmp_path / "state"), "CODECBENCH_CONTROL": ""}
    res = run_cli("run", str(path), "--local", "--plan", "--results-dir", str(tmp_path / "r"), env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    # 2 prepare tasks; 2 encode + 3 decode cells (one an A/A twin) × 3 trials.
    assert "plan: 17 tasks: 2 prepare, 15 trials of 5 cells (3 trials a cell); by language: rust 17; 1 at once" in res.stdout, res.stdout
    assert "no estimate yet" in res.stdout
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir()), "nothing ran"
