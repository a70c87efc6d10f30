"""The Go worker (language `go`, go/): attached to a real control, it encodes and decodes json and
protobuf on dummy in fresh trial processes of its own binary, verified before timing, and its results
come back with the Go environment (GOGC, GOMAXPROCS, GOEXPERIMENT), allocated bytes and where the
time went; with two lanes each trial process runs on its lane's CPUs, as the process itself read
them. Beside a Rust worker, each decodes the other's payloads, verified."""
from __future__ import annotations

import json
import os

import pytest

from codecbench import catalogue, processes
from codecbench.pb import scenario as scenario_pb2
from conftest import run_cli, run_every_task_done, start_language_worker, start_rust_worker, write_scenario
from test_lanes import cpu_list

ENCODE, DECODE = scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE


def test_go_is_a_catalogue_language_and_a_worker_kind():
    assert "go" in catalogue.LANGUAGES and "go" in processes.KINDS
    assert set(processes.KINDS) == set(catalogue.LANGUAGES)


def test_go_worker_runs_verified_trials_pinned_to_its_lane(start_control, procs, tmp_path, monkeypatch):
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("two lanes need two CPUs")
    monkeypatch.setenv("CODECBENCH_LANES", "2")
    control = start_control()
    start_language_worker(control, procs, "go")
    scenario = write_scenario(tmp_path / "go.yaml", """
name: go
datasets: [dummy]
codecs: [json, protobuf]
decodeModes: [typed, tree]
counts: [20]
operations: [encode, decode]
sampling: {warmupMs: 10, maxWarmupMs: 500, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1}
""")
    # `codecbench codecs`: the go worker offers every codec the catalogue gives go, as catalogued.
    codecs = json.loads(run_cli("--control", control.addr, "codecs", "--json").stdout)
    go = {c["id"]: c["languages"]["go"] for c in codecs["codecs"]}
    offered = {k for k, cell in go.items() if cell["status"] == "ok"}
    assert offered == {c["id"] for c in catalogue.load(catalogue.default_path()) if "go" in c["implementations"]}, go
    assert offered >= {"json", "protobuf"} and all(go[k]["status"] == "absent" for k in set(go) - offered), go
    # Versions from the worker binary's build info (go/internal/codecs.described): a module's tag,
    # the Go release for the standard library, this module's own for ubjson; never "unknown".
    assert all(go[k]["version"] not in ("", "unknown") for k in offered), go
    assert go["protobuf"]["version"].startswith("v1.") and go["json"]["version"].startswith("go1."), go
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    assert resp.run.lanes == 2
    (worker,) = resp.workers
    env = worker.environment
    assert (env.language, env.runtime) == ("go", "gc") and env.runtime_version.startswith("1.") and env.cores > 0
    assert "runtime/metrics" in env.details["allocBytes"]
    assert {"GOGC", "GOMAXPROCS", "GOEXPERIMENT"} <= set(env.details), env.details
    seen = set()
    for m in resp.measurements:
        assert m.verified and not m.failure and m.language == "go", m
        seen.add((m.codec, m.operation, m.decode_mode))
        # The trial process ran on one lane's CPU: the runtime sized GOMAXPROCS to it.
        assert m.environment.details["GOMAXPROCS"] == str(len(allowed) // 2), m.environment.details
        assert m.HasField("alloc_bytes_per_op") and m.alloc_bytes_per_op > 0, m
        assert len(m.round_ns_per_op) == 3 and all(ns > 0 for ns in m.round_ns_per_op), m
        assert m.ops_per_round >= 1 and m.extras["warmup_rounds"] >= 10, m
    assert seen == {("json", ENCODE, ""), ("protobuf", ENCODE, ""), ("json", DECODE, "typed"),
                    ("json", DECODE, "tree"), ("protobuf", DECODE, "typed")}, seen
    per = len(allowed) // 2
    lane_cpus = [cpu_list(allowed[:per]), cpu_list(allowed[per:2 * per])]
    for t in resp.tasks:
        # Every trial, the prepare task's too, ran in a process pinned to its lane's CPUs.
        assert t.trial_cpus == lane_cpus[t.lane], t
        assert {"total", "fetch", "process", "load", "verify"} <= set(t.phase_ms), t
        if not t.prepare:
            ph = t.phase_ms
            assert ph["warmup"] > 0 and ph["rounds"] > 0 and ph["process"] >= ph["warmup"] + ph["rounds"], t


def test_rust_and_go_decode_each_others_payloads(start_control, procs, tmp_path):
    control = start_control()
    start_language_worker(control, procs, "go")
    start_rust_worker(control, procs)
    scenario = write_scenario(tmp_path / "interop.yaml", """
name: go-rust
datasets: [dummy, media, matrix]
codecs: [json, bson, protobuf, ubjson, msgpack, cbor, xml, flatbuffers]
decodeModes: [typed, lazy]
counts: [5]
producers: [rust, go]
consumers: [rust, go]
operations: [encode, decode]
sampling: {warmupMs: 5, maxWarmupMs: 200, rounds: 2, minRoundMs: 1, taskTimeoutS: 120, trials: 1, repeatSameBytes: true}
""")
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    lang = {w.id: w.environment.language for w in resp.workers}
    cells, lazy = set(), set()
    for m in resp.measurements:
        assert m.verified and not m.failure, m
        if m.operation == DECODE:
            cells.add((m.dataset, m.codec, lang[m.producer_worker_id], lang[m.consumer_worker_id]))
            if m.decode_mode == "lazy":
                lazy.add((m.dataset, m.codec, lang[m.producer_worker_id], lang[m.consumer_worker_id]))
    want = {(d, c, p, q) for d in ("dummy", "media", "matrix") for c in ("json", "bson", "protobuf", "ubjson", "msgpack", "cbor", "xml", "flatbuffers")
            for p in ("rust", "go") for q in ("rust", "go")}
    assert cells == want, want - cells
    # The lazy modes (bson.Raw, flatc's accessors in Go) read the other's payload in place.
    for codec in ("bson", "flatbuffers"):
        assert {c for c in lazy if c[1] == codec} == {(d, codec, p, q) for d in ("dummy", "media", "matrix")
                                                    for p in ("rust", "go") for q in ("rust", "go")}, lazy


def test_go_worker_times_its_transfer_legs_identity_and_gzip(start_control, procs, tmp_path):
    """Transfer legs go through connect-go's gRPC calls: identity (advertising no compression) and
    gzip, each its own measurement; it announces gzip only (control refuses a zstd leg with no
    worker offering it)."""
    control = start_control()
    start_language_worker(control, procs, "go")
    scenario = write_scenario(tmp_path / "gz.yaml", """
name: go-legs
datasets: [beers]
codecs: [json]
decodeModes: [typed]
counts: [50]
compressions: [identity, gzip]
sampling: {warmupMs: 10, maxWarmupMs: 500, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1}
""")
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    (worker,) = resp.workers
    assert list(worker.compressions) == ["gzip"]
    legs: dict[int, set] = {}
    for m in resp.measurements:
        assert m.verified and not m.failure and m.language == "go", m
        if m.operation in (scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD):
            assert m.payload_bytes > 0 and len(m.round_ns_per_op) == 3, m
            legs.setdefault(m.operation, set()).add(m.compression or "identity")
            # The identity leg carries its raw-TCP baseline (the same bytes over a plain socket).
            assert ("raw_tcp_ns_per_op" in m.extras) == (not m.compression), m
            if not m.compression:
                assert m.extras["raw_tcp_ns_per_op"] > 0, m
    assert legs == {scenario_pb2.OPERATION_UPLOAD: {"identity", "gzip"}, scenario_pb2.OPERATION_DOWNLOAD: {"identity", "gzip"}}, legs


def test_cancel_run_makes_the_go_worker_abandon_its_trial(control, procs):
    """CancelRun sends `abandon`: the worker kills the trial process at once (not at the task's
    timeout), reports nothing, and takes the next run's tasks (test_cancel.py's check, for go)."""
    import threading
    import time

    from codecbench.pb import hs, results as results_pb2
    from test_cancel import scenario, trial_processes

    worker = start_language_worker(control, procs, "go")
    timed, run_ids = threading.Event(), []

    def follow():
        with control.client() as c:
            for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario("go", 100, 1000), source="slow"), timeout=300):
                e = resp.event
                if e.WhichOneof("event") == "run":
                    run_ids.append(e.run.id)
                elif e.WhichOneof("event") == "task" and e.task.status == results_pb2.TASK_STATUS_RUNNING and not e.task.prepare:
                    timed.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert timed.wait(120), "the timed trial never started"
    deadline = time.monotonic() + 30
    while not trial_processes("go", worker.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert trial_processes("go", worker.pid), "the trial runs in a child process of the worker"
    with control.client() as c:
        c.harness.CancelRun(hs.CancelRunRequest(run_id=run_ids[0]), timeout=10)
    cancelled = time.monotonic()
    while trial_processes("go", worker.pid) and time.monotonic() - cancelled < 10:
        time.sleep(0.05)
    assert not trial_processes("go", worker.pid), "the trial process was not killed within 10 s of CancelRun"
    follower.join(30)
    log = "".join(p.read_text(errors="replace") for p in control.logs.glob("go*.log"))
    assert "abandoned" in log and "cancelled" in log, log[-2000:]
    with control.client() as c:
        last = None
        for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario("go", 3, 1), source="quick"), timeout=120):
            if resp.event.WhichOneof("event") == "run":
                last = resp.event.run
    assert last is not None and last.status == results_pb2.RUN_STATUS_FINISHED and last.tasks_failed == 0, last


