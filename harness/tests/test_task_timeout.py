"""A task that overruns sampling.taskTimeoutS fails with a message saying so, and the run ends."""
from __future__ import annotations

import time

from codecbench.pb import hs, results as results_pb2
from conftest import run_cli, write_scenario


def test_a_hung_worker_times_its_task_out_and_the_run_finishes(control, rust_worker, fake_worker, tmp_path):
    fake = fake_worker("hang")
    path = write_scenario(tmp_path / "s.yaml", """\
datasets: [beers]
codecs: [json]
decodeModes: [typed]
counts: [5]
producers: [rust]
consumers: [fake]
operations: [encode, decode]
sampling: {warmupMs: 5, rounds: 3, minRoundMs: 1, taskTimeoutS: 2, trials: 1}
""")
    started = time.monotonic()
    res = run_cli("--control", control.addr, "run", str(path), "--no-progress", "--results-dir", str(tmp_path / "r"),
                  timeout=60)
    assert res.returncode == 1, res.stdout + res.stderr
    assert time.monotonic() - started < 30
    assert "timed out after 2 s (sampling.taskTimeoutS)" in res.stdout + res.stderr
    with control.client() as c:
        run = c.harness.ListRuns(hs.ListRunsRequest(limit=1), timeout=10).runs[0]
        resp = c.harness.GetRun(hs.GetRunRequest(run_id=run.id), timeout=10)
    assert resp.run.status == results_pb2.RUN_STATUS_FINISHED
    failed = [t for t in resp.tasks if t.status == results_pb2.TASK_STATUS_FAILED]
    # The decode cell and its A/A twin, one trial each, both on the hung worker.
    assert [t.consumer_worker_id for t in failed] == [fake.worker_id] * 2
    assert failed[0].failure == "timed out after 2 s (sampling.taskTimeoutS)"
    assert any(m.failure == failed[0].failure and not m.verified for m in resp.measurements)
