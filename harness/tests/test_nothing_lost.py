"""A result control cannot store is not lost: while another process holds SQLite's write lock
past control's busy timeout, a worker's report is refused with UNAVAILABLE and nothing changes;
the worker (Rust, Java and browser alike) reports it again, and the run ends with every task done
and exactly its rows."""
from __future__ import annotations

import collections
import sqlite3
import threading
import time

import pytest
from google.protobuf import json_format

from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2
from conftest import start_language_worker

# The lock is held until the worker has met a refusal (its log says "not stored"), for at least
# HOLD_S and at most HOLD_MAX_S. A report refused needs to reach control in the first HOLD - 5 s
# (control's busy timeout: a later one waits out the lock and is stored), and a fixed 12 s hold
# missed that once in CI with the Java worker (no "not stored" in its log, every task done).
HOLD_S = 12
HOLD_MAX_S = 60


def scenario(language: str) -> scenario_pb2.Scenario:
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["dummy"], "codecs": ["json", "protobuf"], "decodeModes": ["typed"],
                           "counts": [20], "producers": [language], "consumers": [language],
                           "sampling": {"warmupMs": 20, "maxWarmupMs": 1000, "rounds": 3, "minRoundMs": 2, "trials": 3,
                                        "taskTimeoutS": 120}}, s)
    return s


def worker_logs(control, language: str) -> str:
    return "".join(p.read_text(errors="replace") for p in control.logs.glob(f"{language}*.log"))


def refused(control, language: str) -> bool:
    return "not stored" in worker_logs(control, language)


@pytest.mark.parametrize("language", ["rust", "java", "browser"])
def test_a_report_control_cannot_store_is_reported_again(control, procs, language):
    start_language_worker(control, procs, language)
    measured = threading.Event()
    ended: list[results_pb2.Run] = []

    def follow():
        with control.client() as c:
            for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario(language), source="lock-test"), timeout=600):
                kind = resp.event.WhichOneof("event")
                if kind == "measurement":
                    measured.set()
                elif kind == "run":
                    ended.append(resp.event.run)

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert measured.wait(120), "no measurement arrived"
    lock = sqlite3.connect(control.state_dir / "codecbench.sqlite", timeout=10, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    held = time.monotonic()
    while time.monotonic() - held < HOLD_MAX_S and (time.monotonic() - held < HOLD_S or not refused(control, language)):
        time.sleep(0.5)
    lock.execute("ROLLBACK")
    lock.close()
    follower.join(600)
    run = ended[-1]
    assert run.status == results_pb2.RUN_STATUS_FINISHED, run
    assert (run.tasks_done, run.tasks_failed) == (run.tasks_total, 0), run
    with control.client() as c:
        stored = c.harness.GetRun(hs.GetRunRequest(run_id=run.id), timeout=30)
    rows = collections.Counter((m.task_id, m.operation) for m in stored.measurements)
    assert max(rows.values()) == 1, [k for k, n in rows.items() if n > 1]
    timed = {t.id for t in stored.tasks if not t.prepare}
    assert timed <= {task for task, _ in rows}, "a timed task without its row"
    # The worker did meet the refusal and reported again.
    assert refused(control, language), worker_logs(control, language)[-3000:]
