"""The datasets, derived from the contract's descriptors: every record message marked with the
`(codecbench.v1.dataset)` option (proto/codecbench/v1/dataset_options.proto) is a dataset.

Nothing here lists a dataset by hand. The schema fingerprint is the one every worker announces
(proto/README.md, "Datasets and their schema fingerprint"); this is the harness's implementation of
it, and `codecbench datasets --write-vectors` writes the built-ins' fingerprints into
codecs/vectors/fingerprints.json for every language's tests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Iterable

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from .pb import dataset_options as dataset_options_pb2
from .pb import datasets as datasets_pb2


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset as its descriptor declares it."""

    id: str
    description: str
    message: str
    lazy_fields: tuple[str, ...]
    bare_list: bool
    fingerprint: str
    # Wire names (proto JSON names) of the record's top-level fields, in field-number order.
    fields: tuple[str, ...]
    # "generator" for the built-ins (seeded, in rust/datasets), a file path for a user's records.
    source: str = "generator"


def _referenced(field: FieldDescriptor) -> Descriptor | EnumDescriptor | None:
    return field.message_type or field.enum_type


def is_repeated(field: FieldDescriptor) -> bool:
    # protobuf >= 5 has `is_repeated`; `label` is what older releases offer.
    repeated = getattr(field, "is_repeated", None)
    return bool(repeated) if repeated is not None else field.label == FieldDescriptor.LABEL_REPEATED


def _real_oneof(field: FieldDescriptor) -> str:
    oneof = field.containing_oneof
    if oneof is None:
        return ""
    # A proto3 `optional` field sits alone in a synthetic oneof; that is not a real one.
    synthetic = len(oneof.fields) == 1 and _proto3_optional(field)
    return "" if synthetic else oneof.name


def _proto3_optional(field: FieldDescriptor) -> bool:
    # Python's descriptors do not expose the flag itself; the message's DescriptorProto holds it.
    return field.number in optional_numbers(field.containing_type)


@cache
def optional_numbers(message: Descriptor) -> frozenset[int]:
    proto = descriptor_pb2.DescriptorProto()
    message.CopyToProto(proto)
    return frozenset(f.number for f in proto.field if f.proto3_optional)


def canonical_text(record: Descriptor) -> str:
    """The text the fingerprint hashes: every type the record reaches, sorted by full name."""
    seen: dict[str, Descriptor | EnumDescriptor] = {}
    todo: list[Descriptor | EnumDescriptor] = [record]
    while todo:
        t = todo.pop()
        if t.full_name in seen:
            continue
        seen[t.full_name] = t
        if isinstance(t, Descriptor):
            todo.extend(r for f in t.fields if (r := _referenced(f)) is not None)
    lines: list[str] = []
    for name in sorted(seen, key=lambda n: n.encode()):
        t = seen[name]
        if isinstance(t, EnumDescriptor):
            lines.append(f"enum {name}")
            lines.extend(f"{v.number} {v.name}" for v in sorted(t.values, key=lambda v: (v.number, v.name)))
            continue
        lines.append(f"message {name}")
        for f in sorted(t.fields, key=lambda f: f.number):
            ref = _referenced(f)
            lines.append(" ".join([
                str(f.number), f.name, f.json_name, str(f.type), "1" if is_repeated(f) else "0",
                ref.full_name if ref is not None else "", "1" if _proto3_optional(f) else "0", _real_oneof(f),
            ]))
    return "".join(line + "\n" for line in lines)


def fingerprint(record: Descriptor) -> str:
    """The record schema's fingerprint: the first 16 hex digits of the SHA-256 of its canonical text."""
    return hashlib.sha256(canonical_text(record).encode()).hexdigest()[:16]


def spec_of(record: Descriptor, source: str = "generator") -> DatasetSpec | None:
    """The dataset a record message declares with its option, or None for a plain message."""
    options = record.GetOptions()
    if not options.HasExtension(dataset_options_pb2.dataset):
        return None
    o = options.Extensions[dataset_options_pb2.dataset]
    return DatasetSpec(
        id=o.id, description=o.description, message=record.full_name, lazy_fields=tuple(o.lazy_fields),
        bare_list=o.bare_list, fingerprint=fingerprint(record),
        fields=tuple(f.json_name for f in sorted(record.fields, key=lambda f: f.number)), source=source,
    )


@cache
def builtin() -> tuple[DatasetSpec, ...]:
    """The built-in datasets, in the order datasets.proto declares them."""
    specs = (spec_of(m) for m in datasets_pb2.DESCRIPTOR.message_types_by_name.values())
    return tuple(s for s in specs if s is not None)


def builtin_ids() -> tuple[str, ...]:
    return tuple(s.id for s in builtin())


def lazy_fields() -> dict[str, tuple[str, ...]]:
    return {s.id: s.lazy_fields for s in builtin()}


def fingerprint_vectors() -> dict[str, dict[str, str]]:
    """What codecs/vectors/fingerprints.json holds: each built-in's message and fingerprint."""
    return {s.id: {"message": s.message, "fingerprint": s.fingerprint} for s in builtin()}


# ---- `codecbench datasets` -----------------------------------------------------------------------

def vector_records(spec: DatasetSpec, vectors: Path) -> list | None:
    """The golden vector's records of a built-in (three seeded records, the same in every
    language), as messages; None where the vector is missing."""
    from google.protobuf import message_factory

    path = vectors / f"{spec.id}.pb"
    if not path.is_file():
        return None
    record = datasets_pb2.DESCRIPTOR.message_types_by_name[spec.message.rsplit(".", 1)[-1]]
    lists = [m for m in datasets_pb2.DESCRIPTOR.message_types_by_name.values()
             if len(m.fields) == 1 and m.fields[0].number == 1 and m.fields[0].message_type is record]
    listing = message_factory.GetMessageClass(lists[0])()
    listing.ParseFromString(path.read_bytes())
    return list(listing.records)


def table(rows: Iterable[tuple[DatasetSpec, list | None]], json_sizes: bool = True) -> list[dict]:
    """One row per dataset, as `codecbench datasets` prints it (and `--json` writes it): bytes per
    record of the json and protobuf codecs' payloads of the given records (userdata.payload_json
    writes what the json codec writes, byte for byte). Without `json_sizes` (a schema with fields
    only protobuf carries yet) the json column stays empty rather than guessing."""
    from . import userdata

    out = []
    for s, records in rows:
        json_b = pb_b = None
        if records:
            json_b = len(userdata.payload_json(records, s.bare_list)) / len(records) if json_sizes else None
            pb_b = len(userdata.payload_protobuf(records)) / len(records)
        out.append({
            "id": s.id, "description": s.description, "source": s.source, "message": s.message,
            "fields": list(s.fields), "lazyFields": list(s.lazy_fields), "bareList": s.bare_list,
            "fingerprint": s.fingerprint, "jsonBytesPerRecord": json_b, "protobufBytesPerRecord": pb_b,
        })
    return out
