"""The scenario library (harness/scenarios/): every file validates and says what question it
answers; the small ones run against control and the Rust worker and produce a report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from codecbench import catalogue, processes, scenario

from conftest import run_cli

LIBRARY = processes.repo_root() / "harness" / "scenarios"
EXPECTED = {"quick.yaml", "aa.yaml", "json-vs-bson.yaml", "json-vs-bson-full.yaml", "owners.yaml", "docs.yaml",
            "beers.yaml", "beers-3g.yaml", "beers-3g-gzip.yaml", "matrix.yaml", "matrix-big.yaml"}
# Short sampling: these tests check that a scenario runs and reports, not its numbers.
FAST = ["--rounds", "5", "--warmup-ms", "5", "--min-round-ms", "1", "--trials", "2", "--max-warmup-ms", "500",
        "--no-progress"]


def test_the_library_holds_the_published_studies():
    assert EXPECTED <= {p.name for p in LIBRARY.glob("*.yaml")}


# The full sweep expands past control's task cap (its comment says so): validate refuses it.
TOO_BIG = {"json-vs-bson-full.yaml"}


def _load_or_read(path: Path):
    """The scenario message; for TOO_BIG, checked to be refused for its task count and read as written."""
    if path.name not in TOO_BIG:
        return scenario.load(path).message
    with pytest.raises(scenario.ScenarioError, match="at most 20,000 are allowed"):
        scenario.load(path)
    import yaml
    from google.protobuf import json_format
    data = yaml.safe_load(path.read_text())
    data["operations"] = [scenario.OPERATIONS[o] for o in data.get("operations", [])]
    return json_format.ParseDict(data, scenario.scenario_pb2.Scenario())


@pytest.mark.parametrize("path", sorted(LIBRARY.glob("*.yaml")), ids=lambda p: p.name)
def test_every_scenario_validates_and_says_what_it_answers(path: Path):
    s = _load_or_read(path)
    assert s.name and s.description and s.datasets and s.codecs and s.counts
    head = path.read_text().splitlines()[0]
    assert head.startswith("# "), f"{path.name} starts with a comment saying what question it answers"
    comment = "\n".join(line for line in path.read_text().splitlines() if line.startswith("#"))
    assert "?" in comment, f"{path.name}: the top comment asks its question"


def test_library_contents():
    load = lambda name: scenario.load(LIBRARY / name).message  # noqa: E731
    jb = load("json-vs-bson.yaml")
    assert set(jb.datasets) == {"dummy", "numeric"} and set(jb.codecs) == {"json", "bson"}
    assert set(jb.decode_modes) == {"typed", "lazy"}
    assert min(jb.counts) == 500 and max(jb.counts) == 100_000 and 8 <= len(jb.counts) <= 12
    assert not jb.producers and not jb.consumers, "every attached worker produces and consumes"
    full = _load_or_read(LIBRARY / "json-vs-bson-full.yaml")
    assert list(full.counts) == list(range(500, 100_001, 500))
    owners = load("owners.yaml")
    assert list(owners.counts) == [100, 400, 850, 1700, 3400, 6785]
    assert set(owners.codecs) == {"xml", "json", "protobuf"} and len(owners.operations) == 3  # with transfer
    docs = load("docs.yaml")
    assert set(docs.codecs) == {"json", "protobuf", "flatbuffers", "msgpack"} and 1 in docs.counts and max(docs.counts) <= 10
    beers = load("beers.yaml")
    assert set(beers.codecs) == {"json", "protobuf"} and min(beers.counts) == 1 and max(beers.counts) == 100
    assert len(beers.operations) == 3
    g3 = load("beers-3g.yaml")  # the same question on a 3G link, Rust service → browser client
    assert g3.network.profile == "3g" and set(g3.codecs) == set(beers.codecs) and len(g3.operations) == 3
    assert list(g3.producers) == ["rust"] and list(g3.consumers) == ["browser"]
    gz = load("beers-3g-gzip.yaml")  # compressed JSON vs Protobuf on 3G, for consumers that can compress
    assert gz.network.profile == "3g" and list(gz.compressions) == ["identity", "gzip", "zstd"]
    assert list(gz.producers) == ["rust"] and set(gz.consumers) == {"rust", "java"}
    matrix = load("matrix.yaml")
    # Every format of the catalogue (another implementation of a format comes with it).
    assert set(matrix.codecs) == {c["id"] for c in catalogue.load(catalogue.default_path()) if "/" not in c["id"]}
    assert list(matrix.counts) == [750, 3000, 12000, 52400]  # up to ~82 MiB as JSON
    assert "streaming" in matrix.decode_modes
    big = load("matrix-big.yaml")
    assert list(big.counts) == [63900] and set(big.codecs) == set(matrix.codecs)  # ~100 MiB as JSON


@pytest.mark.parametrize("name, counts, sections", [
    ("docs.yaml", "1,10", ["docs-size", "docs-encode", "docs-decode", "docs-matrix", "docs-e2e"]),
    ("beers.yaml", "1,10", ["beers-size", "beers-encode", "beers-decode", "beers-matrix", "beers-e2e"]),
    ("owners.yaml", "100", ["owners-size", "owners-e2e"]),
])
def test_small_scenarios_run_and_report(name, counts, sections, control, rust_worker, tmp_path):
    out = tmp_path / "results"
    res = run_cli("--control", control.addr, "run", str(LIBRARY / name), "--counts", counts, *FAST,
                  "--results-dir", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"counts {counts}" in res.stderr, "the override is said"
    run_dir = next(out.iterdir())
    last = res.stdout.strip().splitlines()[-1]
    assert last == f"report: {run_dir / 'report.html'}", last
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    for s in sections:
        assert f'id="{s}"' in html, s
    assert 'id="failures"' not in html, "every cell verified: no Failures section"
    summary = pd.read_csv(run_dir / "summary.csv")
    assert summary["verified"].all()
    assert sorted(summary["record_count"].unique()) == [int(c) for c in counts.split(",")]
    # Encode + upload + download + decode per producer → consumer cell.
    assert summary["end_to_end_ns_per_op"].notna().all()
    assert (run_dir / "report.md").exists()


def test_transfer_legs_are_timed_per_compression_and_reported(control, rust_worker, tmp_path):
    """Scenario.compressions end to end: each leg once per compression, identity joined into end to
    end, the compressed legs in a table of their own."""
    from codecbench import results

    path = tmp_path / "gz.yaml"
    path.write_text("name: gz\ndescription: compressed legs?\ndatasets: [beers]\ncodecs: [json, protobuf]\n"
                    "decodeModes: [typed]\ncounts: [100]\ncompressions: [identity, gzip, zstd]\n")
    out = tmp_path / "results"
    res = run_cli("--control", control.addr, "run", str(path), *FAST, "--results-dir", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    run_dir = next(out.iterdir())
    df = results.read_measurements(run_dir)
    legs = df[df["operation"].isin(["upload", "download"])]
    assert set(zip(legs["operation"], legs["compression"])) == {
        (op, c) for op in ("upload", "download") for c in ("", "gzip", "zstd")}
    assert (legs["failure"] == "").all() and legs["verified"].all()
    summary = pd.read_csv(run_dir / "summary.csv")
    assert summary["verified"].all() and summary["end_to_end_ns_per_op"].notna().all()
    comp = results.compression_frame(results.cells_frame(df))
    assert set(comp["compression"]) == {"identity", "gzip", "zstd"}
    json_gz = comp[(comp["codec"] == "json") & (comp["compression"] == "gzip")]
    assert (json_gz["wire_estimate_bytes"] < json_gz["payload_bytes"] / 2).all(), "beers JSON gzips well"
    assert comp[comp["compression"] != "identity"]["vs_identity"].notna().all()
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert 'id="beers-compression"' in html


def test_a_bad_override_is_a_scenario_mistake(tmp_path):
    res = run_cli("--control", "127.0.0.1:9", "run", str(LIBRARY / "docs.yaml"), "--counts", "1,x")
    assert res.returncode == 2 and "--counts" in res.stderr
    res = run_cli("--control", "127.0.0.1:9", "run", str(LIBRARY / "docs.yaml"), "--counts", "0")
    assert res.returncode == 2 and "counts" in res.stderr
