"""A user's own messages, as a user brings them: a .proto no code in codecbench knows and records in
NDJSON, run with `codecbench run --local` across every language and codec. Every cell is verified
or refused with its reason; bad input is one precise line and exit 2 with nothing started."""
from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from conftest import ART, run_cli, write_scenario

LANGUAGES = ("rust", "java", "browser")
# Two lanes (two trials at once, each on its own CPU) where there are two CPUs: verification is
# what this file is for, not the figures, and most of a task is process start-up.
LANES = "2" if len(os.sched_getaffinity(0)) >= 2 else "1"
CODECS = ("json", "bson", "protobuf", "ubjson", "msgpack", "cbor", "xml", "flatbuffers")

PARTS = """syntax = "proto3";
package zz.unknown.v1;
enum Colour { COLOUR_UNSPECIFIED = 0; COLOUR_RED = 1; COLOUR_GREEN = 2; }
message Part { string name = 1; int32 weight = 2; Colour colour = 3; }
"""

# Every proto3 feature: all scalar types, enums, nested and repeated messages, a map, a oneof,
# `optional`, google.protobuf.Timestamp, a second file imported.
EVERYTHING = """syntax = "proto3";
package zz.unknown.v1;
import "google/protobuf/timestamp.proto";
import "parts.proto";
message Everything {
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4; sint32 s32 = 5; sint64 s64 = 6;
  fixed32 f32 = 7; fixed64 f64 = 8; sfixed32 sf32 = 9; sfixed64 sf64 = 10; float fl = 11; double db = 12;
  bool ok = 13; string text = 14; bytes raw = 15;
  Colour colour = 16; Part main = 17; repeated Part parts = 18; map<string, int32> counts = 19;
  oneof choice { string label = 20; int32 code = 21; }
  optional string note = 22; google.protobuf.Timestamp at = 23; repeated string tags = 24;
  // The same features in other shapes: keys that are not strings, values with a rule of their
  // own, a oneof of a Timestamp, bytes, an enum and a message, repeated bytes and floats.
  map<int32, Colour> moods = 25; map<bool, bytes> flags = 26; map<uint64, Part> by_id = 27;
  map<string, google.protobuf.Timestamp> times = 28; repeated bytes blobs = 29; repeated float fs = 30;
  oneof pick { google.protobuf.Timestamp when = 31; bytes blob = 32; Colour mood = 33; Part inner = 34; }
}
// What every codec's payload rules carry: every codec runs it.
message Carried {
  string id = 1; int32 qty = 2; int64 big = 3; double price = 4; bool paid = 5; Colour colour = 6;
  Part main = 7; repeated Part parts = 8; repeated string tags = 9; optional string note = 10; string last = 11;
}
"""

# No package, snake_case names, uint32 and sint32.
PLAIN = """syntax = "proto3";
message plain_row { string row_id = 1; uint32 hit_count = 2; sint32 delta_value = 3; string row_label = 4; }
"""


def _part(r: random.Random) -> dict:
    return {"name": f"p{r.randrange(1000)}-ü", "weight": r.randrange(-5, 500), "colour": r.choice(["COLOUR_RED", "COLOUR_GREEN"])}


def _everything(r: random.Random, i: int) -> dict:
    rec = {"i32": r.randrange(-2**31, 2**31), "i64": str(r.randrange(-2**63, 2**63)), "u32": r.randrange(2**32),
           "u64": str(r.randrange(2**64)), "s32": r.randrange(-100, 100), "s64": str(r.randrange(-2**40, 2**40)),
           "f32": r.randrange(2**32), "f64": str(r.randrange(2**64)), "sf32": r.randrange(-2**31, 2**31),
           "sf64": str(r.randrange(-2**63, 2**63)), "fl": 1.5 * i, "db": r.random() * 1e6, "ok": i % 2 == 0,
           "text": f"record {i} <&> \"q\"", "raw": "AAEC/w==", "colour": "COLOUR_GREEN", "main": _part(r),
           "parts": [_part(r) for _ in range(i % 3)], "counts": {"a": i, "b": -i}, "at": "2026-11-27T10:00:00Z",
           "tags": ["x", "y"][: i % 3]}
    rec["label" if i % 2 else "code"] = f"L{i}" if i % 2 else i
    rec |= {"moods": {str(-i): "COLOUR_RED", "7": "COLOUR_GREEN"}, "flags": {"true": "AAE=", "false": ""},
            "byId": {str(2**64 - 1 - i): _part(r)}, "times": {"a": "2026-01-02T03:04:05.123456789Z"},
            "blobs": ["", "/w=="][: i % 3], "fs": [0.1, 1e-7, 3.4e38][: i % 4]}
    pick = i % 5
    if pick < 4:
        rec[("when", "blob", "mood", "inner")[pick]] = ("2026-11-27T10:00:00.001Z", "AAEC", "COLOUR_RED", _part(r))[pick]
    if i % 4:
        rec["note"] = "" if i % 4 == 1 else f"n{i}"
    return rec


