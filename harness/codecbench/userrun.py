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

# Names in self-describing payloads: each field's json_name, or the .proto's own.
FIELD_NAMES = ("json", "proto")
_ENTRY_KEYS = ("id", "proto", "message", "records", "protoPaths", "fieldNames", "lazyFields")


class BuildError(Exception):
    """A language could not build a user dataset's models; the message names it and the log."""


@dataclass
class UserEntry:
    """A `datasets:` entry that brings a user's own schema and records, loaded and checked."""

    user: userdata.UserDataset
    proto: str  # as written
    records: str  # as written
    field_names: str
    lazy_fields: tuple[str, ...]


def check_entry(c, at: tuple, item: dict, path: Path, taken: list[str]) -> UserEntry | None:
    """A `datasets:` entry of the scenario at `path` (c: its checker), compiled and read; every
    mistake is a problem at its line, and None."""
    from .scenario import DATASETS
    from .scenario.checks import _did_you_mean, _type_name

    for key in item:
        if key not in _ENTRY_KEYS:
            c.problem(at + (key,), f'unknown key "{key}" in a dataset of your own{_did_you_mean(key, _ENTRY_KEYS)} '
                      f"(known: {', '.join(_ENTRY_KEYS)})")
    missing = [k for k in ("id", "proto", "message", "records") if not isinstance(item.get(k), str) or not item.get(k)]
    if missing:
        c.problem(at, f"a dataset of your own needs {', '.join(missing)} (strings): "
                  "id, proto (a .proto or descriptor set), message (its full name) and records (NDJSON or a JSON array)")
        return None
    id = item["id"]
    if not id[0].isascii() or not id[0].islower() or not all(ch.isascii() and (ch.islower() or ch.isdigit() or ch == "_") for ch in id) or len(id) > 64:
        c.problem(at + ("id",), f'dataset id "{id}" must be 1 to 64 lowercase letters, digits and _, starting with a letter')
        return None
    if id in DATASETS:
        c.problem(at + ("id",), f'dataset id "{id}" is a built-in dataset\'s; give yours another')
        return None
    if id in taken:
        c.problem(at + ("id",), f'dataset "{id}" is listed twice in "datasets"')
        return None
    field_names = item.get("fieldNames", "json")
    if field_names not in FIELD_NAMES:
        c.problem(at + ("fieldNames",), f'"fieldNames" must be json (each field\'s json_name) or proto (the .proto\'s names), got {_type_name(field_names)}')
        return None
    paths = item.get("protoPaths") or []
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        c.problem(at + ("protoPaths",), '"protoPaths" must be a list of folders')
        return None
    here = path.parent
    try:
        user = userdata.load(id, here / item["proto"], item["message"], here / item["records"], [here / p for p in paths])
    except userdata.UserDataError as exc:
        for line in exc.problems:
            c.problem(at, f'dataset "{id}": {line}')
        return None
    lazy = item.get("lazyFields")
    if lazy is None:
        lazy_fields = userdata.default_lazy_fields(user.message, field_names)
    elif not isinstance(lazy, list) or not all(isinstance(x, str) for x in lazy):
        c.problem(at + ("lazyFields",), '"lazyFields" must be a list of dotted field paths')
        return None
    else:
        lazy_fields = tuple(lazy)
        for line in userdata.check_lazy_fields(user.message, lazy, field_names):
            c.problem(at + ("lazyFields",), f'dataset "{id}": {line}')
    return UserEntry(user=user, proto=_shown(item["proto"]), records=_shown(item["records"]), field_names=field_names,
                     lazy_fields=lazy_fields)


def _shown(path: str) -> str:
    """A path as reports show it: relative to the working folder when it is inside it (`run
    --proto` passes absolute paths), so no report carries the machine's own folders."""
    if os.path.isabs(path):
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    return path


@dataclass
class Prepared:
    """One user dataset, ready for a run: its entry and the folder the workers build from."""

    entry: UserEntry
    folder: Path

    @property
    def user(self) -> userdata.UserDataset:
        return self.entry.user

    @property
    def manifest(self) -> Path:
        return self.folder / "dataset.json"

    @property
    def key(self) -> str:
        return self.folder.name

    def records_blob(self) -> bytes:
        """The records as control's canonical blob holds them: each record field 1 of one list."""
        return userdata.payload_protobuf(self.entry.user.records)

    def declaration(self, records_blob_id: str) -> scenario_pb2.UserDataset:
        e = self.entry
        return scenario_pb2.UserDataset(
            id=e.user.id, message=e.user.message.full_name, fingerprint=datasets.fingerprint(e.user.message),
            records_blob_id=records_blob_id, record_count=len(e.user.records), proto=e.proto, records=e.records,
            field_names=e.field_names, lazy_fields=list(e.lazy_fields),
        )


def refusal_groups(refusals) -> list[tuple[str, str, str, str, list[str]]]:
    """Run.refusals in the proto-JSON mapping as (dataset, codec, mode, reason, the workers
    refusing), one row per refusal, in first-seen order; control's own have no worker."""
    groups: dict[tuple, set] = {}
    for r in refusals:
        key = (r.get("dataset", ""), r.get("codec", ""), r.get("decodeMode", ""), r.get("reason", ""))
        groups.setdefault(key, set()).add(r.get("workerId") or "control")
    return [(*k, sorted(w)) for k, w in groups.items()]


def schemas_root(state: Path) -> Path:
    return state / "schemas"


def prepare(entry: UserEntry, state: Path) -> Prepared:
    """Writes the dataset's folder (descriptors.binpb, dataset.json) under `state`/schemas/<key>,
    the key a hash of everything a worker builds from, so a changed schema gets a new folder."""
    user = entry.user
    files = user.files.SerializeToString(deterministic=True)
    manifest = {
        "id": user.id, "message": user.message.full_name, "descriptorSet": "descriptors.binpb",
        "fieldNames": entry.field_names, "lazyFields": list(entry.lazy_fields), "fingerprint": datasets.fingerprint(user.message),
    }
    text = json.dumps(manifest, indent=2) + "\n"
    key = hashlib.sha256(files + text.encode()).hexdigest()[:16]
    folder = schemas_root(state) / f"{user.id}-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("descriptors.binpb", files), ("dataset.json", text.encode())):
        path = folder / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    return Prepared(entry=entry, folder=folder)


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
