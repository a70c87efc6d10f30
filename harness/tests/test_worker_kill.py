"""A worker killed outright (SIGKILL) in the middle of a run loses nothing already reported: the run
finishes, every measurement row stored before the kill is still there, the task the worker held
and the tasks that waited for it fail, each with exactly one failure row, and control goes on
serving (the next run, on another worker, completes)."""
from __future__ import annotations

import collections
import os
import signal
import sqlite3
import threading
import time

import pytest
from google.protobuf import json_format

from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2
from conftest import start_language_worker, start_rust_worker


def scenario(language: str) -> scenario_pb2.Scenario:
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["dummy", "beers"], "codecs": ["json", "bson"], "decodeModes": ["typed"],
                           "counts": [20], "producers": [language], "consumers": [language],
                           "sampling": {"warmupMs": 20, "maxWarmupMs": 1000, "rounds": 3, "minRoundMs": 2, "trials": 3,
                                        "taskTimeoutS": 120}}, s)
    return s


def stored_rows(control, run_id: str) -> list[tuple[int, str, str]]:
    db = sqlite3.connect(f"file:{control.state_dir / 'codecbench.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute("SELECT id, task_id, failure FROM measurements WHERE run_id = ?", (run_id,)).fetchall()
    finally:
        db.close()


@pytest.mark.parametrize("language", ["rust", "java", "browser"])
def test_a_worker_killed_mid_run_loses_nothing_reported(control, procs, language):
    victim = start_language_worker(control, procs, language)
    started = threading.Event()
    run_ids: list[str] = []
    ended: list[results_pb2.Run] = []
    measured = [0]

    def follow():
        with control.client() as c:
            for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario(language), source="kill-test"), timeout=600):
                kind = resp.event.WhichOneof("event")
                if kind == "run":
                    run_ids.append(resp.event.run.id)
                    ended.append(resp.event.run)
                    started.set()
                elif kind == "measurement":
                    measured[0] += 1

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert started.wait(60), "the run did not start"
    # Mid-run: a few measurements stored, and the worker holding a task.
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        with control.client() as c:
            busy = any(w.current_task_id for w in c.list_workers())
        if measured[0] >= 4 and busy:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"never mid-run: {measured[0]} measurements")
    os.kill(victim.pid, signal.SIGKILL)
    before = stored_rows(control, run_ids[0])
    assert before, "rows were stored before the kill"
    follower.join(300)
    run = ended[-1]
    assert run.status == results_pb2.RUN_STATUS_FINISHED, run
    assert run.tasks_done + run.tasks_failed == run.tasks_total and run.tasks_failed >= 1, run
    after = stored_rows(control, run_ids[0])
    assert set(before) <= set(after), "a row stored before the kill is gone"
    with control.client() as c:
        stored = c.get_run(run.id)
    failures = collections.Counter(task for _, task, failure in after if failure)
    failed = {t.id for t in stored.tasks if t.status == results_pb2.TASK_STATUS_FAILED}
    assert set(failures) == failed and set(failures.values()) == {1}, (failures, failed)
    # The task it held (the cascade to a prepare's decodes quotes that message; it does not start with it).
    held = [t for t in stored.tasks if t.failure.startswith(f"worker {language}-1 went away while running the task")]
    assert len(held) == 1, [t.failure for t in stored.tasks if t.failure]
    # Control is unharmed: another worker attaches and a run on it completes.
    start_rust_worker(control, procs, name="rescue")
    with control.client() as c:
        last = None
        for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario("rescue"), source="after-kill"), timeout=600):
            if resp.event.WhichOneof("event") == "run":
                last = resp.event.run
    assert last is not None and last.status == results_pb2.RUN_STATUS_FINISHED and last.tasks_failed == 0, last
