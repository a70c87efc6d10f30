"""Lanes (docs/DESIGN.md "Lanes"): with two lanes control runs two workers' tasks at once, and
every trial process runs on its own lane's CPUs, as the trial process itself read them
(Linux Cpus_allowed_list), never on the other lane's."""
from __future__ import annotations

import os

import pytest

from codecbench import timing
from codecbench.pb import scenario as scenario_pb2
from conftest import run_every_task_done, start_language_worker, write_scenario

LANGUAGES = ("rust", "java", "browser")


def cpu_list(cpus: list[int]) -> str:
    """Linux's list form ("0-3,8")."""
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def test_two_lanes_pin_every_trial_to_its_own_cpus(start_control, procs, tmp_path, monkeypatch):
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("two lanes need two CPUs")
    monkeypatch.setenv("CODECBENCH_LANES", "2")
    control = start_control()
    for language in LANGUAGES:
        start_language_worker(control, procs, language)
    scenario = write_scenario(tmp_path / "lanes.yaml", """
name: lanes
datasets: [dummy]
codecs: [json, protobuf]
decodeModes: [typed]
counts: [20]
operations: [encode, decode]
sampling: {warmupMs: 10, maxWarmupMs: 500, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 2, repeatSameBytes: true}
""")
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    assert resp.run.lanes == 2
    per = len(allowed) // 2
    lane_cpus = [cpu_list(allowed[:per]), cpu_list(allowed[per:2 * per])]
    language = {w.id: w.environment.language for w in resp.workers}
    seen = set()
    for t in resp.tasks:
        worker = t.producer_worker_id if t.operation == scenario_pb2.OPERATION_ENCODE else t.consumer_worker_id
        # A prepare task times nothing; Java's runs in the attached JVM, with no trial process.
        assert t.trial_cpus == lane_cpus[t.lane] or (t.prepare and not t.trial_cpus), (language[worker], t)
        seen.add((language[worker], t.lane))
    assert {lang for lang, _ in seen} == set(LANGUAGES)
    # Tasks really ran side by side: some overlap in time, and overlapping tasks never share a
    # lane or a worker.
    spans = [(timing.seconds(t.started_at.ToJsonString()), timing.seconds(t.ended_at.ToJsonString()), t) for t in resp.tasks]
    overlapping = [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] < b[1] and b[0] < a[1]]
    assert overlapping, "no two tasks ran at once"
    for (_, _, a), (_, _, b) in overlapping:
        assert a.lane != b.lane, (a, b)
        wa = a.producer_worker_id if a.operation == scenario_pb2.OPERATION_ENCODE else a.consumer_worker_id
        wb = b.producer_worker_id if b.operation == scenario_pb2.OPERATION_ENCODE else b.consumer_worker_id
        assert wa != wb, (a, b)
