"""A JSON Schema (draft 2020-12) for scenario files, generated from the contract
(proto/codecbench/v1/scenario.proto: every message, field, type and comment) with the value sets the
harness accepts in YAML: built-in dataset ids (the proto's `(dataset)` records), codec ids
(codecs/catalogue.yaml), decode modes, operations, compressions, network profiles. Editors running
the YAML language server flag a mistake as it is typed (harness/README.md, "Editing scenarios").

`codecbench schema` prints it; `codecbench schema --write` rewrites harness/scenario.schema.json,
which tests/test_cli.py keeps equal to what this generates and checks every library scenario
against. `codecbench validate` stays the judge: it also compiles your datasets, checks counts
against control's task cap and the codecs' modes per language.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

from . import catalogue, netlab, processes, scenario, userrun

PROTO_FILE = "codecbench/v1/scenario.proto"
SCHEMA_PATH = processes.repo_root() / "harness" / "scenario.schema.json"
UINT32_MAX, UINT64_MAX = 2**32 - 1, 2**64 - 1
# Fields of the proto the YAML does not take: the harness fills them in (user datasets come from
# `datasets:` entries with proto, message and records).
NOT_IN_YAML = {("Scenario", "user_datasets")}


def _descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """scenario.proto compiled with its comments (grpc_tools' protoc, as gen_proto.py uses)."""
    import grpc_tools
    from grpc_tools import protoc

    root = processes.repo_root()
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "scenario.binpb"
        args = ["grpc_tools.protoc", f"-I{root / 'proto'}", f"-I{Path(grpc_tools.__file__).parent / '_proto'}",
                f"--descriptor_set_out={out}", "--include_source_info", str(root / "proto" / PROTO_FILE)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc could not compile proto/{PROTO_FILE}")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _comments(fd: descriptor_pb2.FileDescriptorProto) -> dict[tuple, str]:
    """{(message, field or ""): its leading comment}; a field without one shares the comment of
    the field just above it (`producers` and `consumers` share theirs)."""
    out: dict[tuple, str] = {}
    for loc in fd.source_code_info.location:
        p = list(loc.path)
        text = " ".join(line.strip() for line in loc.leading_comments.strip().splitlines())
        if len(p) == 2 and p[0] == 4:  # message_type[i]
            out[(fd.message_type[p[1]].name, "")] = text
        elif len(p) == 4 and p[0] == 4 and p[2] == 2:  # message_type[i].field[j]
            msg = fd.message_type[p[1]]
            out[(msg.name, msg.field[p[3]].name)] = text
            if not text and p[3] > 0:
                out[(msg.name, msg.field[p[3]].name)] = out.get((msg.name, msg.field[p[3] - 1].name), "")
    return out


_SCALARS = {
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: {"type": "string"},
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: {"type": "boolean"},
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: {"type": "number"},
    descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT: {"type": "number"},
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32: {"type": "integer", "minimum": 0, "maximum": UINT32_MAX},
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: {"type": "integer", "minimum": 0, "maximum": UINT64_MAX},
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32: {"type": "integer"},
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: {"type": "integer"},
}


def _value_sets() -> dict[tuple, dict]:
    """What the harness accepts where the proto says only "string": (message, field) -> schema of
    one value."""
    ids = [c["id"] for c in catalogue.load(catalogue.default_path())]
    # `<format>/*`: every implementation of the format the selected workers offer (control expands it).
    codecs = ids + [f"{i}/*" for i in ids if "/" not in i]
    return {
        ("Scenario", "codecs"): {"enum": codecs},
        ("Scenario", "decode_modes"): {"enum": list(scenario.DECODE_MODES)},
        ("Scenario", "compressions"): {"enum": list(scenario.COMPRESSIONS)},
        ("Scenario", "operations"): {"enum": list(scenario.OPERATIONS)},
        ("Scenario", "counts"): {"type": "integer", "minimum": 1, "maximum": UINT32_MAX},
        ("Scenario", "datasets"): {"anyOf": [{"enum": list(scenario.DATASETS)}, {"$ref": "#/$defs/OwnDataset"}]},
        ("Network", "profile"): {"enum": list(netlab.PROFILES)},
        # `network: 3g` is short for `network: {profile: 3g}`.
        ("Scenario", "network"): {"anyOf": [{"enum": list(netlab.PROFILES)}, {"$ref": "#/$defs/Network"}]},
    }


def _message(msg: descriptor_pb2.DescriptorProto, comments: dict, sets: dict) -> dict:
    props = {}
    for f in msg.field:
        if (msg.name, f.name) in NOT_IN_YAML:
            continue
        if (msg.name, f.name) in sets:
            one = dict(sets[(msg.name, f.name)])
        elif f.type == descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE:
            one = {"$ref": f"#/$defs/{f.type_name.rsplit('.', 1)[-1]}"}
        else:
            one = dict(_SCALARS[f.type])
        repeated = f.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
        prop = {"type": "array", "items": one} if repeated else one
        if text := comments.get((msg.name, f.name)):
            prop = {"description": text, **prop}
        props[f.json_name] = prop
    out = {"type": "object", "additionalProperties": False, "properties": props}
    if text := comments.get((msg.name, "")):
        out = {"description": text, **out}
    return out


def generate() -> dict:
    fds = _descriptor_set()
    fd = next(f for f in fds.file if f.name == PROTO_FILE)
    comments, sets = _comments(fd), _value_sets()
    messages = {m.name: m for m in fd.message_type}
    user = {f.json_name: comments.get(("UserDataset", f.name), "") for f in messages["UserDataset"].field}
    own = {
        "description": "A dataset of your own: a .proto message and its records (docs/own-messages.md). "
                       "Paths are relative to the scenario file.",
        "type": "object", "additionalProperties": False,
        "required": ["id", "proto", "message", "records"],
        "properties": {
            "id": {"description": user["id"], "type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "proto": {"description": "A .proto file, or a descriptor set (buf build -o x.binpb).", "type": "string"},
            "message": {"description": user["message"], "type": "string"},
            "records": {"description": "NDJSON, or a JSON array, in the proto3 JSON mapping.", "type": "string"},
            "protoPaths": {"description": "More import roots for the .proto.", "type": "array",
                           "items": {"type": "string"}},
            "fieldNames": {"description": user["fieldNames"], "enum": list(userrun.FIELD_NAMES)},
            "lazyFields": {"description": user["lazyFields"], "type": "array", "items": {"type": "string"}},
        },
    }
    assert set(own["properties"]) == set(userrun._ENTRY_KEYS), "the schema's own-dataset keys are userrun's"
    top = _message(messages["Scenario"], comments, sets)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://codecbench.invalid/scenario.schema.json",
        "title": "codecbench scenario",
        **top,
        "required": ["datasets", "codecs"],
        "$defs": {
            "Sampling": _message(messages["Sampling"], comments, sets),
            "Network": _message(messages["Network"], comments, sets),
            "OwnDataset": own,
        },
    }


def text() -> str:
    return json.dumps(generate(), indent=2, ensure_ascii=False) + "\n"
