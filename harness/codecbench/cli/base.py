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
from .. import scenario as _scenario
from ..processes import Artifacts, PidDir


# Exit codes, one per outcome a script or a CI job must tell apart. EXIT_CODES is what `--help`
# prints and the README's table says; tests/test_cli.py provokes every one.
EXIT_OK = 0
EXIT_FAILED = 1  # a task or the run failed, compare found something slower or newly failing, control unreachable
EXIT_INVALID = _scenario.EXIT_INVALID  # 2: an invalid scenario (here, or as control judged it)
EXIT_MISMATCH = 3  # compare: runs measured under different conditions, or nothing in common
EXIT_NO_RUN = 4  # no such run: not in the results folder, and control does not have it (or is not reachable)
EXIT_USAGE = 64  # a usage error (sysexits' EX_USAGE; argparse's own 2 would read as an invalid scenario)
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM (128 + the signal)
EXIT_CODES = {
    EXIT_OK: "ok (compare: nothing slower)",
    EXIT_FAILED: "a task or the run failed, control could not be reached, or compare found something "
                 "slower or newly failing",
    EXIT_INVALID: "an invalid scenario (validate, or control rejected it)",
    EXIT_MISMATCH: "compare: the runs were measured under different conditions, or have nothing in common",
    EXIT_NO_RUN: "no such run (neither in the results folder nor at control)",
    EXIT_USAGE: "a usage error (an unknown flag, a bad value)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C; what was measured is kept)",
}


def exit_codes_text() -> str:
    return "exit codes:\n" + "\n".join(f"  {code:<4}{text}" for code, text in EXIT_CODES.items())


TERMINAL_RUN = {"finished", "cancelled", "failed"}
# same_bytes: not run, its work measured by a lead cell (Sampling.repeat_same_bytes off).
ENDED_TASK = {"done", "failed", "cancelled", "same_bytes"}


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
