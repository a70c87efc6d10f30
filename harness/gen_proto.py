#!/usr/bin/env python3
"""Generate the Python gRPC code for proto/codecbench/v1 into harness/codecbench/_gen/.

Run with the project venv after `pip install -e 'harness[dev]'`:

    .venv/bin/python harness/gen_proto.py

grpc_tools writes `from codecbench.v1 import x_pb2`, which would resolve against this very package
(`codecbench`) and fail. So we generate into a scratch folder, flatten the files into `_gen/` and
rewrite those imports as relative ones (`from . import x_pb2`).
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

HARNESS = Path(__file__).resolve().parent
ROOT = HARNESS.parent
PROTO_DIR = ROOT / "proto"
PROTO_PACKAGE = "codecbench/v1"
OUT = HARNESS / "codecbench" / "_gen"

_IMPORT = re.compile(r"^from codecbench\.v1 import ", re.MULTILINE)


def generate(proto_dir: Path = PROTO_DIR, out: Path = OUT) -> list[Path]:
    try:
        import grpc_tools
        from grpc_tools import protoc
    except ImportError:
        sys.exit("gen_proto: grpcio-tools is not installed; run: .venv/bin/pip install -e 'harness[dev]'")

    protos = sorted((proto_dir / PROTO_PACKAGE).glob("*.proto"))
    if not protos:
        sys.exit(f"gen_proto: no .proto files under {proto_dir / PROTO_PACKAGE}")
    # google/protobuf/*.proto (timestamp) ship inside grpc_tools.
    well_known = Path(grpc_tools.__file__).parent / "_proto"

    with tempfile.TemporaryDirectory() as scratch:
        args = [
            "grpc_tools.protoc",
            f"-I{proto_dir}",
            f"-I{well_known}",
            f"--python_out={scratch}",
            f"--pyi_out={scratch}",
            f"--grpc_python_out={scratch}",
            *[str(p) for p in protos],
        ]
        if protoc.main(args) != 0:
            sys.exit("gen_proto: protoc failed (see messages above)")

        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        written = []
        for src in sorted((Path(scratch) / PROTO_PACKAGE).iterdir()):
            text = _IMPORT.sub("from . import ", src.read_text())
            dst = out / src.name
            dst.write_text(text)
            written.append(dst)
    # The scenario limits declared beside the contract, for the harness's validate.
    limits = proto_dir / PROTO_PACKAGE / "limits.json"
    shutil.copyfile(limits, out / "limits.json")
    written.append(out / "limits.json")
    (out / "__init__.py").write_text(
        '"""Generated from proto/codecbench/v1 by harness/gen_proto.py. Do not edit."""\n'
    )
    return written


def main() -> None:
    written = generate()
    print(f"gen_proto: wrote {len(written)} files to {OUT.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
