"""Same bytes, measured once (docs/DESIGN.md): across real Rust and Java workers, payloads both
write byte for byte (dummy × json and protobuf: codecs/vectors) are decoded once per consumer, in
the cell of its own payload; the other producer's cells end SAME_BYTES, never given to a worker,
their rows carry the lead's figures and say so, and the plan predicted exactly those tasks."""
from __future__ import annotations

import re

import pandas as pd

from codecbench.pb import results as results_pb2, scenario as scenario_pb2
from conftest import run_cli, start_language_worker, write_scenario

SCENARIO = """
name: same-bytes
datasets: [dummy]
codecs: [json, protobuf]
decodeModes: [typed]
counts: [20]
producers: [rust, java]
consumers: [rust, java]
operations: [encode, decode]
sampling: {warmupMs: 5, maxWarmupMs: 300, rounds: 2, minRoundMs: 1, taskTimeoutS: 120, trials: 2, aaCells: 1}
"""


def test_byte_identical_payloads_are_decoded_once_per_consumer_across_real_workers(control, procs, tmp_path):
    for language in ("rust", "java"):
        start_language_worker(control, procs, language)
    scenario = write_scenario(tmp_path / "same.yaml", SCENARIO)
    plan = run_cli("--control", control.addr, "run", str(scenario), "--plan", "--wait-workers", "60")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    predicted = re.search(r"about (\d+) will not run", plan.stdout)
    assert predicted, plan.stdout
    res = run_cli("--control", control.addr, "run", str(scenario), "--all", "--no-progress", "--no-report",
                  "--results-dir", str(tmp_path / "out"), timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    run_dir = next((tmp_path / "out").iterdir())
    with control.client() as c:
        from codecbench.pb import hs
        resp = c.harness.GetRun(hs.GetRunRequest(run_id=run_dir.name), timeout=30)
    cells = {t.cell_id: t for t in resp.tasks}
    same = [t for t in resp.tasks if t.status == results_pb2.TASK_STATUS_SAME_BYTES]
    # json and protobuf, 2 consumers, the other producer's cell, 2 trials each.
    assert len(same) == 2 * 2 * 2 == int(predicted.group(1)), [t.cell_id for t in same]
    assert resp.run.tasks_same_bytes == len(same)
    assert all(t.status in (results_pb2.TASK_STATUS_DONE, results_pb2.TASK_STATUS_SAME_BYTES) for t in resp.tasks)
    for t in same:
        assert not t.HasField("started_at"), "never given to a worker"
        lead = cells[t.same_bytes_as]
        assert lead.status == results_pb2.TASK_STATUS_DONE
        assert lead.producer_worker_id == lead.consumer_worker_id == t.consumer_worker_id != t.producer_worker_id
    rows = [m for m in resp.measurements if m.same_bytes_as]
    assert len(rows) == 4 and all(not m.round_ns_per_op for m in rows), "one row per collapsed cell, nothing timed"
    assert all(m.same_bytes_as for m in resp.measurements if m.cell_id in {t.cell_id for t in same})
    summary = pd.read_csv(run_dir / "summary.csv", keep_default_na=False)
    moved = summary[summary["measured_in"] != ""]
    assert len(moved) == 4 and moved["verified"].astype(str).str.lower().eq("true").all()
    assert (moved["measured_in"] == moved["consumer"]).all()
    assert "(in rust-1's)" in res.stdout and "(in java-1's)" in res.stdout
    assert "8 not run (byte-identical payloads" in res.stdout
    assert scenario_pb2.OPERATION_DECODE in {m.operation for m in rows}
