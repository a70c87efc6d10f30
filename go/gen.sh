#!/usr/bin/env bash
# Generates go/gen/ (git-ignored) from proto/codecbench/v1/*.proto: the protobuf messages
# (protoc-gen-go), the WorkerService client (protoc-gen-connect-go) and the dataset models
# (cmd/gen-models), with the harness venv's
# protoc (grpc_tools) and the plugins `make go` installs into .tools/bin.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(dirname "$here")"
# The Makefile passes its VENV and TOOLS_BIN; by hand the repository's own are taken.
venv="${VENV:-$root/.venv}"; tools="${TOOLS_BIN:-$root/.tools/bin}"; protoc=("$venv/bin/python" -m grpc_tools.protoc)
out="$here/gen"; pkg="codecbench/go/gen/codecbench/v1"
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
maps=(); for f in "$root"/proto/codecbench/v1/*.proto; do maps+=("--go_opt=Mcodecbench/v1/$(basename "$f")=$pkg;codecbenchv1" "--connect-go_opt=Mcodecbench/v1/$(basename "$f")=$pkg;codecbenchv1"); done
wkt="$("$venv/bin/python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"
(cd "$root/proto" && "${protoc[@]}" -I. -I"$wkt" \
  --plugin=protoc-gen-go="$tools/protoc-gen-go" --plugin=protoc-gen-connect-go="$tools/protoc-gen-connect-go" \
  --go_out="$out.tmp" --go_opt=module=codecbench/go/gen \
  --connect-go_out="$out.tmp" --connect-go_opt=module=codecbench/go/gen "${maps[@]}" \
  codecbench/v1/*.proto)
rm -rf "$out" && mv "$out.tmp" "$out"
# The dataset models (go/gen/models), derived from the descriptors just generated.
mkdir -p "$out/models" && (cd "$here" && go run ./cmd/gen-models "$out/models/models.go")
