"""One run across every language: Rust, Java and browser workers attached to one control, every
codec, every producer × consumer pair — each payload decoded by every language and verified."""
from __future__ import annotations

from itertools import product

import pytest

from codecbench import processes
from codecbench.client import wait_for_workers
from codecbench.pb import scenario as scenario_pb2
from conftest import ART, run_every_task_done, write_scenario

LANGUAGES = ("rust", "java", "browser")
CODECS = ("json", "bson", "protobuf", "ubjson", "msgpack", "cbor", "xml", "flatbuffers")


@pytest.fixture
def every_worker(control, procs):
    missing = [f"{kind}: {why}" for kind in ("java", "browser") if (why := ART.missing(kind))]
    if missing:
        pytest.skip("not built: " + "; ".join(missing) + " (the Makefile builds them before tests)")
    for kind in LANGUAGES:
        procs.append(processes.start_worker(ART, kind, control.addr, control.logs / f"{kind}.log"))
    with control.client() as c:
        return wait_for_workers(c, list(LANGUAGES), 120)


def test_every_codec_every_producer_to_every_consumer(control, every_worker, tmp_path):
    scenario = write_scenario(tmp_path / "all.yaml", f"""
name: all-languages
datasets: [owners]
codecs: [{", ".join(CODECS)}]
decodeModes: [typed]
counts: [5]
operations: [encode, decode]
sampling: {{warmupMs: 10, maxWarmupMs: 1000, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1}}
""")
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    language = {w.id: w.environment.language for w in every_worker}
    decoded = set()
    for m in resp.measurements:
        assert m.verified and not m.failure, m
        if m.operation == scenario_pb2.OPERATION_DECODE:
            decoded.add((language[m.producer_worker_id], language[m.consumer_worker_id], m.codec))
    assert decoded == set(product(LANGUAGES, LANGUAGES, CODECS))
    # Every language says where each task's time went (proto/README.md "Where the time goes"):
    # the attached process's total and fetch, its trial process's load and verify, and for a
    # timed trial the fresh process around its warm-up and rounds.
    by_worker = {w.id: w.environment.language for w in every_worker}
    for t in resp.tasks:
        ph, lang = t.phase_ms, by_worker[t.producer_worker_id if t.operation == scenario_pb2.OPERATION_ENCODE else t.consumer_worker_id]
        assert {"total", "fetch", "load", "verify"} <= set(ph), (lang, t)
        if not t.prepare:
            assert ph["warmup"] > 0 and ph["rounds"] > 0 and ph["process"] >= ph["warmup"] + ph["rounds"], (lang, t)
            assert ph["total"] >= ph["process"], (lang, t)


def test_each_language_times_the_compressions_it_offers(control, every_worker, tmp_path):
    """Scenario.compressions across real workers: Rust times identity, gzip and zstd legs, Java
    identity and gzip (grpc-java ships no zstd; its identity calls advertise nothing, so control
    answers them plainly, or its empty decompressor registry would fail the call), the browser
    identity only; every leg verified, every task done."""
    scenario = write_scenario(tmp_path / "gz.yaml", """
name: compressed-legs
datasets: [beers]
codecs: [json]
decodeModes: [typed]
counts: [50]
compressions: [identity, gzip, zstd]
sampling: {warmupMs: 10, maxWarmupMs: 1000, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1}
""")
    resp = run_every_task_done(control, scenario, tmp_path / "out")
    language = {w.id: w.environment.language for w in every_worker}
    legs: dict[tuple, set] = {}
    for m in resp.measurements:
        assert m.verified and not m.failure, m
        if m.operation in (scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD):
            legs.setdefault((language[m.worker_id], m.operation), set()).add(m.compression or "identity")
    offered = {"rust": {"identity", "gzip", "zstd"}, "java": {"identity", "gzip"}, "browser": {"identity"}}
    assert legs == {(lang, op): offered[lang] for lang in LANGUAGES
                    for op in (scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD)}
