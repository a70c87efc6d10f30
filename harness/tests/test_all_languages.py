"""One run across every language: Rust, Java, browser, Node and Go workers, every codec each offers
(codecs/catalogue.yaml), every producer × consumer pair — each payload decoded by every language
that offers its codec and verified — on a built-in dataset and on a user's (examples/orders, where
a codec a language cannot build for a user's schema is refused in the plan, never failed), in one
run so the five workers start once."""
from __future__ import annotations

import json
import os
from itertools import product

import pytest

from codecbench import catalogue, processes
from codecbench.client import wait_for_workers
from codecbench.pb import scenario as scenario_pb2
from conftest import ART, require_rust, run_cli, run_every_task_done, write_scenario

LANGUAGES = ("rust", "java", "browser", "node", "go")
# The codecs each language offers, as the catalogue lists them.
OFFERED = {lang: {c["id"] for c in catalogue.load(catalogue.default_path()) if lang in c["implementations"]}
           for lang in LANGUAGES}
CODECS = sorted(set().union(*OFFERED.values()))
# Tiny: verification is what these tests are for, not the figures. Two lanes (two workers' trials
# at once, each on its own CPU) where there are two CPUs: most of a task here is process start-up.
# repeatSameBytes: every producer's payload decoded by every consumer even where the bytes are the
# same (by default those are decoded once per consumer): the cross cells are the point here.
SAMPLING = "{warmupMs: 1, maxWarmupMs: 100, rounds: 2, minRoundMs: 1, taskTimeoutS: 120, trials: 1, repeatSameBytes: true}"
LANES = "2" if len(os.sched_getaffinity(0)) >= 2 else "1"


def _skip_unbuilt(languages) -> None:
    missing = [f"{kind}: {why}" for kind in languages if (why := ART.missing(kind))]
    if missing:
        pytest.skip("not built: " + "; ".join(missing) + " (the Makefile builds them before tests)")


def _attach(control, procs, languages):
    _skip_unbuilt(languages)
    for kind in languages:
        procs.append(processes.start_worker(ART, kind, control.addr, control.logs / f"{kind}.log"))
    with control.client() as c:
        return wait_for_workers(c, list(languages), 120)


def _format(codec: str) -> str:
    return codec.split("/", 1)[0]


def _cells(languages, refused=frozenset()):
    """Every (producer, consumer, writer, decoder): each implementation a producer offers writes a
    payload, each implementation of its format a consumer offers decodes it (go's json/v2 reads
    every json, every json reads go's json/v2), less a codec either side refuses."""
    return {(p, c, w, k) for p, c in product(languages, languages) for w in OFFERED[p] for k in OFFERED[c]
            if _format(w) == _format(k) and (p, w) not in refused and (c, k) not in refused}


def test_each_language_times_the_compressions_it_offers(control, procs, tmp_path):
    """Scenario.compressions across real workers: Rust times identity, gzip and zstd legs, Java
    identity and gzip (grpc-java ships no zstd; its identity calls advertise nothing, so control
    answers them plainly, or its empty decompressor registry would fail the call), the browser
    identity only; every leg verified, every task done. (Go's identity and gzip legs and Node's
    identity legs: test_go_worker.py, test_node_worker.py.)"""
    languages = ("rust", "java", "browser")
    every_worker = _attach(control, procs, languages)
    scenario = write_scenario(tmp_path / "gz.yaml", """
name: compressed-legs
datasets: [beers]
codecs: [json]
decodeModes: [typed]
counts: [50]
compressions: [identity, gzip, zstd]
sampling: {warmupMs: 10, maxWarmupMs: 1000, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1, repeatSameBytes: true}
""")
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    language = {w.id: w.environment.language for w in every_worker}
    legs: dict[tuple, set] = {}
    for m in resp.measurements:
        assert m.verified and not m.failure, m
        if m.operation in (scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD):
            legs.setdefault((language[m.worker_id], m.operation), set()).add(m.compression or "identity")
    offered = {"rust": {"identity", "gzip", "zstd"}, "java": {"identity", "gzip"}, "browser": {"identity"}}
    assert legs == {(lang, op): offered[lang] for lang in languages
                    for op in (scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD)}


