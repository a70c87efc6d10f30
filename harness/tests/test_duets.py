"""Duets (docs/DESIGN.md "Duets"): with sampling.duets, two lanes and two Rust workers, trial k of
each duet's two cells runs at the same moment, one per worker and lane; the copies stay out of the
run's cells and verdicts, and duets.py judges their ratio trial by trial. Without two lanes the
scenario is refused with a message that says why."""
from __future__ import annotations

import json
import os

import pytest

from codecbench import duets, timing
from codecbench.report import write_report
from codecbench.results import read_measurements
from codecbench.pb import scenario as scenario_pb2
from conftest import run_cli, run_every_task_done, start_language_worker, write_scenario

SCENARIO = """
name: duets
datasets: [dummy]
codecs: [json, protobuf]
decodeModes: [typed]
counts: [20]
operations: [encode, decode]
sampling: {warmupMs: 10, maxWarmupMs: 500, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 3, duets: true, repeatSameBytes: true}
"""


def _span(t):
    return timing.seconds(t.started_at.ToJsonString()), timing.seconds(t.ended_at.ToJsonString())


def test_duet_trials_run_together_and_are_judged_in_pairs(start_control, procs, tmp_path, monkeypatch, capsys):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    monkeypatch.setenv("CODECBENCH_LANES", "2")
    control = start_control()
    start_language_worker(control, procs, "rust")
    start_language_worker(control, procs, "rust")
    resp = run_every_task_done(control, write_scenario(tmp_path / "duets.yaml", SCENARIO), tmp_path / "out")
    pairs: dict[tuple[str, int], list] = {}
    for t in resp.tasks:
        if t.duet:
            pairs.setdefault((t.duet, t.trial), []).append(t)
    # json/json (A/A) and protobuf/json, for encode and typed decode: 4 duets × 3 trials.
    assert len({d for d, _ in pairs}) == 4 and len(pairs) == 12, sorted(pairs)
    for (duet, trial), (a, b) in ((k, v) for k, v in pairs.items()):
        worker = lambda t: t.producer_worker_id if t.operation == scenario_pb2.OPERATION_ENCODE else t.consumer_worker_id
        assert worker(a) != worker(b) and a.lane != b.lane, (duet, trial)
        (a0, a1), (b0, b1) = _span(a), _span(b)
        assert a0 < b1 and b0 < a1, f"duet {duet} trial {trial} did not run at once: {a0}-{a1} vs {b0}-{b1}"
        assert abs(a0 - b0) < 0.5, (duet, trial, a0, b0)
    out = next((tmp_path / "out").iterdir())
    # The copies are kept out of the run's measurements (cells, leaderboards, verdicts).
    assert not read_measurements(out)["cell_id"].str.contains(duets.SUFFIX, regex=False).any()
    found = duets.from_results(out)
    assert sorted((d.operation, d.right, d.aa) for d in found) == [
        ("decode", "json", True), ("decode", "protobuf", False), ("encode", "json", True), ("encode", "protobuf", False)]
    for d in found:
        assert d.pairs == 3 and d.paired.n == 3 and d.separate.n == 3, d
        assert d.paired.lo <= d.paired.median <= d.paired.hi
    lines = duets.table(found)
    assert lines[-1].startswith("median half-width: paired ±") and "A/A duets holding 1:" in lines[-1], lines
    # The module's command prints the same table, and the report has a section of them.
    assert duets.main([str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == lines
    rep = write_report(out, tmp_path / "report")
    assert "duets" in rep.sections
    assert "protobuf / json" in rep.md.read_text() and lines[-1] in rep.md.read_text()


def test_duets_need_two_lanes(start_control, procs, tmp_path, monkeypatch):
    monkeypatch.setenv("CODECBENCH_LANES", "1")
    control = start_control()
    start_language_worker(control, procs, "rust")
    res = run_cli("--control", control.addr, "run", str(write_scenario(tmp_path / "d.yaml", SCENARIO)),
                  "--results-dir", str(tmp_path / "out"), "--no-progress", "--no-report", timeout=120)
    assert res.returncode != 0
    assert "sampling.duets: a duet runs two trials at once, each in its own lane, and control runs 1 lane" in res.stderr, res.stderr


def test_run_local_starts_two_workers_of_a_language_and_two_lanes_for_duets(tmp_path):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("two lanes need two CPUs")
    scenario = write_scenario(tmp_path / "duets-local.yaml", SCENARIO.replace("trials: 3,", "trials: 2,")
                              + "producers: [rust]\nconsumers: [rust]\n")
    res = run_cli("run", str(scenario), "--local", "--results-dir", str(tmp_path / "out"),
                  "--no-progress", "--no-report", timeout=300, env={"CODECBENCH_STATE": str(tmp_path / "state")})
    assert res.returncode == 0, res.stdout + res.stderr
    out = next((tmp_path / "out").iterdir())
    doc = json.loads((out / "run.json").read_text())
    assert doc["run"]["lanes"] == 2
    workers = {t.get("producerWorkerId") for t in doc["tasks"]}
    assert workers == {"rust-1", "rust-2"}, workers
    assert len(duets.from_results(out)) == 4
