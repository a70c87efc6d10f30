"""Issue 32 item 7 against real processes: kill -9 of control while a worker holds a task, then a
restart on the same state directory. Every task the restart closes as failed has exactly one
failure row ("control restarted during the run"), as every other failed task has."""
from __future__ import annotations

import os
import signal
import threading

import grpc
from google.protobuf import json_format

from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2


def test_tasks_closed_by_a_restart_have_one_failure_row_each(control, fake_worker):
    fw = fake_worker("hang", "held")
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["dummy"], "codecs": ["json", "bson"], "counts": [5], "producers": ["held"],
                           "consumers": ["held"], "sampling": {"trials": 2, "taskTimeoutS": 600}}, s)
    run_ids: list[str] = []

    def follow():
        with control.client() as c:
            try:
                for resp in c.harness.StartRun(hs.StartRunRequest(scenario=s, source="restart-rows"), timeout=60):
                    if resp.event.WhichOneof("event") == "run" and not run_ids:
                        run_ids.append(resp.event.run.id)
            except grpc.RpcError:
                pass  # control is killed: the stream breaks

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    fw.expect("TASK")  # one task running, the others pending
    os.kill(control.proc.pid, signal.SIGKILL)
    follower.join(10)
    fw.kill()
    control.start(listen=control.addr)
    with control.client() as c:
        page = c.harness.GetRun(hs.GetRunRequest(run_id=run_ids[0]), timeout=30)
    assert page.run.status == results_pb2.RUN_STATUS_FAILED
    failed = [t for t in page.tasks if t.status == results_pb2.TASK_STATUS_FAILED]
    assert len(failed) == len(page.tasks) >= 4, [(t.id, t.status) for t in page.tasks]
    for t in failed:
        rows = [m for m in page.measurements if m.task_id == t.id and m.failure]
        assert len(rows) == 1, f"{t.id}: {len(rows)} failure rows"
        assert rows[0].failure == t.failure == "control restarted during the run"
