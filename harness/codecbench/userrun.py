"""A user's datasets on their way into a run: each one's folder of what the workers build from (its
descriptor set and manifest, proto/README.md "A user's dataset"), its records blob, and the models
each language builds from it, cached by what they depend on.

Rust compiles the schema in (a worker binary per set of schemas, cargo's `user-datasets` feature:
rust/proto/build.rs reads the manifests); Java generates and compiles its classes at run time
(`build-user-datasets`); the browser builds its dataset from the descriptors in the page.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import datasets, userdata
from .pb import scenario as scenario_pb2

FIELD_NAMES = ("json", "proto")


class BuildError(Exception):
    """A language could not build a user dataset's models; the message names it and the log."""


@dataclass
class Prepared:
    """One user dataset, ready for a run."""

    user: userdata.UserDataset
    field_names: str
    lazy_fields: tuple[str, ...]
    proto: str  # as the scenario wrote it
    folder: Path
    records: str = ""  # as the scenario wrote it

    @property
    def manifest(self) -> Path:
        return self.folder / "dataset.json"

    @property
    def key(self) -> str:
        return self.folder.name

    def records_blob(self) -> bytes:
        """The records as control's canonical blob holds them: each record field 1 of one list."""
        return userdata.payload_protobuf(self.user.records)

    def declaration(self, records_blob_id: str) -> scenario_pb2.UserDataset:
        return scenario_pb2.UserDataset(
            id=self.user.id, message=self.user.message.full_name, fingerprint=datasets.fingerprint(self.user.message),
            records_blob_id=records_blob_id, record_count=len(self.user.records), proto=self.proto,
            records=self.records or self.user.source, field_names=self.field_names, lazy_fields=list(self.lazy_fields),
        )


def schemas_root(state: Path) -> Path:
    return state / "schemas"


def prepare(user: userdata.UserDataset, proto: str, field_names: str, lazy_fields: tuple[str, ...], state: Path,
            records: str = "") -> Prepared:
    """Writes the dataset's folder (descriptors.binpb, dataset.json) under `state`/schemas/<key>,
    the key a hash of everything a worker builds from, so a changed schema gets a new folder."""
    files = user.files.SerializeToString(deterministic=True)
    manifest = {
        "id": user.id, "message": user.message.full_name, "descriptorSet": "descriptors.binpb",
        "fieldNames": field_names, "lazyFields": list(lazy_fields), "fingerprint": datasets.fingerprint(user.message),
    }
    text = json.dumps(manifest, indent=2) + "\n"
    key = hashlib.sha256(files + text.encode()).hexdigest()[:16]
    folder = schemas_root(state) / f"{user.id}-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("descriptors.binpb", files), ("dataset.json", text.encode())):
        path = folder / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    return Prepared(user=user, field_names=field_names, lazy_fields=lazy_fields, proto=proto, folder=folder,
                    records=records)


def worker_args(prepared: list[Prepared]) -> list[str]:
    """Every worker's flags for these datasets."""
    return [a for p in prepared for a in ("--user-dataset", str(p.manifest))]


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


def rust_worker(root: Path, state: Path, prepared: list[Prepared], log: Path, say: Callable[[str], None]) -> Path:
    """The Rust worker binary with these datasets compiled in: cached by the schemas and the plain
    worker binary it derives from (a rebuilt worker means rebuilt code), built with cargo otherwise."""
    plain = root / "rust/target/release/codecbench-worker"
    keys = ",".join(sorted(p.key for p in prepared))
    key = hashlib.sha256(f"{keys}|{_stamp(plain)}".encode()).hexdigest()[:16]
    cached = schemas_root(state) / f"rust-{key}" / "codecbench-worker"
    names = ", ".join(p.user.id for p in prepared)
    if cached.exists():
        say(f"rust       models for {names}: cached ({cached.parent})")
        return cached
    say(f"rust       models for {names}: generating and compiling (cargo, about a minute; log {log})")
    env = dict(os.environ, CODECBENCH_USER_DATASETS=os.pathsep.join(str(p.manifest) for p in prepared))
    cmd = ["cargo", "build", "--release", "--locked", "-p", "codecbench-worker", "--features", "user-datasets",
           "--message-format=json-render-diagnostics"]
    t0 = time.monotonic()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        done = subprocess.run(cmd, cwd=root / "rust", env=env, stdout=subprocess.PIPE, stderr=out, text=True)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise BuildError(f"rust: building the worker for {names} failed (log {log}):\n{tail}")
    built = None
    for line in done.stdout.splitlines():
        msg = json.loads(line) if line.startswith("{") else {}
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == "codecbench-worker":
            built = Path(msg["executable"])
    if built is None:
        raise BuildError(f"rust: cargo built no codecbench-worker binary (log {log})")
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    shutil.copy2(built, tmp)
    tmp.rename(cached)
    # The feature build replaced target/release/codecbench-worker: put the plain one back (cargo
    # has it fresh, so this is a copy, not a build).
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "codecbench-worker"], cwd=root / "rust",
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    say(f"rust       models for {names}: built in {time.monotonic() - t0:.1f} s")
    return cached


def java_models(jar: Path, prepared: list[Prepared], log: Path, say: Callable[[str], None]) -> None:
    """Java generates and compiles its classes for each dataset into the dataset's folder (cached)."""
    t0 = time.monotonic()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        done = subprocess.run(["java", "-jar", str(jar), "build-user-datasets", *[str(p.manifest) for p in prepared]],
                              stdout=subprocess.PIPE, stderr=out, text=True)
    for line in done.stdout.splitlines():
        say(f"{line.split(':', 1)[0]:<10} {line.split(':', 1)[1].strip()}" if ":" in line else line)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise BuildError(f"java: building the models failed (log {log}):\n{tail}")
    say(f"java       models ready in {time.monotonic() - t0:.1f} s")
