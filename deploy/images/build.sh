#!/usr/bin/env bash
# Builds codecbench's container images from the repo's built artifacts (`make images`; run
# `make build` first). No registry is needed: the base is Debian from debootstrap, imported with
# buildah; runtime packages (JRE, Chromium, Node, Python) come from Debian's mirror.
#
#   IMAGE_TAG=TAG deploy/images/build.sh control worker-rust worker-java worker-browser harness
#
# Every image is tagged localhost/codecbench/NAME:TAG and :latest (the manifests' tag).
# Environment: DEBIAN_RELEASE (default: this machine's, from /etc/os-release: the binaries link
# against its glibc), DEBIAN_MIRROR, REBUILD_BASE=1 to debootstrap again.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tag=${IMAGE_TAG:?IMAGE_TAG is required}
release=${DEBIAN_RELEASE:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$root/.state/images
base=localhost/codecbench/base:$release
[ $# -gt 0 ] || { echo "usage: IMAGE_TAG=TAG $0 IMAGE..." >&2; exit 64; }

for artifact in rust/target/release/codecbench-control rust/target/release/codecbench-worker \
    java/target/codecbench-java-worker.jar web/dist/index.html web/driver/driver.mjs \
    web/node_modules/puppeteer-core harness/codecbench/_gen; do
  [ -e "$artifact" ] || { echo "build.sh: $artifact is missing: run make build first" >&2; exit 1; }
done
mkdir -p "$work"

# --- base: debootstrap once per release (about a minute); REBUILD_BASE=1 refreshes it.
if [ "${REBUILD_BASE:-0}" = 1 ] || ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  start=$SECONDS
  rm -rf "$work/rootfs" "$work/base-context" && mkdir -p "$work/base-context"
  debootstrap --variant=minbase "$release" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # An image has no device nodes or mounted pseudo-filesystems of its own.
  tar -C "$work/rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
    -cf "$work/base-context/rootfs.tar" .
  rm -rf "$work/rootfs"
  buildah bud --isolation chroot --quiet -f deploy/images/base.Containerfile \
    --build-arg RELEASE="$release" --build-arg MIRROR="$mirror" -t "$base" "$work/base-context" >/dev/null
  rm -rf "$work/base-context"
  echo "base      $base  ($((SECONDS - start)) s)"
fi

# --- context: only what the images copy, laid out as in the repo (hard links: no copying).
ctx=$work/context
rm -rf "$ctx" && mkdir -p "$ctx"
stage() { mkdir -p "$ctx/$(dirname "$1")" && cp -al "$1" "$ctx/$1"; }
stage rust/target/release/codecbench-control
stage rust/target/release/codecbench-worker
stage java/target/codecbench-java-worker.jar
stage web/dist
stage web/driver
# The packages web/driver/*.mjs import (test_deploy checks the list against the imports).
DRIVER_PACKAGES="puppeteer-core @bufbuild/protobuf"
python3 deploy/images/node_closure.py web/package-lock.json $DRIVER_PACKAGES | while read -r dir; do stage "web/$dir"; done
stage harness/pyproject.toml
stage harness/constraints.txt
stage harness/codecbench
stage harness/scenarios
find "$ctx/harness" -name __pycache__ -prune -exec rm -rf {} +
# The harness's Python packages as wheels, fetched here by the repo's pip (this machine's index,
# proxy and certificates, none of which a build container has): its image installs them offline.
if [[ " $* " == *" harness "* ]]; then
  .venv/bin/pip download -q -d "$ctx/wheels" -c harness/constraints.txt 'setuptools>=68' ./harness
  rm -f "$ctx"/wheels/codecbench-*
fi
stage codecs/catalogue.yaml
# The canonical records the Java image trains its class-data-sharing archive on.
stage codecs/vectors

for name in "$@"; do
  file=deploy/images/$name.Containerfile
  [ -f "$file" ] || { echo "build.sh: no $file" >&2; exit 1; }
  start=$SECONDS
  buildah bud --isolation chroot --quiet -f "$file" --build-arg BASE="$base" \
    -t "localhost/codecbench/$name:$tag" "$ctx" >/dev/null
  buildah tag "localhost/codecbench/$name:$tag" "localhost/codecbench/$name:latest"
  printf '%-15s localhost/codecbench/%s:%s  (%d s)\n' "$name" "$name" "$tag" $((SECONDS - start))
done
buildah images --filter reference='localhost/codecbench/*'
