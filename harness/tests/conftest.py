"""Process fixtures: control on an ephemeral port in a temp state dir, workers, and a teardown that
always stops them. They use the same launcher as the CLI (codecbench.processes)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codecbench import processes
from codecbench.client import connect, wait_for_workers

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
ART = processes.Artifacts(processes.repo_root())
CODECBENCH = Path(sys.executable).parent / "codecbench"


def require_rust() -> None:
    missing = [why for why in (ART.missing("control"), ART.missing("rust")) if why]
    if missing:
        pytest.skip("Rust binaries absent: " + "; ".join(missing) + " (the Makefile builds them before tests)")


class ControlHandle:
    """A control process on 127.0.0.1:0 that can be stopped and restarted on the same state dir."""

    def __init__(self, state_dir: Path, logs: Path):
        self.state_dir = state_dir
        self.logs = logs
        self.proc = None
        self.addr = None
        self.starts = 0

    def start(self, listen: str = "127.0.0.1:0") -> None:
        """Start control; `listen=self.addr` restarts it where its workers expect it."""
        self.starts += 1
        self.proc, self.addr = processes.start_control(
            ART, listen, self.state_dir, self.logs / f"control-{self.starts}.log")

    def stop(self) -> None:
        if self.proc is not None:
            processes.stop(self.proc)

    def client(self):
        return connect(self.addr)


@pytest.fixture
def control(tmp_path):
    require_rust()
    handle = ControlHandle(tmp_path / "state", tmp_path / "logs")
    handle.start()
    yield handle
    handle.stop()


@pytest.fixture
def start_control(tmp_path):
    """Starts a control when called, after the test has set the environment it reads (a token, a
    quota...); stopped at teardown."""
    started: list[ControlHandle] = []

    def start() -> ControlHandle:
        require_rust()
        handle = ControlHandle(tmp_path / "state", tmp_path / "logs")
        started.append(handle)
        handle.start()
        return handle

    yield start
    for handle in started:
        handle.stop()


@pytest.fixture
def procs():
    """Processes a test starts; all stopped at teardown, whatever happened."""
    started: list[processes.Proc] = []
    yield started
    for p in reversed(started):
        processes.stop(p, timeout=3)


def start_rust_worker(control: ControlHandle, procs: list, name: str = "rust"):
    proc = processes.start_worker(ART, "rust", control.addr, control.logs / f"{name}.log", name=name)
    procs.append(proc)
    with control.client() as c:
        wait_for_workers(c, [name], 30, alive=lambda: _check_alive(proc))
    return proc


def start_language_worker(control: ControlHandle, procs: list, language: str):
    """A Rust, Java or browser worker attached to `control` (the test is skipped when that worker
    is not built)."""
    if (why := ART.missing(language)):
        pytest.skip(f"{language} worker not built: {why} (the Makefile builds it before tests)")
    proc = processes.start_worker(ART, language, control.addr, control.logs / f"{language}.log")
    procs.append(proc)
    with control.client() as c:
        wait_for_workers(c, [language], 120, alive=lambda: _check_alive(proc))
    return proc


@pytest.fixture
def rust_worker(control, procs):
    return start_rust_worker(control, procs)


def _check_alive(proc: processes.Proc) -> None:
    if not proc.alive():
        raise RuntimeError(f"{proc.name} exited; log:\n{processes.log_tail(proc.log)}")


class FakeWorker:
    """tests/fake_worker.py as a subprocess whose stdout the test reads line by line."""

    def __init__(self, control: ControlHandle, behaviour: str, name: str = "fake", *extra: str):
        self.popen = subprocess.Popen(
            [sys.executable, str(HERE / "fake_worker.py"), "--control", control.addr,
             "--behaviour", behaviour, "--name", name, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.worker_id = self.expect("ATTACHED").split()[1]

    def expect(self, prefix: str, timeout: float = 60) -> str:
        """The next stdout line starting with `prefix` (other lines are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            line = self.popen.stdout.readline()
            if not line:
                raise AssertionError(f"fake worker exited before {prefix!r}; output:\n{''.join(seen)}")
            seen.append(line)
            if line.startswith(prefix):
                return line.strip()
        raise AssertionError(f"fake worker did not print {prefix!r} within {timeout} s")

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(10)


@pytest.fixture
def fake_worker(control):
    made: list[FakeWorker] = []

    def make(behaviour: str, name: str = "fake", *extra: str) -> FakeWorker:
        fw = FakeWorker(control, behaviour, name, *extra)
        made.append(fw)
        return fw

    yield make
    for fw in made:
        fw.kill()
        fw.popen.stdout.close()


def run_cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """The installed `codecbench` command as a user runs it."""
    return subprocess.run([str(CODECBENCH), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})


def write_scenario(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def run_every_task_done(ctl: ControlHandle, scenario: Path, out: Path):
    """`codecbench run SCENARIO` against ctl (exit 0), then the run as control stores it
    (GetRunResponse), with every task done."""
    from codecbench.pb import hs, results as results_pb2

    res = run_cli("--control", ctl.addr, "run", str(scenario), "--results-dir", str(out),
                  "--no-progress", "--no-report", timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    with ctl.client() as c:
        run_id = c.harness.ListRuns(hs.ListRunsRequest(limit=1), timeout=10).runs[0].id
        resp = c.harness.GetRun(hs.GetRunRequest(run_id=run_id), timeout=30)
    assert all(t.status == results_pb2.TASK_STATUS_DONE for t in resp.tasks), [t.failure for t in resp.tasks if t.failure]
    return resp
