"""`codecbench codecs`: the codec × language matrix of attached workers, checked against
codecs/catalogue.yaml. The real Rust worker, plus a fake worker that says it is Java and announces
json with the wrong library and a codec the catalogue does not know."""

from __future__ import annotations

import json

import yaml

from codecbench import catalogue, processes

from conftest import run_cli

CATALOGUE = processes.repo_root() / "codecs" / "catalogue.yaml"


def catalogue_ids() -> list[str]:
    return [c["id"] for c in yaml.safe_load(CATALOGUE.read_text())["codecs"]]


def catalogue_errors() -> list[str]:
    return [e for c in catalogue.load(CATALOGUE) for e in c["_errors"]]


def test_the_repo_catalogue_is_well_formed():
    assert catalogue_errors() == []


def test_rust_alone_matches_the_catalogue(control, rust_worker):
    res = run_cli("--control", control.addr, "codecs", "--json", "--check")
    doc = json.loads(res.stdout)
    broken = {p["codec"] for p in doc["problems"] if p["kind"] == "catalogue-error"}
    assert not broken
    assert res.returncode == 0, res.stdout + res.stderr
    assert doc["attachedLanguages"] == ["rust"]
    ids = [c["id"] for c in doc["codecs"]]
    assert ids[: len(catalogue_ids())] == catalogue_ids()
    # Every other language of the catalogue (java, browser, node) has no worker here.
    others = [lang for lang in catalogue.LANGUAGES if lang != "rust"]
    entries = {x["id"]: x for x in catalogue.load(CATALOGUE)}
    for c in doc["codecs"]:
        rust = c["languages"]["rust"]
        if "rust" not in entries[c["id"]]["implementations"]:
            # An implementation in another language only (go's json/v2).
            assert rust["status"] == "absent", (c["id"], rust)
            continue
        assert rust["status"] == "ok" or c["id"] in broken, (c["id"], rust)
        assert rust["library"] and rust["version"] and rust["modes"] and rust["workers"] == ["rust-1"]
        for lang in others:
            # A language the catalogue gives no implementation of this codec (go has no ubjson yet)
            # shows it absent; one that has it, no worker.
            listed = lang in next(x for x in catalogue.load(CATALOGUE) if x["id"] == c["id"])["implementations"]
            assert c["languages"][lang]["status"] == ("no-worker" if listed else "absent"), (c["id"], lang)
    kinds = {(p["kind"], p["language"]) for p in doc["problems"] if p["codec"] not in broken}
    assert kinds == {("no-worker", lang) for lang in others}
    table = run_cli("--control", control.addr, "codecs")
    assert table.returncode == 0
    assert "no java worker attached" in table.stdout and "no browser worker attached" in table.stdout
    assert "serde_json" in table.stdout and "prost" in table.stdout


def test_unknown_codec_missing_implementation_and_library_mismatch(control, rust_worker, fake_worker):
    fake_worker("hang", "fake", "--language", "java", "--codecs", "json,zstdjson")
    res = run_cli("--control", control.addr, "codecs", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["attachedLanguages"] == ["rust", "java"]
    by_id = {c["id"]: c for c in doc["codecs"]}
    assert by_id["zstdjson"]["inCatalogue"] is False
    assert by_id["zstdjson"]["languages"]["java"]["status"] == "unknown-codec"
    java_json = by_id["json"]["languages"]["java"]
    assert java_json["status"] == "mismatch" and java_json["library"] == "fake"
    assert java_json["catalogueLibrary"] == "jackson-databind"
    java_codecs = {x["id"]: x["implementations"] for x in catalogue.load(CATALOGUE) if "java" in x["implementations"] and x["id"] != "json"}
    assert java_codecs
    for codec, implementations in java_codecs.items():
        assert by_id[codec]["languages"]["java"]["status"] == "missing", codec
        assert by_id[codec]["languages"]["browser"]["status"] == ("no-worker" if "browser" in implementations else "absent"), codec
    kinds = {(p["kind"], p["codec"], p["language"]) for p in doc["problems"]}
    assert ("unknown-codec", "zstdjson", "java") in kinds
    assert ("library-mismatch", "json", "java") in kinds
    assert ("missing", "protobuf", "java") in kinds
    assert ("no-worker", "", "browser") in kinds
    assert ("missing", "json", "rust") not in kinds
    rust_ids = [c["id"] for c in catalogue.load(CATALOGUE) if "rust" in c["implementations"]]
    assert len(doc["offers"]) == len(rust_ids) + 2  # every codec of rust-1's, two from the fake

    table = run_cli("--control", control.addr, "codecs")
    out = table.stdout
    assert "zstdjson" in out and "not in catalogue" in out
    assert "zstdjson: announced by java-1" in out or "announced by fake-1" in out
    assert "catalogue says jackson-databind" in out
    assert "protobuf in java: in the catalogue (protobuf-java) but no attached java worker announces it" in out
    assert "no browser worker attached" in out
    check = run_cli("--control", control.addr, "codecs", "--check")
    assert check.returncode == 1


def test_a_split_value_in_the_catalogue_is_reported(tmp_path):
    path = tmp_path / "catalogue.yaml"
    path.write_text("codecs:\n  - id: ubjson\n    implementations:\n"
                    "      rust: {library: mine (project-owned, Draft 12), modes: [typed]}\n")
    cat = catalogue.load(path)
    assert cat[0]["implementations"]["rust"]["library"] == "mine (project-owned"
    error, no_regions = cat[0]["_errors"]
    assert "unexpected key 'Draft 12)'" in error and "quote it" in error
    assert "ubjson / rust: no timedRegions list" in no_regions


def test_timed_regions_are_one_per_operation_in_order_from_the_proto_vocabulary(tmp_path):
    path = tmp_path / "catalogue.yaml"
    path.write_text(
        "codecs:\n  - id: json\n    implementations:\n"
        "      rust:\n        library: serde_json\n        modes: [typed, streaming]\n        timedRegions:\n"
        "          - {operation: encode, contains: [serialize]}\n"
        "          - {operation: typed, contains: [parse, magic], note: x}\n"
        "          - {operation: streaming, contains: [parse], notes: x}\n"
        "      node: {library: x, modes: [typed], timedRegions: []}\n")
    errors = catalogue.load(path)[0]["_errors"]
    assert any("json / rust: timed region 'typed' contains ['magic'], not in results.proto's" in e for e in errors), errors
    assert any("timed region 'streaming' has unexpected keys ['notes']" in e for e in errors), errors
    assert any("should be ['encode', 'typed', 'encode streaming', 'streaming']" in e for e in errors), errors
    assert any("json / node: a node entry has no timedRegions" in e for e in errors), errors


def test_library_names_match_loosely():
    assert catalogue.library_matches("serde_json", "serde_json")
    assert catalogue.library_matches("Serde_JSON 1.0", "serde_json")
    assert not catalogue.library_matches("fake", "jackson-databind")
