#!/usr/bin/env bash
# Generates go/gen/ (git-ignored) from proto/codecbench/v1/*.proto: the protobuf messages
# (protoc-gen-go), the WorkerService client (protoc-gen-connect-go), the codec table from
# codecs/catalogue.yaml (cmd/gen-catalogue) and the dataset models (cmd/gen-models), with the harness venv's
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
# The codec table (go/gen/catalogue) from codecs/catalogue.yaml, the codecs' one description.
mkdir -p "$out/catalogue" && (cd "$here" && go run ./cmd/gen-catalogue "$root/codecs/catalogue.yaml" "$out/catalogue/catalogue.go")
# The dataset models (go/gen/models), derived from the descriptors just generated.
mkdir -p "$out/models" && (cd "$here" && go run ./cmd/gen-models "$out/models/models.go")
# The flatbuffers codec's tables (go/gen/flat, flatc's Go) and their mapping to the models
# (go/gen/fbmap), with flatc 25.12.19, the version of the Go runtime go.mod pins (`make flatc`
# installs it for Rust too; FLATC_GO names another). flatc's proto reader cannot parse
# descriptor.proto, so it reads datasets.proto without the options' import (as Rust, Java, web).
flatc="${FLATC_GO:-$root/.tools/flatc/bin/flatc}"
if [ "$("$flatc" --version 2>/dev/null)" != "flatc version 25.12.19" ]; then
  echo "go/gen.sh: the flatbuffers codec needs flatc 25.12.19 at $flatc (make flatc), or FLATC_GO naming one" >&2; exit 1
fi
fbs="$(mktemp -d)"; trap 'rm -rf "$fbs"' EXIT
grep -v 'dataset_options.proto' "$root/proto/codecbench/v1/datasets.proto" > "$fbs/datasets.proto"
# (flatc --proto always warns that it cannot check conformity: shown only when it fails)
"$flatc" --proto -o "$fbs" "$fbs/datasets.proto" >"$fbs/log" 2>&1 || { cat "$fbs/log" >&2; exit 1; }
(cd "$here" && go run ./cmd/gen-flatbuffers schema "$fbs/datasets.fbs")
rm -rf "$out/flat" && "$flatc" --go -o "$out/flat" "$fbs/datasets.fbs"
mkdir -p "$out/fbmap" && (cd "$here" && go run ./cmd/gen-flatbuffers mapping "$out/fbmap/fbmap.go")
