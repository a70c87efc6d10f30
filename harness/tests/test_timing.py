"""timing.py: a run's wall time by phase, from control's task stamps and the workers' phases."""
from __future__ import annotations

import pytest

from codecbench import timing


def task(op, worker, start, end, **ms):
    return {"operation": op, "producerWorkerId": worker, "consumerWorkerId": worker,
            "startedAt": f"2026-11-28T00:00:{start:09.6f}Z", "endedAt": f"2026-11-28T00:00:{end:09.6f}Z",
            **({"phaseMs": ms} if ms else {})}


def test_phases_add_up_to_the_wall_time_and_split_by_language():
    run = {"createdAt": "2026-11-28T00:00:00Z", "finishedAt": "2026-11-28T00:00:10Z"}
    tasks = [
        # 2 s at control: 1.5 s in the trial process, of which 1.2 s measured inside it.
        task("OPERATION_ENCODE", "java-1", 1, 3, total=1900, fetch=100, process=1500,
             load=100, verify=100, warmup=600, rounds=350, other=50),
        # 1 s, half of it a transfer leg.
        task("OPERATION_DECODE", "rust-1", 4, 5, total=950, fetch=50, transfer=500, process=300,
             load=10, verify=10, warmup=200, rounds=70, other=5),
        # A worker that reported no phases: its whole time is "other".
        task("OPERATION_DECODE", "rust-1", 6, 6.5),
        # Never ran: not counted.
        {"operation": "OPERATION_DECODE", "consumerWorkerId": "rust-1"},
    ]
    b = timing.breakdown(run, tasks, lambda w: w.split("-")[0])
    s = b["seconds"]
    assert b["wallSeconds"] == 10 and b["tasks"] == 3
    assert s["rounds"] == pytest.approx(0.42) and s["warm-up"] == pytest.approx(0.8)
    assert s["start/exit"] == pytest.approx(0.3 + 0.005)
    assert s["transfer"] == pytest.approx(0.5) and s["fetch"] == pytest.approx(0.15)
    assert s["messaging"] == pytest.approx((2 - 1.6) + (1 - 0.85))
    assert s["other"] == pytest.approx(0.055 + 0.5)
    assert s["idle"] == pytest.approx(10 - 3.5)
    assert sum(s.values()) == pytest.approx(10)
    assert b["timedShare"] == pytest.approx(0.042)
    assert b["byLanguage"]["java"]["tasks"] == 1 and b["byLanguage"]["rust"]["tasks"] == 2
    assert sum(b["byLanguage"]["java"]["meanTaskSeconds"].values()) == pytest.approx(2)
    line = timing.sentence(b)
    assert line.startswith("time: 10.0 s wall, 4% in timed rounds · idle 65% · ")
    assert "(mean task: java 2.00 s; rust 0.75 s)" in line


def test_a_run_without_stamps_has_no_breakdown():
    run = {"createdAt": "2026-11-28T00:00:00Z"}
    assert timing.breakdown(run, [{"operation": "OPERATION_ENCODE"}]) is None
