"""A user's own dataset: a .proto file (or a buf/protoc descriptor set), a message's full name and
a records file (NDJSON or a JSON array, in the proto3 JSON mapping), checked before anything else.

Every mistake is one precise line and exit 2 (scenario.EXIT_INVALID): a proto that does not compile
(protoc's file:line:column), a message that is not there (the ones that are), a record that does not
fit (its number and field path), an empty file, a file over the size limit. What codecbench's
payload rules (proto/README.md, "Payloads") do not cover yet is reported per codec, never dropped.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from . import datasets

# A records file larger than this is refused before it is read (the canonical blob control stores
# is about the protobuf size; a file this large is better sampled).
MAX_RECORDS_BYTES = 256 << 20
DESCRIPTOR_SET_SUFFIXES = (".binpb", ".pb", ".desc", ".bin")
# What proto/README.md's payload rules carry in every codec; anything else is offered by protobuf
# alone until a rule exists (the refusal names the field).
_TYPE_NAMES = {v: k.removeprefix("TYPE_").lower() for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")}


class UserDataError(Exception):
    """The dataset cannot be used; `problems` holds one line per mistake."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class UserDataset:
    id: str
    message: Descriptor
    records: list  # parsed messages of `message`'s class
    source: str
    # The schema's files, imports first, as protoc writes them (what every worker builds from).
    files: descriptor_pb2.FileDescriptorSet | None = None

    def spec(self) -> datasets.DatasetSpec:
        return datasets.DatasetSpec(
            id=self.id, description=f"{len(self.records)} records from {self.source}", message=self.message.full_name,
            lazy_fields=(), bare_list=False, fingerprint=datasets.fingerprint(self.message),
            fields=tuple(f.json_name for f in sorted(self.message.fields, key=lambda f: f.number)), source=self.source,
        )


def descriptor_set(proto: Path, proto_paths: list[Path]) -> descriptor_pb2.FileDescriptorSet:
    """The descriptors of `proto` and everything it imports: compiled with protoc (grpc_tools), or
    read as they are from a descriptor set (`buf build -o x.binpb`, `protoc --descriptor_set_out`)."""
    if not proto.is_file():
        raise UserDataError([f"{proto}: no such file"])
    fds = descriptor_pb2.FileDescriptorSet()
    if proto.suffix in DESCRIPTOR_SET_SUFFIXES:
        try:
            fds.ParseFromString(proto.read_bytes())
        except Exception as exc:  # noqa: BLE001 - protobuf raises DecodeError or others
            raise UserDataError([f"{proto}: not a FileDescriptorSet ({exc})"]) from exc
        return fds
    import grpc_tools

    well_known = Path(grpc_tools.__file__).parent / "_proto"
    roots = [*proto_paths, proto.parent]
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "set.binpb"
        done = subprocess.run(
            [sys.executable, "-m", "grpc_tools.protoc", *[f"-I{p}" for p in roots], f"-I{well_known}",
             "--include_imports", f"--descriptor_set_out={out}", str(proto)],
            capture_output=True, text=True,
        )
        if done.returncode != 0:
            lines = [line for line in done.stderr.strip().splitlines() if line.strip()] or [f"protoc exited {done.returncode}"]
            raise UserDataError([f"{proto} does not compile: {line}" for line in lines])
        fds.ParseFromString(out.read_bytes())
    return fds


def find_message(fds: descriptor_pb2.FileDescriptorSet, name: str) -> Descriptor:
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    try:
        return pool.FindMessageTypeByName(name.removeprefix("."))
    except KeyError:
        found = sorted(f"{f.package}.{m.name}".lstrip(".") for f in fds.file for m in f.message_type
                       if not f.name.startswith("google/protobuf/"))
        raise UserDataError([f"message {name!r} is not in the schema (its messages: {', '.join(found) or 'none'})"]) from None


