"""The Node.js worker (language `node`, web/src/node/): attached to a real control, it encodes and
decodes json and protobuf on dummy in fresh Node trial processes, verified before timing, and its
results come back with the Node environment, allocated bytes and where the time went; with two
lanes each trial process runs on its lane's CPUs, as the process itself read them."""
from __future__ import annotations

import json
import os

import pytest

from codecbench import catalogue, processes
from codecbench.pb import scenario as scenario_pb2
from conftest import run_cli, run_every_task_done, start_language_worker, write_scenario
from test_lanes import cpu_list


def test_every_catalogue_language_is_a_worker_kind():
    # processes.KINDS is what `up` and `run --local` can start; the catalogue is the one list of languages.
    assert set(processes.KINDS) == set(catalogue.LANGUAGES)
    assert "node" in catalogue.LANGUAGES


def test_node_worker_runs_verified_trials_pinned_to_its_lane(start_control, procs, tmp_path, monkeypatch):
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("two lanes need two CPUs")
    monkeypatch.setenv("CODECBENCH_LANES", "2")
    control = start_control()
    start_language_worker(control, procs, "node")
    scenario = write_scenario(tmp_path / "node.yaml", """
name: node
datasets: [dummy]
codecs: [json, protobuf]
decodeModes: [typed]
counts: [20]
operations: [encode, decode]
sampling: {warmupMs: 10, maxWarmupMs: 500, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1}
""")
    # `codecbench codecs`: the node worker offers every codec the catalogue gives node, as catalogued.
    codecs = json.loads(run_cli("--control", control.addr, "codecs", "--json").stdout)
    node = {c["id"]: c["languages"]["node"] for c in codecs["codecs"]}
    listed = {c["id"] for c in catalogue.load(catalogue.default_path()) if "node" in c["implementations"]}
    # What the catalogue gives node is offered as catalogued; the rest (go's json/v2) is absent.
    assert listed and all(node[k]["status"] == "ok" for k in listed), node
    assert {k for k, cell in node.items() if cell["status"] == "ok"} == listed, node
    assert all(cell["status"] == "absent" for k, cell in node.items() if k not in listed), node
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    assert resp.run.lanes == 2
    (worker,) = resp.workers
    env = worker.environment
    assert (env.language, env.runtime) == ("node", "Node.js") and env.runtime_version and env.cores > 0
    assert "GCProfiler" in env.details["allocBytes"] and env.details["v8Flags"]
    # The Node-native paths, taken or not, are declared in the timed regions (the report's table).
    notes = {c.id: c.timed_regions[0].note for c in worker.codecs}
    assert "Node: the page's TextEncoder/TextDecoder, not Buffer" in notes["json"] and "cbor-extract" in notes["cbor"], notes
    seen = set()
    for m in resp.measurements:
        assert m.verified and not m.failure and m.language == "node", m
        seen.add((m.codec, m.operation))
        # Heap bytes the timed rounds allocated (src/node/memory.ts): a decode builds records.
        assert m.HasField("alloc_bytes_per_op"), m
        if m.operation == scenario_pb2.OPERATION_DECODE:
            assert m.alloc_bytes_per_op > 0, m
        assert len(m.round_ns_per_op) == 3 and all(ns > 0 for ns in m.round_ns_per_op), m
    assert seen == {(c, op) for c in ("json", "protobuf") for op in (scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE)}
    per = len(allowed) // 2
    lane_cpus = [cpu_list(allowed[:per]), cpu_list(allowed[per:2 * per])]
    for t in resp.tasks:
        # Every trial, the prepare task's too, ran in a Node process started under taskset -c.
        assert t.trial_cpus == lane_cpus[t.lane], t
        assert {"total", "fetch", "process", "load", "verify"} <= set(t.phase_ms), t
        if not t.prepare:
            ph = t.phase_ms
            assert ph["warmup"] > 0 and ph["rounds"] > 0 and ph["process"] >= ph["warmup"] + ph["rounds"], t


def test_run_local_starts_a_node_worker_that_carries_a_users_dataset(tmp_path):
    """`run --local` starts the node worker like the others (processes.KINDS), handing it the
    user's dataset (--user-dataset); its trials build the dataset from the descriptors they carry."""
    from conftest import ART, require_rust

    require_rust()
    if (why := ART.missing("node")):
        pytest.skip(f"node worker not built: {why}")
    examples = processes.repo_root() / "examples" / "orders"
    scenario = write_scenario(tmp_path / "orders.yaml", f"""
name: node-orders
datasets:
  - {{id: orders, proto: {examples / "order.proto"}, message: acme.shop.v1.Order, records: {examples / "orders.ndjson"}}}
codecs: [json, protobuf]
decodeModes: [typed]
counts: [20]
producers: [node]
consumers: [node]
operations: [encode, decode]
sampling: {{warmupMs: 5, maxWarmupMs: 300, rounds: 2, minRoundMs: 1, taskTimeoutS: 120, trials: 1}}
""")
    res = run_cli("run", str(scenario), "--local", "--no-progress", "--no-report", "--json",
                  env={"CODECBENCH_STATE": str(tmp_path / "state"), "CODECBENCH_CONTROL": "",
                       "CODECBENCH_RESULTS": str(tmp_path / "results")}, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-4000:]
    doc = json.loads(res.stdout)
    assert {w["environment"]["language"] for w in doc["workers"]} == {"node"}
    assert doc["tasks"] and all(t["status"] == "TASK_STATUS_DONE" for t in doc["tasks"]), doc["tasks"]
    verified = {(m["codec"], m["operation"]) for m in doc["measurements"] if m.get("verified") and m["dataset"] == "orders"}
    assert not doc["run"].get("refusals"), doc["run"]["refusals"]
    assert verified == {(c, op) for c in ("json", "protobuf") for op in ("OPERATION_ENCODE", "OPERATION_DECODE")}
