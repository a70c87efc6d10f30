"""kill -9 of control in the middle of a run, then a restart on the same address: every
measurement control had announced is still stored, the interrupted run is closed, the Rust, Java
and browser workers re-attach by themselves, and the next run completes."""
from __future__ import annotations

import os
import signal
import threading
import time

import grpc
import pytest
from google.protobuf import json_format

from codecbench import processes
from codecbench.client import wait_for_workers
from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2
from conftest import ART

LANGUAGES = ("rust", "java", "browser")
# The Rust worker's reconnect window is short here, and the kill comes after more than that
# window of uptime: the window must count from losing control, not from the worker's start.
RUST_WINDOW_S = 8


def scenario(counts: list[int]) -> scenario_pb2.Scenario:
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["dummy", "numeric", "owners", "beers"], "codecs": ["json", "bson", "protobuf"],
                           "decodeModes": ["typed"], "counts": counts, "producers": ["rust"], "consumers": ["rust"],
                           "sampling": {"warmupMs": 20, "maxWarmupMs": 1000, "rounds": 3, "minRoundMs": 2, "trials": 2,
                                        "taskTimeoutS": 120}}, s)
    return s


def test_control_killed_mid_run_loses_nothing_announced_and_workers_come_back(control, procs):
    missing = [f"{kind}: {why}" for kind in ("java", "browser") if (why := ART.missing(kind))]
    if missing:
        pytest.skip("not built: " + "; ".join(missing) + " (the Makefile builds them before tests)")
    rust_started = time.monotonic()
    procs.append(processes.start_worker(ART, "rust", control.addr, control.logs / "rust.log",
                                        extra=("--reconnect-timeout-s", str(RUST_WINDOW_S))))
    for kind in ("java", "browser"):
        procs.append(processes.start_worker(ART, kind, control.addr, control.logs / f"{kind}.log"))
    with control.client() as c:
        wait_for_workers(c, list(LANGUAGES), 120)
    time.sleep(max(0.0, RUST_WINDOW_S + 1 - (time.monotonic() - rust_started)))

    # Follow a run; every measurement event is sent only after control committed it.
    seen: list[results_pb2.Measurement] = []
    started = threading.Event()
    run_ids: list[str] = []

    def follow():
        with control.client() as c:
            try:
                for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario([50]), source="restart-test"), timeout=300):
                    kind = resp.event.WhichOneof("event")
                    if kind == "run" and not run_ids:
                        run_ids.append(resp.event.run.id)
                    elif kind == "measurement":
                        seen.append(resp.event.measurement)
                        if len(seen) >= 5:
                            started.set()
            except grpc.RpcError:
                pass  # control was killed: the stream breaks

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert started.wait(120), f"the run produced only {len(seen)} measurement(s)"
    os.kill(control.proc.pid, signal.SIGKILL)
    follower.join(30)
    announced = {(m.task_id, m.operation) for m in seen}
    time.sleep(2)  # the workers notice and start retrying

    control.start(listen=control.addr)
    with control.client() as c:
        workers = wait_for_workers(c, list(LANGUAGES), 90)
        assert {w.environment.language for w in workers} == set(LANGUAGES)
        old = c.harness.GetRun(hs.GetRunRequest(run_id=run_ids[0]), timeout=30)
        assert old.run.status == results_pb2.RUN_STATUS_FAILED
        assert "control stopped" in old.run.message
        stored = {(m.task_id, m.operation) for m in old.measurements}
        assert announced <= stored, f"announced but not stored: {sorted(announced - stored)}"
        assert all(t.status in (results_pb2.TASK_STATUS_DONE, results_pb2.TASK_STATUS_FAILED) for t in old.tasks)
        # The next run completes on the re-attached workers.
        events = list(c.harness.StartRun(hs.StartRunRequest(scenario=scenario([5]), source="after-restart"), timeout=300))
    final = [e.event.run for e in events if e.event.WhichOneof("event") == "run"][-1]
    assert final.status == results_pb2.RUN_STATUS_FINISHED, final
    assert final.tasks_failed == 0 and final.tasks_done == final.tasks_total, final
