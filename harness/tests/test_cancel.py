"""CancelRun ends a running task at once and tells its worker to abandon it: the Rust, Java and
browser workers end the trial's process (here one that would time rounds for 100 s: a child
process, a child JVM, a fresh Chromium) and take the next run's tasks straight away, instead of
finishing work control has already thrown away."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from google.protobuf import json_format

from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2
from conftest import start_language_worker


def scenario(language: str, rounds: int, min_round_ms: int) -> scenario_pb2.Scenario:
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["numeric"], "codecs": ["json"], "decodeModes": ["typed"], "counts": [2000],
                           "operations": ["OPERATION_ENCODE"], "producers": [language], "consumers": [language],
                           "sampling": {"warmupMs": 10, "maxWarmupMs": 100, "rounds": rounds, "minRoundMs": min_round_ms,
                                        "trials": 1, "taskTimeoutS": 600}}, s)
    return s


def children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != "Z":  # a reaped-soon zombie is gone already
                    out.append(int(p.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def trial_processes(language: str, worker_pid: int) -> list[int]:
    """The running trial's processes: the worker's children, or for the browser the fresh
    Chromium's (its profile folder is codecbench-trial-*)."""
    if language != "browser":
        return children(worker_pid)
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if b"codecbench-trial-" in (p / "cmdline").read_bytes():
                    out.append(int(p.name))
            except OSError:
                pass
    return out


@pytest.mark.parametrize("language", ["rust", "java", "browser"])
def test_cancel_run_makes_the_worker_abandon_its_trial(control, procs, language):
    worker = start_language_worker(control, procs, language)
    timed = threading.Event()
    run_ids: list[str] = []

    def follow():
        with control.client() as c:
            for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario(language, 100, 1000), source="slow"), timeout=300):
                e = resp.event
                if e.WhichOneof("event") == "run":
                    run_ids.append(e.run.id)
                elif e.WhichOneof("event") == "task" and e.task.status == results_pb2.TASK_STATUS_RUNNING and not e.task.prepare:
                    timed.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert timed.wait(120), "the timed trial never started"
    deadline = time.monotonic() + 30
    while not trial_processes(language, worker.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert trial_processes(language, worker.pid), "the trial runs in a child process of the worker"
    with control.client() as c:
        c.harness.CancelRun(hs.CancelRunRequest(run_id=run_ids[0]), timeout=10)
    cancelled = time.monotonic()
    while trial_processes(language, worker.pid) and time.monotonic() - cancelled < 10:
        time.sleep(0.05)
    assert not trial_processes(language, worker.pid), "the trial process was not killed within 10 s of CancelRun"
    follower.join(30)
    # The worker says so (the page's console line comes once its trial has answered).
    deadline = time.monotonic() + 15
    while True:
        log = "".join(p.read_text(errors="replace") for p in control.logs.glob(f"{language}*.log"))
        if ("abandoned" in log and "cancelled" in log) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert "abandoned" in log and "cancelled" in log, log[-2000:]
    # The worker is free: a quick run finishes with every task done.
    started = time.monotonic()
    with control.client() as c:
        last = None
        for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario(language, 3, 1), source="quick"), timeout=120):
            if resp.event.WhichOneof("event") == "run":
                last = resp.event.run
    assert last is not None and last.status == results_pb2.RUN_STATUS_FINISHED and last.tasks_failed == 0, last
    assert time.monotonic() - started < 90
