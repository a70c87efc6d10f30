"""Datasets derived from the descriptors: the list, lazy fields and schema fingerprints come from the
`(codecbench.v1.dataset)` options, and `codecbench datasets` shows them."""

from __future__ import annotations

import json
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool

from codecbench import datasets, report, scenario
from codecbench.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_the_dataset_list_and_lazy_fields_are_the_options():
    assert scenario.DATASETS[:6] == ("dummy", "numeric", "owners", "docs", "beers", "matrix")
    assert report.LAZY_FIELDS["docs"] == ("name", "delivery.company")
    assert [d.id for d in datasets.builtin() if d.bare_list] == ["matrix"]
    dummy = datasets.builtin()[0]
    assert dummy.message == "codecbench.v1.DummyRecord" and dummy.fields[:3] == ("_id", "index", "guid")


def test_the_committed_fingerprint_vectors_are_the_contract_s():
    # A .proto change without `codecbench datasets --write-vectors` fails here (and in every
    # language's own comparison with the file).
    committed = json.loads((REPO / "codecs/vectors/fingerprints.json").read_text())
    assert committed == datasets.fingerprint_vectors()


def _message(fields: list[dict], extra: str = "") -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name=f"t{extra}.proto", package="acme.t", syntax="proto3")
    m = f.message_type.add(name="Order")
    for spec in fields:
        m.field.add(**spec)
    return f


def _record(file: descriptor_pb2.FileDescriptorProto):
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return pool.FindMessageTypeByName("acme.t.Order")


def test_the_canonical_text_follows_the_rule_in_proto_readme():
    f = descriptor_pb2.FileDescriptorProto(name="shop.proto", package="acme.t", syntax="proto3")
    e = f.enum_type.add(name="Kind")
    e.value.add(name="KIND_UNSPECIFIED", number=0)
    e.value.add(name="KIND_BIG", number=2)
    m = f.message_type.add(name="Order")
    T = descriptor_pb2.FieldDescriptorProto
    m.field.add(name="order_id", number=1, type=T.TYPE_UINT64, label=T.LABEL_OPTIONAL, json_name="orderId")
    m.field.add(name="kind", number=3, type=T.TYPE_ENUM, label=T.LABEL_OPTIONAL, type_name=".acme.t.Kind", json_name="kind")
    m.field.add(name="note", number=2, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL, json_name="note",
                proto3_optional=True, oneof_index=1)
    m.field.add(name="card", number=4, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL, json_name="card", oneof_index=0)
    m.field.add(name="tags", number=5, type=T.TYPE_STRING, label=T.LABEL_REPEATED, json_name="tags")
    m.oneof_decl.add(name="payment")
    m.oneof_decl.add(name="_note")  # proto3 optional's synthetic oneof: comes last, is not a real one
    text = datasets.canonical_text(_record(f))
    assert text == (
        "enum acme.t.Kind\n0 KIND_UNSPECIFIED\n2 KIND_BIG\n"
        "message acme.t.Order\n"
        "1 order_id orderId 4 0  0 \n"
        "2 note note 9 0  1 \n"
        "3 kind kind 14 0 acme.t.Kind 0 \n"
        "4 card card 9 0  0 payment\n"
        "5 tags tags 9 1  0 \n"
    )


def test_a_schema_change_changes_the_fingerprint():
    T = descriptor_pb2.FieldDescriptorProto
    base = [dict(name="id", number=1, type=T.TYPE_INT32, label=T.LABEL_OPTIONAL, json_name="id")]
    renamed = [dict(base[0], json_name="_id")]
    retyped = [dict(base[0], type=T.TYPE_INT64)]
    prints = {datasets.fingerprint(_record(_message(f, str(i)))) for i, f in enumerate([base, renamed, retyped])}
    assert len(prints) == 3
    assert datasets.fingerprint(_record(_message(base, "a"))) == datasets.fingerprint(_record(_message(base, "b")))


def test_codecbench_datasets_lists_every_dataset_with_its_sizes(capsys):
    assert main(["datasets", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == list(scenario.DATASETS)
    for r in rows:
        assert r["source"] == "generator" and len(r["fingerprint"]) == 16
        # Protobuf is never larger than JSON for these records; both are read off the vectors.
        assert 0 < r["protobufBytesPerRecord"] < r["jsonBytesPerRecord"], r
    assert main(["datasets"]) == 0
    assert "codecbench.v1.MatrixRow" in capsys.readouterr().out
