"""estimate.py: a planned run's time from the earlier runs on this host with the same sampling."""
from __future__ import annotations

import json
import socket

import pytest

from codecbench import estimate, timing

SAMPLING = {"warmupMs": 20, "maxWarmupMs": 1000, "rounds": 5, "minRoundMs": 2}


def stamp(s: float) -> str:
    return f"2026-11-28T00:{int(s // 60):02d}:{s % 60:09.6f}Z"


def task(op, worker, start, seconds, mode="", prepare=False):
    t = {"operation": f"OPERATION_{op.upper()}", "producerWorkerId": worker, "consumerWorkerId": worker,
         "status": "TASK_STATUS_DONE", "startedAt": stamp(start), "endedAt": stamp(start + seconds),
         "phaseMs": {"total": seconds * 1e3}}
    if mode:
        t["decodeMode"] = mode
    if prepare:
        t["prepare"] = True
    return t


def write_run(root, name, tasks, sampling=SAMPLING, host=None, wall=10.0, status="RUN_STATUS_FINISHED", lanes=0):
    run = {"id": name, "status": status, "createdAt": stamp(0), "finishedAt": stamp(wall), "lanes": lanes,
           "scenario": {"sampling": sampling, "operations": ["OPERATION_ENCODE", "OPERATION_DECODE"]}}
    doc = {"run": run, "tasks": tasks, "workers": {"java-1": {"language": "java"}, "rust-1": {"language": "rust"}},
           "harness": {"hostname": host or socket.gethostname()}}
    doc["timeBreakdown"] = timing.breakdown(run, tasks, lambda w: w.split("-")[0])
    (root / name).mkdir()
    (root / name / "run.json").write_text(json.dumps(doc))


def test_a_plan_costs_what_its_kinds_cost_before_plus_the_idle_share(tmp_path):
    # Two earlier runs: a Java decode costs 2 s, a Rust one 0.5 s; 10 % of each run was idle.
    for i, name in enumerate(["20261128-000001-aaaa", "20261128-000002-bbbb"]):
        write_run(tmp_path, name, [task("decode", "java-1", 0, 2.0 + 0.2 * i, "typed"),
                                   task("decode", "rust-1", 3, 0.5, "typed"),
                                   task("encode", "java-1", 4, 3.0, prepare=True),
                                   task("encode", "rust-1", 7.5, 1.5)],
                  wall=(2.0 + 0.2 * i + 0.5 + 3.0 + 1.5) / 0.9)
    # Not counted: another host, other sampling, an unfinished run.
    write_run(tmp_path, "20261128-000003-cccc", [task("decode", "java-1", 0, 100, "typed")], host="elsewhere")
    write_run(tmp_path, "20261128-000004-dddd", [task("decode", "java-1", 0, 100, "typed")], sampling={"rounds": 10})
    write_run(tmp_path, "20261128-000005-eeee", [task("decode", "java-1", 0, 100, "typed")], status="RUN_STATUS_FAILED")
    past = estimate.history(tmp_path, SAMPLING)
    assert past.runs == 2
    plan = [task("decode", "java-1", 0, 0, "typed"), task("decode", "java-1", 0, 0, "typed"),
            task("decode", "rust-1", 0, 0, "lazy"),  # never seen in lazy: Rust decodes in any mode
            task("encode", "browser-1", 0, 0)]       # no browser history at all
    scenario = {"operations": ["OPERATION_ENCODE", "OPERATION_DECODE"]}
    est = estimate.estimate(plan, lambda w: w.split("-")[0], scenario, past)
    assert est["tasks"] == 3 and est["tasksWithoutHistory"] == 1 and est["runs"] == 2
    assert est["seconds"] == pytest.approx((2.1 + 2.1 + 0.5) / 0.9, abs=0.1)
    line = estimate.sentence(est, 4)
    assert line.startswith("plan: 4 tasks, estimated 5.2 s (from 2 earlier runs on this host with this sampling; ")
    assert "1 of them have no history" in line


def test_lanes_share_the_task_time_but_a_worker_runs_one_task_at_a_time(tmp_path):
    # One earlier two-lane run, no idle: Java and Rust decodes of 2 s and 1 s ran side by side.
    write_run(tmp_path, "20261128-000001-aaaa", [task("decode", "java-1", 0, 2.0, "typed"), task("decode", "rust-1", 0, 1.0, "typed"),
                                                 task("decode", "rust-1", 1.0, 1.0, "typed")], wall=2.0, lanes=2)
    # A one-lane run is another machine as far as task costs go: not counted for two lanes.
    write_run(tmp_path, "20261128-000002-bbbb", [task("decode", "java-1", 0, 9.0, "typed")], wall=9.0)
    b = json.loads((tmp_path / "20261128-000001-aaaa" / "run.json").read_text())["timeBreakdown"]
    assert b["lanes"] == 2 and b["shares"]["idle"] == pytest.approx(0.0, abs=1e-3)
    assert "of 2 lanes' time in timed rounds" in timing.sentence(b)
    past = estimate.history(tmp_path, SAMPLING, lanes=2)
    assert past.runs == 1 and estimate.history(tmp_path, SAMPLING).runs == 1
    scenario = {"operations": ["OPERATION_DECODE"]}
    language = lambda w: w.split("-")[0]  # noqa: E731
    balanced = [task("decode", "java-1", 0, 0, "typed"), task("decode", "rust-1", 0, 0, "typed"), task("decode", "rust-1", 0, 0, "typed")]
    assert estimate.estimate(balanced, language, scenario, past, lanes=2)["seconds"] == pytest.approx(2.0)
    # All Java: one worker, so the second lane cannot help.
    java = [task("decode", "java-1", 0, 0, "typed")] * 3
    assert estimate.estimate(java, language, scenario, past, lanes=2)["seconds"] == pytest.approx(6.0)


def test_no_history_says_so(tmp_path):
    est = estimate.estimate([task("decode", "rust-1", 0, 0, "typed")], lambda w: "rust", {}, estimate.history(tmp_path, SAMPLING))
    assert est["tasks"] == 0
    assert estimate.sentence(est, 1) == ("plan: 1 tasks; no estimate yet (no earlier finished run on this host "
                                         "with this sampling in the results folder)")


def test_durations_read_as_minutes_and_seconds():
    assert timing.duration(119.6) == "2 min 0 s" and timing.duration(61.2) == "1 min 1 s"
    assert timing.duration(59.94) == "59.9 s"
