"""What run.json records about where the harness ran: the host, its memory policy, the source tree."""

from __future__ import annotations

import hashlib
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterable

from google.protobuf import json_format



def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def host_memory(sys_root: Path = Path("/sys")) -> dict:
    """What the kernel does to memory behind the benchmark's back, as far as /sys tells: the
    transparent huge page mode, and DAMON schemes that page memory out (a guest reclaiming idle
    pages evicts file pages such as a browser's binary, which are then read back into other
    physical pages). Empty where /sys does not say (not Linux)."""
    out = {}
    thp = _read(sys_root / "kernel/mm/transparent_hugepage/enabled")
    if "[" in thp:
        out["transparentHugepages"] = thp.split("[")[1].split("]")[0]
    schemes = []
    for kd in sorted((sys_root / "kernel/mm/damon/admin/kdamonds").glob("[0-9]*")):
        if _read(kd / "state") != "on":
            continue
        for ctx in sorted((kd / "contexts").glob("[0-9]*")):
            aggr_us = _read(ctx / "monitoring_attrs/intervals/aggr_us")
            for sc in sorted((ctx / "schemes").glob("[0-9]*")):
                action, age = _read(sc / "action"), _read(sc / "access_pattern/age/min")
                idle = (f" of memory idle ≥ {int(age) * int(aggr_us) / 1e6:g} s"
                        if age.isdigit() and aggr_us.isdigit() else "")
                schemes.append(f"{action}{idle} ({_read(ctx / 'operations') or '?'})")
    if schemes:
        out["damon"] = "; ".join(schemes)
    return out


def harness_environment(control_addr: str = "") -> dict:
    from importlib.metadata import PackageNotFoundError, version

    def v(pkg: str) -> str:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return ""

    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpuCount": os.cpu_count(),
        "control": control_addr,
        "packages": {p: v(p) for p in ("codecbench", "grpcio", "protobuf", "pandas", "pyarrow")},
        "hostMemory": host_memory(),
        "source": source_version(),
    }


def source_version(repo: Path | None = None) -> dict:
    """The commit the harness ran from and the git tree of the code that measures (proto, codecs,
    the workers: `measuring`, with "-dirty" when tracked files there differ from it). Runs of one
    scenario repeat one experiment only on one measuring tree (calibration.group_key); a change to
    the harness or the docs does not make them another. Empty outside git."""
    repo = repo or Path(__file__).resolve().parents[3]

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              timeout=10).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        if not commit:
            return {}
        paths = [p for p in MEASURING_PATHS if (repo / p).exists()]
        trees = git("rev-parse", *[f"HEAD:{p}" for p in paths]).split()
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", *paths)
    except (OSError, subprocess.SubprocessError):
        return {}
    measuring = hashlib.sha1(" ".join(trees).encode()).hexdigest()[:16] + ("-dirty" if dirty else "")
    return {"commit": commit, "measuring": measuring, "dirty": bool(dirty)}


# What a worker's figures depend on: the contract, the codecs' shared files and the three workers.
MEASURING_PATHS = ("proto", "codecs", "rust", "java", "web")


def worker_environments(measurements: Iterable) -> dict[str, dict]:
    """The environment each worker reported, once per worker id."""
    envs: dict[str, dict] = {}
    for m in measurements:
        if m.worker_id and m.worker_id not in envs and m.HasField("environment"):
            envs[m.worker_id] = json_format.MessageToDict(m.environment)
    return envs