def _carried(r: random.Random, i: int) -> dict:
    rec = {"id": f"c-{i}", "qty": r.randrange(-1000, 1000), "big": str(r.randrange(-2**62, 2**62)),
           "price": round(r.random() * 100, 2) if i % 5 else 3.0, "paid": i % 3 == 0,
           "colour": ["COLOUR_UNSPECIFIED", "COLOUR_RED", "COLOUR_GREEN"][i % 3], "main": _part(r),
           "parts": [_part(r) for _ in range(i % 4)], "tags": [f"t{j}" for j in range(i % 3)], "last": f"end {i} ✓"}
    if i % 2:
        rec["note"] = f"note {i}" if i % 3 else ""
    return rec


def _plain(r: random.Random, i: int) -> dict:
    return {"row_id": f"r{i}", "hit_count": r.randrange(2**32), "delta_value": r.randrange(-2**31, 2**31), "rowLabel": f"label {i}"}


def _write_user_schemas(d: Path) -> None:
    (d / "parts.proto").write_text(PARTS)
    (d / "everything.proto").write_text(EVERYTHING)
    (d / "plain.proto").write_text(PLAIN)
    r = random.Random(30)
    for name, make in (("everything", _everything), ("carried", _carried), ("plain", _plain)):
        (d / f"{name}.ndjson").write_text("".join(json.dumps(make(r, i), ensure_ascii=False) + "\n" for i in range(200)))


def _local_env(tmp_path: Path) -> dict:
    # Results and the stack's folder in the test's own place; the schemas' builds cached with the
    # repo's state, as a user's would be (a rerun does not compile again).
    return {"CODECBENCH_RESULTS": str(tmp_path / "results")}


def test_a_schema_no_code_knows_runs_in_every_language_every_cell_verified_or_refused(tmp_path):
    missing = [f"{k}: {why}" for k in LANGUAGES if (why := ART.missing(k))]
    if missing:
        pytest.skip("not built: " + "; ".join(missing))
    _write_user_schemas(tmp_path)
    scenario = write_scenario(tmp_path / "mine.yaml", f"""
name: a schema no code knows
datasets:
  - {{id: everything, proto: everything.proto, message: zz.unknown.v1.Everything, records: everything.ndjson}}
  - {{id: carried, proto: everything.proto, message: zz.unknown.v1.Carried, records: carried.ndjson, lazyFields: [id, main.name]}}
  - {{id: plain, proto: plain.proto, message: plain_row, records: plain.ndjson, fieldNames: proto}}
codecs: [{", ".join(CODECS)}]
decodeModes: [typed, lazy]
counts: [300]
operations: [encode, decode]
sampling: {{warmupMs: 1, maxWarmupMs: 100, rounds: 1, minRoundMs: 1, taskTimeoutS: 120, trials: 1, repeatSameBytes: true}}
""")
    # Typed and lazy: every schema feature crosses languages in typed; each library's tree of a
    # user's schema is its own unit tests' (UserDatasetTest, user-dataset.test.ts, user_test.go),
    # and cost this run a third of its cells. The languages this test was sized for: run --local
    # would also start every other built worker
    # (the Node worker, whose user datasets test_node_worker.py checks).
    res = run_cli("run", str(scenario), "--local", "--no-progress", "--no-report", "--json",
                  "--languages", ",".join(LANGUAGES), "--lanes", LANES, env=_local_env(tmp_path), timeout=1500)
    assert res.returncode == 0, res.stderr[-4000:]
    doc = json.loads(res.stdout)
    run = doc["run"]
    tasks = doc["tasks"]
    assert tasks and all(t["status"] == "TASK_STATUS_DONE" for t in tasks), [t.get("failure") for t in tasks if t.get("failure")]
    language = {w["id"]: w["environment"]["language"] for w in doc.get("workers", [])}
    refused = run.get("refusals", [])
    for r in refused:
        assert re.match(rf"^{r['codec']}: ", r["reason"]) and "not offered" in r["reason"] or "names no lazy fields" in r["reason"], r

    def refuses(dataset: str, codec: str, worker: str, mode: str = "") -> bool:
        return any(r["dataset"] == dataset and r["codec"] == codec and r.get("workerId", "") in (worker, "")
                   and r.get("decodeMode", "") in ("", mode) for r in refused)

    verified = {(m["dataset"], m["codec"], m.get("producerWorkerId"), m.get("consumerWorkerId", ""), m.get("decodeMode", ""))
                for m in doc["measurements"] if m.get("verified")}
    workers = list(language)
    assert sorted(set(language.values())) == sorted(LANGUAGES)
    for dataset in ("everything", "carried", "plain"):
        for codec in CODECS:
            for p in workers:
                for c in workers:
                    for mode in ("typed",):
                        ok = (dataset, codec, p, c, mode) in verified
                        why = refuses(dataset, codec, p) or refuses(dataset, codec, c, mode)
                        assert ok or why, f"{dataset} × {codec}: {language[p]} → {language[c]} {mode} neither verified nor refused"
    # Protobuf carries every feature, in every language, both ways.
    for dataset in ("everything", "plain"):
        assert {(language[p], language[c]) for (d, k, p, c, m) in verified if d == dataset and k == "protobuf" and c} == \
            {(a, b) for a in LANGUAGES for b in LANGUAGES}
    # Every feature has a payload rule (proto/README.md, "Payloads"): json, msgpack and cbor carry
    # the schema with all of them from every language to every other; bson and ubjson refuse it,
    # in every language, for its uint64 (neither has an unsigned 64-bit integer).
    every_pair = {(a, b) for a in LANGUAGES for b in LANGUAGES}
    for codec in ("json", "msgpack", "cbor"):
        for dataset in ("everything", "plain"):
            pairs = {(language[p], language[c]) for (d, k, p, c, m) in verified if d == dataset and k == codec and c and m == "typed"}
            assert pairs == every_pair, (dataset, codec, every_pair - pairs)
    for codec in ("bson", "ubjson"):
        reasons = {r["workerId"]: r["reason"] for r in refused if r["dataset"] == "everything" and r["codec"] == codec}
        assert set(reasons) == set(workers) and all(re.search(r"(uint64|fixed64) field zz\.unknown\.v1\.Everything\.", x) for x in reasons.values()), reasons
    # xml: Rust's quick-xml refuses the map and the oneof; Java and the browser carry them.
    xml = {(language[p], language[c]) for (d, k, p, c, m) in verified if d == "everything" and k == "xml" and c}
    assert xml == {(a, b) for a in ("java", "browser") for b in ("java", "browser")}, xml
    # A schema of carried features runs every codec from every language to every other.
    carried = {(language[p], language[c], k) for (d, k, p, c, m) in verified if d == "carried" and c}
    assert {k for (_, _, k) in carried} >= set(CODECS) - {"flatbuffers"}, carried

