"""A user's own schema and records: `codecbench datasets --proto --message --records` reads them in
the proto3 JSON mapping, sizes the json and protobuf payloads, names what each codec refuses,
and refuses each kind of bad input with a precise line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecbench import datasets, userdata
from codecbench.cli import main
from codecbench.pb import datasets as datasets_pb2
from codecbench.scenario import EXIT_INVALID

REPO = Path(__file__).resolve().parents[2]

# A package no code knows, every proto3 feature a real schema uses, two files with an import.
COMMON = """syntax = "proto3";
package zz.unknown.common.v7;
enum Tier { TIER_UNSPECIFIED = 0; TIER_GOLD = 1; TIER_SILVER = 2; }
message Money { string currency = 1; sint64 micros = 2; }
"""
ORDER = """syntax = "proto3";
package zz.unknown.shop.v7;
import "common.proto";
import "google/protobuf/timestamp.proto";
message Order {
  message Line { string sku = 1; uint32 qty = 2; zz.unknown.common.v7.Money price = 3; }
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4; sint32 s32 = 5; sint64 s64 = 6;
  fixed32 f32 = 7; fixed64 f64 = 8; sfixed32 sf32 = 9; sfixed64 sf64 = 10;
  float fl = 11; double db = 12; bool ok = 13; string name = 14; bytes raw = 15;
  zz.unknown.common.v7.Tier tier = 16;
  repeated Line lines = 17;
  map<string, int64> attributes = 18;
  oneof payment { string card = 19; string iban = 20; }
  optional string note = 21;
  google.protobuf.Timestamp placed_at = 22;
}
"""


def record(i: int) -> dict:
    r = {"i32": -i, "i64": str(2**40 + i), "u32": i, "u64": str(2**63 + i), "s32": -3 * i, "s64": -(2**35),
         "f32": i, "f64": "7", "sf32": -i, "sf64": "-9", "fl": 1.5, "db": i / 7, "ok": i % 2 == 0,
         "name": f"Zoë 李 {i}", "raw": "AAEC", "tier": "TIER_GOLD" if i % 2 else "TIER_SILVER",
         "lines": [{"sku": f"s{i}", "qty": 2, "price": {"currency": "EUR", "micros": "1500000"}}],
         "attributes": {"a": "1"}, "placedAt": "2026-11-27T10:00:00Z"}
    r["card" if i % 3 else "iban"] = "x"
    if i % 2:
        r["note"] = ""  # set to its default: still set
    if i % 5 == 0:
        r["placed_at"] = r.pop("placedAt")  # the .proto's own name is accepted too
    return r


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    (tmp_path / "common.proto").write_text(COMMON)
    (tmp_path / "order.proto").write_text(ORDER)
    (tmp_path / "orders.ndjson").write_text("".join(json.dumps(record(i), ensure_ascii=False) + "\n" for i in range(200)))
    return tmp_path


def test_a_schema_no_code_knows_is_read_sized_and_what_each_codec_refuses_is_named(schema, capsys):
    args = ["datasets", "--proto", str(schema / "order.proto"), "--message", "zz.unknown.shop.v7.Order",
            "--records", str(schema / "orders.ndjson"), "--json"]
    assert main(args) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["id"] == "orders" and row["message"] == "zz.unknown.shop.v7.Order"
    assert row["fields"][:2] == ["i32", "i64"] and "placedAt" in row["fields"]
    # Every feature has a payload rule (proto/README.md): only bson and ubjson refuse, for uint64.
    assert row["protobufBytesPerRecord"] > 0 and row["jsonBytesPerRecord"] > row["protobufBytesPerRecord"]
    assert row["notOffered"] == {c: ["uint64 field zz.unknown.shop.v7.Order.u64", "fixed64 field zz.unknown.shop.v7.Order.f64"]
                                 for c in ("bson", "ubjson")}
    # The json payload as the workers write it: bytes in base64, a Timestamp in RFC 3339, a map
    # as an object, a oneof's set member alone, a uint64 as a number.
    loaded = userdata.load("orders", schema / "order.proto", "zz.unknown.shop.v7.Order", schema / "orders.ndjson")
    first = json.loads(userdata.payload_json(loaded.records[:2]))["records"]
    assert first[1]["raw"] == "AAEC" and first[1]["placedAt"] == "2026-11-27T10:00:00Z"
    assert first[1]["attributes"] == {"a": 1} and first[1]["u64"] == 2**63 + 1 and first[1]["fl"] == 1.5
    assert ("card" in first[1], "iban" in first[1], "iban" in first[0]) == (True, False, True)
    # Presence survives: the optional note is set (to "") on odd records only.
    assert [r.HasField("note") for r in loaded.records[:4]] == [False, True, False, True]
    assert loaded.records[5].placed_at.seconds == loaded.records[1].placed_at.seconds > 0


def test_a_package_less_file_with_snake_case_and_small_unsigned_fields(tmp_path: Path, capsys):
    (tmp_path / "reading.proto").write_text(
        'syntax = "proto3";\nmessage sensor_reading { uint32 device_id = 1; sint32 delta_c = 2; string site_name = 3; }\n')
    (tmp_path / "r.json").write_text(json.dumps([{"device_id": 7, "delta_c": -3, "site_name": "Kraków"},
                                                 {"deviceId": 8, "deltaC": 4, "siteName": "Åre"}]))
    assert main(["datasets", "--proto", str(tmp_path / "reading.proto"), "--message", "sensor_reading",
                 "--records", str(tmp_path / "r.json"), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["fields"] == ["deviceId", "deltaC", "siteName"] and row["jsonBytesPerRecord"] > 0
    assert "notOffered" not in row


def run_bad(tmp_path, capsys, proto_text, records_text, message="a.B"):
    (tmp_path / "s.proto").write_text(proto_text)
    (tmp_path / "r.ndjson").write_text(records_text)
    code = main(["datasets", "--proto", str(tmp_path / "s.proto"), "--message", message, "--records", str(tmp_path / "r.ndjson")])
    return code, capsys.readouterr().err


GOOD_PROTO = 'syntax = "proto3";\npackage a;\nmessage B { int32 n = 1; repeated C cs = 2; }\nmessage C { string s = 1; }\n'


def test_each_kind_of_bad_input_is_named_with_exit_2(tmp_path, capsys, monkeypatch):
    code, err = run_bad(tmp_path, capsys, 'syntax = "proto3";\npackage a;\nmessage B {\n  int32 n = 1\n}\n', '{"n": 1}\n')
    assert code == EXIT_INVALID and "does not compile" in err and "s.proto:5:1" in err, err
    code, err = run_bad(tmp_path, capsys, GOOD_PROTO, '{"n": 1}\n', message="a.Order")
    assert code == EXIT_INVALID and "message 'a.Order' is not in the schema (its messages: a.B, a.C)" in err, err
    code, err = run_bad(tmp_path, capsys, GOOD_PROTO, '{"n": 1}\n{"n": 2, "cs": [{"s": 3}]}\n')
    assert code == EXIT_INVALID and "record 2 does not fit a.B: field cs.s:" in err, err
    code, err = run_bad(tmp_path, capsys, GOOD_PROTO, '{"n": 1}\n{"nn": 2}\n')
    assert code == EXIT_INVALID and "record 2 does not fit a.B" in err and 'no field named "nn"' in err, err
    code, err = run_bad(tmp_path, capsys, GOOD_PROTO, '{"n": 1}\n{"n": \n')
    assert code == EXIT_INVALID and "r.ndjson:2:" in err and "record 2 is not JSON" in err, err
    code, err = run_bad(tmp_path, capsys, GOOD_PROTO, "\n  \n")
    assert code == EXIT_INVALID and "the records file is empty" in err, err
    monkeypatch.setattr(userdata, "MAX_RECORDS_BYTES", 10)
    code, err = run_bad(tmp_path, capsys, GOOD_PROTO, '{"n": 1}\n{"n": 2}\n')
    assert code == EXIT_INVALID and "18 bytes is over the 10-byte limit" in err, err
    assert main(["datasets", "--proto", str(tmp_path / "s.proto")]) == EXIT_INVALID
    assert "needs --proto, --message and --records" in capsys.readouterr().err


def test_the_payload_rules_in_python_write_the_rust_workers_bytes():
    # userdata.payload_json / payload_protobuf size a user's records; on the built-ins they write
    # exactly the Rust worker's golden vectors.
    vectors = REPO / "codecs/vectors"
    for spec in datasets.builtin():
        records = datasets.vector_records(spec, vectors)
        assert userdata.payload_json(records, spec.bare_list) == (vectors / f"{spec.id}.rust.json").read_bytes(), spec.id
        assert userdata.payload_protobuf(records) == (vectors / f"{spec.id}.pb").read_bytes(), spec.id
    assert datasets_pb2  # the built-ins' module, imported for the descriptors
