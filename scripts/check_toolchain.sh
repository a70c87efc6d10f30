#!/usr/bin/env bash
# The toolchains `make` needs, checked before anything builds: each one missing or too old is
# named with the version found and how to get it, and the check fails once, listing them all.
# (A Rust older than 1.85 fails deep inside cargo on `edition = "2024"`; a missing python3-venv
# fails inside `python3 -m venv` with a message about ensurepip. Both cost a reader an hour.)
# python3-venv is the one thing installed here when missing (apt), as the Makefile installs
# Chromium and sqlite3.
set -uo pipefail

problems=()

# version_ge A B: true when dotted version A >= B.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

# need NAME MIN HOW CMD...: the first dotted number CMD prints must be >= MIN.
need() {
  local name=$1 min=$2 how=$3; shift 3
  if ! command -v "$1" >/dev/null 2>&1; then
    problems+=("$name: not found (need >= $min; $how)")
    return
  fi
  local out ver
  out=$("$@" 2>&1 | head -n 3)
  ver=$(printf '%s' "$out" | grep -oE '[0-9]+(\.[0-9]+)+' | head -n1)
  if [ -z "$ver" ]; then
    problems+=("$name: cannot read a version from \`$*\` (need >= $min; $how)")
  elif ! version_ge "$ver" "$min"; then
    problems+=("$name: $ver is too old (need >= $min; $how)")
  fi
}

need rustc 1.85 "rustup update stable (edition 2024)" rustc --version
need cargo 1.85 "comes with rustup" cargo --version
need go 1.21 "https://go.dev/dl/ (builds grpcurl)" go version
need java 17 "apt install openjdk-17-jdk-headless" java -version
need mvn 3.8 "apt install maven" mvn -v
need node 20.19 "https://nodejs.org/ or nvm install 22 (vite 7 needs ^20.19 or >= 22.12)" node --version
need npm 9 "comes with node" npm --version
need python3 3.11 "apt install python3" python3 --version

# The venv module: Debian ships it apart from python3.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  pkg="python3-venv"
  minor=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")' 2>/dev/null)
  echo "installing $pkg (python3 -m venv needs it)"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
         DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "python$minor-venv" >/dev/null 2>&1; }; then
    problems+=("python3 venv: the venv module is missing and apt could not install $pkg (install it by hand)")
  fi
fi

if [ ${#problems[@]} -gt 0 ]; then
  echo "toolchain check failed:" >&2
  for p in "${problems[@]}"; do echo "  ✗ $p" >&2; done
  exit 1
fi
