"""HarnessService.WatchRun: a second client following a run replays what is stored, then gets live
events until the run ends; after the end it gets the stored run and the stream closes."""
from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format

from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2


def scenario():
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["dummy", "numeric"], "codecs": ["json", "bson"], "counts": [20],
                           "sampling": {"warmupMs": 20, "rounds": 3, "minRoundMs": 2, "trials": 1, "aaCells": 1}}, s)
    return s


def events(stream):
    runs, measurements = [], []
    for resp in stream:
        kind = resp.event.WhichOneof("event")
        if kind == "run":
            runs.append(resp.event.run)
        elif kind == "measurement":
            measurements.append(resp.event.measurement)
    return runs, measurements


def test_watch_follows_a_running_run_and_replays_a_finished_one(control, rust_worker):
    with control.client() as c:
        started = c.harness.StartRun(hs.StartRunRequest(scenario=scenario(), source="watch-test"), timeout=120)
        first = next(started).event
        run_id = first.run.id
        assert first.run.status == results_pb2.RUN_STATUS_RUNNING

        live_runs, live_measurements = events(c.harness.WatchRun(hs.WatchRunRequest(run_id=run_id), timeout=120))
        assert live_runs[0].id == run_id
        assert live_runs[-1].status == results_pb2.RUN_STATUS_FINISHED
        stored = c.harness.GetRun(hs.GetRunRequest(run_id=run_id), timeout=30).measurements
        # One trial per cell: 4 encodes with their uploads and json's 2 streaming encodes; json
        # typed+tree+streaming and bson typed+tree+lazy decodes of 2 datasets, a download on each
        # payload's first mode; one A/A twin.
        assert len(stored) == 4 * 2 + 2 + 12 + 4 + 1
        # Replayed and live together, every stored measurement exactly once.
        assert sorted(m.task_id + str(m.operation) for m in live_measurements) == \
            sorted(m.task_id + str(m.operation) for m in stored)
        list(started)  # the starter's stream ends too

        replay_runs, replay_measurements = events(c.harness.WatchRun(hs.WatchRunRequest(run_id=run_id), timeout=30))
        assert [r.status for r in replay_runs] == [results_pb2.RUN_STATUS_FINISHED]
        assert len(replay_measurements) == len(stored)

        with pytest.raises(grpc.RpcError) as missing:
            list(c.harness.WatchRun(hs.WatchRunRequest(run_id="no-such-run"), timeout=10))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        assert "no run no-such-run" in missing.value.details()