def _json_values(path: Path) -> list[tuple[int, object]]:
    """(record number from 1, value) of an NDJSON file or a JSON array."""
    size = path.stat().st_size
    if size > MAX_RECORDS_BYTES:
        raise UserDataError([f"{path}: {size:,} bytes is over the {MAX_RECORDS_BYTES:,}-byte limit for a records file"])
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        raise UserDataError([f"{path}: the records file is empty"])
    if text.lstrip().startswith("["):
        try:
            values = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserDataError([f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}"]) from exc
        return list(enumerate(values, 1))
    out = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((len(out) + 1, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise UserDataError([f"{path}:{line_no}:{exc.colno}: record {len(out) + 1} is not JSON: {exc.msg}"]) from exc
    return out


_FIELD = re.compile(r"Failed to parse (\S+) field: ")


def _field_path_message(error: str) -> str:
    """json_format's "Failed to parse a field: Failed to parse b field: why" as "field a.b: why"."""
    parts = _FIELD.findall(error)
    why = _FIELD.sub("", error).rstrip(".") + "."
    return f"field {'.'.join(parts)}: {why}" if parts else why


def read_records(path: Path, record: Descriptor) -> list:
    """Every record of the file as a message of `record`, in the proto3 JSON mapping (json_name and
    the .proto's own names both accepted, as proto3 JSON parsers accept them)."""
    if not path.is_file():
        raise UserDataError([f"{path}: no such file"])
    cls = message_factory.GetMessageClass(record)
    out, problems = [], []
    for n, value in _json_values(path):
        if not isinstance(value, dict):
            problems.append(f"{path}: record {n} is a JSON {type(value).__name__}, not an object")
            continue
        try:
            out.append(json_format.ParseDict(value, cls()))
        except json_format.ParseError as exc:
            problems.append(f"{path}: record {n} does not fit {record.full_name}: {_field_path_message(str(exc))}")
        if len(problems) >= 10:
            problems.append("(stopped after 10 records that do not fit)")
            break
    if problems:
        raise UserDataError(problems)
    if not out:
        raise UserDataError([f"{path}: no records"])
    return out


def load(id: str, proto: Path, message: str, records: Path, proto_paths: list[Path] | None = None) -> UserDataset:
    fds = descriptor_set(proto, proto_paths or [])
    record = find_message(fds, message)
    return UserDataset(id=id, message=record, records=read_records(records, record), source=str(records), files=fds)


def wire_name(f: FieldDescriptor, field_names: str) -> str:
    """A field's name in self-describing payloads: its json_name, or its .proto name."""
    return f.name if field_names == "proto" else f.json_name


def _scalar(f: FieldDescriptor) -> bool:
    return f.type not in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP) and not datasets.is_repeated(f)


def default_lazy_fields(record: Descriptor, field_names: str = "json") -> tuple[str, ...]:
    """The lazy fields when a user names none: the first and the last top-level singular scalar
    field (DatasetOptions.lazy_fields: one near the start of a record, one near its end)."""
    scalars = [f for f in sorted(record.fields, key=lambda f: f.number) if _scalar(f) and f.containing_oneof is None]
    picked = [scalars[0], scalars[-1]] if len(scalars) > 1 else scalars
    return tuple(wire_name(f, field_names) for f in picked)


def check_lazy_fields(record: Descriptor, paths: list[str], field_names: str = "json") -> list[str]:
    """One problem per lazy field that is not a dotted path of wire names to a singular scalar."""
    problems = []
    for path in paths:
        m: Descriptor | None = record
        parts = path.split(".")
        for i, part in enumerate(parts):
            f = next((x for x in m.fields if wire_name(x, field_names) == part), None) if m else None
            if f is None:
                known = ", ".join(wire_name(x, field_names) for x in m.fields) if m else ""
                problems.append(f"lazy field {path!r}: {m.full_name if m else '?'} has no field {part!r} (its fields: {known})")
                break
            last = i == len(parts) - 1
            if last and not _scalar(f):
                problems.append(f"lazy field {path!r}: {f.full_name} is not a singular scalar")
            elif not last:
                if f.message_type is None or datasets.is_repeated(f):
                    problems.append(f"lazy field {path!r}: {f.full_name} is not a singular message to go into")
                    break
                m = f.message_type
    return problems


def _reached(record: Descriptor) -> list[Descriptor]:
    """Every message a record reaches (map entries included), its own first."""
    out, seen, todo = [], set(), [record]
    while todo:
        m = todo.pop()
        if m.full_name not in seen:
            seen.add(m.full_name)
            out.append(m)
            todo.extend(f.message_type for f in m.fields if f.message_type is not None)
    return out


def _unruled(f: FieldDescriptor) -> str | None:
    """A well-known type no payload rule covers: every one but Timestamp."""
    t = f.message_type
    if t is not None and t.file.package == "google.protobuf" and t.full_name != "google.protobuf.Timestamp":
        return t.full_name
    return None


def _is_map(f: FieldDescriptor) -> bool:
    return f.message_type is not None and f.message_type.GetOptions().map_entry


def not_offered(record: Descriptor) -> dict[str, list[str]]:
    """The fields each schema-less codec refuses (proto/README.md, "Payloads"), as the workers
    name them: a well-known type with no payload rule (every codec but protobuf), and uint64 or
    fixed64 in bson and ubjson (no unsigned 64-bit integer). Protobuf carries every proto3 feature;
    a language may refuse more (`codecbench codecs` and the run say so)."""
    everywhere, unsigned = [], []
    for m in _reached(record):
        if m.GetOptions().map_entry:
            continue
        for f in m.fields:
            value = f.message_type.fields_by_name["value"] if _is_map(f) else f
            if (name := _unruled(value)) is not None:
                everywhere.append(f"{name} field {f.full_name}")
            if value.type in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
                unsigned.append(f"{_TYPE_NAMES[value.type]} field {f.full_name}")
    out = {c: list(everywhere) for c in ("json", "bson", "msgpack", "cbor", "xml", "ubjson")}
    for c in ("bson", "ubjson"):
        out[c] += unsigned
    return {c: lines for c, lines in out.items() if lines}


# ---- the payload as codecbench's JSON codec writes it (proto/README.md, "Payloads") -------------

def _float32(v: float) -> float:
    """A float field's shortest decimal that reads back to the same float32, as the workers write it."""
    packed = struct.pack("<f", v)
    for digits in range(1, 10):
        text = f"{v:.{digits}g}"
        if struct.pack("<f", float(text)) == packed:
            return float(text)
    return v


def _wire_value(f: FieldDescriptor, v):
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        if f.message_type.full_name == "google.protobuf.Timestamp":
            return json_format.MessageToDict(v)
        return wire_object(v)
    if f.type == FieldDescriptor.TYPE_ENUM:
        named = f.enum_type.values_by_number.get(v)
        return named.name if named is not None else v
    if f.type == FieldDescriptor.TYPE_BYTES:
        return base64.b64encode(v).decode()
    if f.type == FieldDescriptor.TYPE_FLOAT:
        return _float32(v)
    return v


def wire_object(msg) -> dict:
    """One record as the payload rules write it: every field in number order under its json_name,
    defaults included, an unset `optional` and the unset members of a oneof left out, enums by
    name, integers as numbers, bytes in base64, Timestamps in RFC 3339, maps as objects."""
    out = {}
    optional = datasets.optional_numbers(msg.DESCRIPTOR)
    for f in sorted(msg.DESCRIPTOR.fields, key=lambda f: f.number):
        value = getattr(msg, f.name)
        if (f.number in optional or f.containing_oneof is not None) and not msg.HasField(f.name):
            continue
        if _is_map(f):
            v = f.message_type.fields_by_name["value"]
            out[f.json_name] = {str(k).lower() if isinstance(k, bool) else str(k): _wire_value(v, x) for k, x in value.items()}
        elif datasets.is_repeated(f):
            out[f.json_name] = [_wire_value(f, x) for x in value]
        else:
            out[f.json_name] = _wire_value(f, value)
    return out


def payload_json(records: list, bare_list: bool = False) -> bytes:
    """The json codec's payload of these records: `{"records": [...]}`, compact UTF-8 (a bare-list
    record as its one repeated field's array)."""
    rows = [next(iter(wire_object(r).values())) if bare_list else wire_object(r) for r in records]
    return json.dumps({"records": rows}, ensure_ascii=False, separators=(",", ":")).encode()


def payload_protobuf(records: list) -> bytes:
    """The protobuf codec's payload: the list message, each record as field 1 (length-delimited)."""
    out = bytearray()
    for r in records:
        body = r.SerializeToString(deterministic=True)
        out += b"\x0a" + _varint(len(body)) + body
    return bytes(out)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)