BAD = {
    "does_not_compile": ("broken.proto", "syntax = \"proto3\";\nmessage A {\n  strin x = 1;\n}\n", "A", None,
                         r"broken\.proto does not compile: .*broken\.proto:3:"),
    "message_not_found": ("ok.proto", "syntax = \"proto3\";\npackage p.q;\nmessage Alpha { string a = 1; }\nmessage Beta { int32 b = 1; }\n",
                          "p.q.Gamma", '{"a": "x"}\n', r"message 'p\.q\.Gamma' is not in the schema \(its messages: p\.q\.Alpha, p\.q\.Beta\)"),
    "record_does_not_fit": ("ok.proto", "syntax = \"proto3\";\nmessage Alpha { string a = 1; Beta b = 2; }\nmessage Beta { int32 n = 1; }\n",
                            "Alpha", '{"a": "x"}\n{"a": "y", "b": {"n": "many"}}\n', r"record 2 does not fit Alpha: field b\.n: "),
    "empty_file": ("ok.proto", "syntax = \"proto3\";\nmessage Alpha { string a = 1; }\n", "Alpha", "", r"the records file is empty"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_precise_line_and_exit_2_with_nothing_started(tmp_path, case):
    proto, text, message, records, expected = BAD[case]
    (tmp_path / proto).write_text(text)
    (tmp_path / "r.ndjson").write_text(records if records is not None else '{"a": "x"}\n')
    scenario = write_scenario(tmp_path / "s.yaml", f"""
datasets:
  - {{id: mine, proto: {proto}, message: {message}, records: r.ndjson}}
codecs: [json]
""")
    state = tmp_path / "state"
    res = run_cli("run", str(scenario), "--local", "--no-progress", env={"CODECBENCH_STATE": str(state)}, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert re.search(expected, res.stderr), res.stderr
    assert not (state / "local").exists(), "nothing is started for a bad input"


def test_a_records_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    from codecbench import userdata

    (tmp_path / "ok.proto").write_text("syntax = \"proto3\";\nmessage Alpha { string a = 1; }\n")
    big = tmp_path / "big.ndjson"
    with open(big, "wb") as f:  # sparse: nothing is written, the size is what counts
        f.truncate(userdata.MAX_RECORDS_BYTES + 1)
    scenario = write_scenario(tmp_path / "s.yaml", """
datasets:
  - {id: big, proto: ok.proto, message: Alpha, records: big.ndjson}
codecs: [json]
""")
    res = run_cli("validate", str(scenario))
    assert res.returncode == 2
    assert f"{userdata.MAX_RECORDS_BYTES:,}-byte limit for a records file" in res.stderr, res.stderr
    assert os.path.getsize(big) > userdata.MAX_RECORDS_BYTES