def test_every_codec_every_producer_to_every_consumer_on_a_built_in_and_a_users_dataset(tmp_path):
    """owners and examples/orders in one `run --local` with all five workers. Rust and Go refuse
    flatbuffers for a user's schema (their tables are flatc's of datasets.proto:
    docs/ADDING_A_DATASET.md, go/README.md); nothing else is refused. The orders entry is
    test_go_worker.py's, so both share the Rust worker built for it (cached in .state/schemas/).
    The scenario names formats (`json/*`): control expands each to every implementation offered."""
    require_rust()
    _skip_unbuilt(LANGUAGES)
    examples = processes.repo_root() / "examples" / "orders"
    scenario = write_scenario(tmp_path / "all.yaml", f"""
name: all-languages
datasets:
  - owners
  - {{id: orders, proto: {examples / "order.proto"}, message: acme.shop.v1.Order, records: {examples / "orders.ndjson"}, lazyFields: [orderId, status]}}
codecs: [{", ".join(sorted({_format(c) + "/*" for c in CODECS}))}]
decodeModes: [typed]
counts: [5]
operations: [encode, decode]
sampling: {SAMPLING}
""")
    res = run_cli("run", str(scenario), "--local", "--no-progress", "--no-report", "--json", "--languages", ",".join(LANGUAGES), "--lanes", LANES,
                  env={"CODECBENCH_RESULTS": str(tmp_path / "results")}, timeout=900)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-4000:]
    doc = json.loads(res.stdout)
    assert doc["tasks"] and all(t["status"] == "TASK_STATUS_DONE" for t in doc["tasks"]), [t.get("failure") for t in doc["tasks"]]
    language = {w["id"]: w["environment"]["language"] for w in doc["workers"]}
    assert sorted(language.values()) == sorted(LANGUAGES), language
    # Each json/* became the reference json first, then the other implementations by id.
    codecs = doc["run"]["scenario"]["codecs"]
    assert sorted(codecs) == CODECS and codecs.index("json") < codecs.index("json/gson") < codecs.index("json/v2"), codecs
    refused = {(language.get(r.get("workerId", ""), "control"), r["codec"]) for r in doc["run"].get("refusals", [])}
    assert refused == {("rust", "flatbuffers"), ("go", "flatbuffers")}, doc["run"]["refusals"]
    assert all(r["dataset"] == "orders" and r["reason"].startswith("flatbuffers: ") for r in doc["run"]["refusals"])
    decoded = {"owners": set(), "orders": set()}
    for m in doc["measurements"]:
        assert m.get("verified") and not m.get("failure"), m
        if m["operation"] == "OPERATION_DECODE":
            decoded[m["dataset"]].add((language[m["producerWorkerId"]], language[m["consumerWorkerId"]],
                                       m.get("payloadCodec") or m["codec"], m["codec"]))
    assert decoded["owners"] == _cells(LANGUAGES), _cells(LANGUAGES) ^ decoded["owners"]
    want = _cells(LANGUAGES, refused)
    assert decoded["orders"] == want, want ^ decoded["orders"]
    # Refused, not dropped: Java, the browser and Node still carry flatbuffers among themselves.
    assert {(p, c) for p, c, w, k in decoded["orders"] if k == "flatbuffers"} == set(product(("java", "browser", "node"), repeat=2))
    # A second implementation of a format is checked against every language's: go's json/v2 payload
    # read by every json, and every language's json payload read by go's json/v2.
    # So are Java's Gson and Rust's simd-json against every language's json, and msgpackr (browser
    # and node) against every language's msgpack.
    for lang in LANGUAGES:
        assert ("go", lang, "json/v2", "json") in decoded["owners"] and (lang, "go", "json", "json/v2") in decoded["owners"], lang
        for ds in ("owners", "orders"):
            assert ("java", lang, "json/gson", "json") in decoded[ds] and (lang, "java", "json", "json/gson") in decoded[ds], (ds, lang)
            assert ("rust", lang, "json/simd-json", "json") in decoded[ds] and (lang, "rust", "json", "json/simd-json") in decoded[ds], (ds, lang)
        for js in ("browser", "node"):
            assert (js, lang, "msgpack/msgpackr", "msgpack") in decoded["owners"] and (lang, js, "msgpack", "msgpack/msgpackr") in decoded["owners"], (js, lang)
    # Every language says where each task's time went (proto/README.md "Where the time goes"):
    # the attached process's total and fetch, its trial process's load and verify, and for a
    # timed trial the fresh process around its warm-up and rounds.
    for t in doc["tasks"]:
        ph = t.get("phaseMs", {})
        lang = language[t["producerWorkerId"] if t["operation"] == "OPERATION_ENCODE" else t["consumerWorkerId"]]
        assert {"total", "fetch", "load", "verify"} <= set(ph), (lang, t)
        if not t.get("prepare"):
            assert ph["warmup"] > 0 and ph["rounds"] > 0 and ph["process"] >= ph["warmup"] + ph["rounds"], (lang, t)
            assert ph["total"] >= ph["process"], (lang, t)
