"""What every `codecbench` command shares: exit codes, the error a command raises, output helpers,
the stack folder (`.state/`) and where control and results are."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from google.protobuf import json_format

from .. import processes
from ..processes import Artifacts, PidDir


# Exit codes (README "Exit codes"): 0 ok; 1 a failed task or run, or compare found a slowdown;
# 2 an invalid scenario (scenario.EXIT_INVALID); 3 compare refused two runs measured under
# different conditions; 64 a usage error (sysexits' EX_USAGE; argparse's own 2 would read as an
# invalid scenario); 130 interrupted.
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_MISMATCH = 3
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130
TERMINAL_RUN = {"finished", "cancelled", "failed"}
ENDED_TASK = {"done", "failed", "cancelled"}


class CliError(Exception):
    """A message for the user and an exit code; printed without a traceback."""

    def __init__(self, message: str, code: int = EXIT_FAILED):
        super().__init__(message)
        self.code = code


def err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def to_json(message) -> dict:
    return json_format.MessageToDict(message)


def print_json(value) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))




class Local:
    """A stack's folder: control's data, logs, pid files and the address control bound. `up`,
    `browser` and `down` use `.state/` itself; each `run --local` has a folder of its own
    (`for_local_run`), so no stack ever stops, or shares a database with, another."""

    # `run --local` folders kept (with their logs and database) for looking into a past run.
    KEEP_LOCAL_RUNS = 10

    def __init__(self, root: Path | None = None, base: Path | None = None):
        self.root = root or processes.repo_root()
        self.state = processes.state_root(self.root)
        self.art = Artifacts(self.root)
        self.base = base or self.state
        self.pids = PidDir(self.base / "pids")
        self.logs = self.base / "logs"
        self.control_dir = self.base / "control"
        self.addr_file = self.base / "control.addr"

    @classmethod
    def for_local_run(cls) -> "Local":
        """`.state/local/<time>-<pid>/` for this `run --local`; older ones whose run has ended are
        pruned to the newest KEEP_LOCAL_RUNS."""
        up = cls()
        parent = up.state / "local"
        parent.mkdir(parents=True, exist_ok=True)
        old = sorted(d for d in parent.iterdir() if d.is_dir())
        for d in old[:max(0, len(old) - (cls.KEEP_LOCAL_RUNS - 1))]:
            owner = d.name.rsplit("-", 1)[-1]
            if not (owner.isdigit() and Path(f"/proc/{owner}").exists()):
                shutil.rmtree(d, ignore_errors=True)
        return cls(up.root, parent / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")

    def running_addr(self) -> str | None:
        """The address of control started by `up`, if it is still running."""
        if self.pids.alive("control") and self.addr_file.exists():
            return self.addr_file.read_text().strip() or None
        return None

    def forget_stale(self) -> None:
        for f, proc in self.pids.load_all():
            if not proc.alive():
                f.unlink(missing_ok=True)


def resolve_control(args) -> str:
    if args.control:
        return args.control
    if os.environ.get("CODECBENCH_CONTROL"):
        return os.environ["CODECBENCH_CONTROL"]
    return Local().running_addr() or processes.DEFAULT_LISTEN


def results_dir(args) -> Path:
    if getattr(args, "results_dir", None):
        return Path(args.results_dir)
    if os.environ.get("CODECBENCH_RESULTS"):
        return Path(os.environ["CODECBENCH_RESULTS"])
    return processes.repo_root() / "results"