def test_rust_and_go_decode_each_others_payloads_of_a_users_dataset(tmp_path):
    """A user's dataset (examples/orders, run --local): the Go worker builds its models from the
    descriptor set (go/internal/usermodels) and protobuf's messages with dynamicpb; every codec it
    offers runs it, and Rust and Go decode each other's payloads of it, verified."""
    from conftest import ART, require_rust

    require_rust()
    if (why := ART.missing("go")):
        pytest.skip(f"go worker not built: {why}")
    examples = processes.repo_root() / "examples" / "orders"
    codecs = ("json", "bson", "protobuf", "ubjson", "msgpack", "cbor", "xml")
    scenario = write_scenario(tmp_path / "orders.yaml", f"""
name: go-rust-orders
datasets:
  - {{id: orders, proto: {examples / "order.proto"}, message: acme.shop.v1.Order, records: {examples / "orders.ndjson"}, lazyFields: [orderId, status]}}
codecs: [{", ".join(codecs)}]
decodeModes: [typed, lazy]
counts: [20]
operations: [encode, decode]
sampling: {{warmupMs: 5, maxWarmupMs: 200, rounds: 2, minRoundMs: 1, taskTimeoutS: 120, trials: 1, repeatSameBytes: true}}
""")
    res = run_cli("run", str(scenario), "--local", "--no-progress", "--no-report", "--json", "--languages", "rust,go",
                  env={"CODECBENCH_RESULTS": str(tmp_path / "results")}, timeout=900)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-4000:]
    doc = json.loads(res.stdout)
    assert doc["tasks"] and all(t["status"] == "TASK_STATUS_DONE" for t in doc["tasks"]), [t.get("failure") for t in doc["tasks"]]
    lang = {w["id"]: w["environment"]["language"] for w in doc["workers"]}
    assert sorted(lang.values()) == ["go", "rust"], lang
    assert not [r for r in doc["run"].get("refusals", []) if lang.get(r.get("workerId")) == "go"], doc["run"]["refusals"]
    cells = set()
    for m in doc["measurements"]:
        assert m.get("verified") and not m.get("failure"), m
        if m["operation"] == "OPERATION_DECODE":
            cells.add((m["codec"], m.get("decodeMode", ""), lang[m["producerWorkerId"]], lang[m["consumerWorkerId"]]))
    want = {(c, "typed", p, q) for c in codecs for p in ("rust", "go") for q in ("rust", "go")}
    assert want <= cells, want - cells
    # bson's lazy reads the other's payload of the user's records in place.
    assert {("bson", "lazy", p, q) for p in ("rust", "go") for q in ("rust", "go")} <= cells, cells
