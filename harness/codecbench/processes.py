"""Starting and stopping local control and workers: used by `up`/`down`, `run --local` and the tests.

Every process is started in its own session (so a Ctrl-C in the terminal reaches only the CLI,
which then cancels the run before stopping them) with stdout and stderr appended to a log file.
A pid file records the pid together with a marker string from its command line, so that `down`
never signals a process that merely reuses an old pid.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_LISTEN = "127.0.0.1:7600"
LISTENING = re.compile(r"codecbench-control listening on (\S+)")
# The worker kinds this module starts: every language of codecs/catalogue.yaml (catalogue.LANGUAGES;
# a test keeps the two equal).
KINDS = ("rust", "java", "browser", "node", "go")


def repo_root() -> Path:
    # harness/codecbench/processes.py -> repo root (the package is installed editable).
    return Path(__file__).resolve().parents[2]


def state_root(root: Path | None = None) -> Path:
    env = os.environ.get("CODECBENCH_STATE")
    return Path(env).resolve() if env else (root or repo_root()) / ".state"


class LaunchError(Exception):
    """A process could not be started or did not become ready; the message says why."""


@dataclass
class Artifacts:
    """Where the built programs live, and which kinds are missing (with the reason)."""

    root: Path

    @property
    def control(self) -> Path:
        return self.root / "rust/target/release/codecbench-control"

    @property
    def rust_worker(self) -> Path:
        return self.root / "rust/target/release/codecbench-worker"

    @property
    def java_jar(self) -> Path:
        return self.root / "java/target/codecbench-java-worker.jar"

    @property
    def web_dist(self) -> Path:
        return self.root / "web/dist"

    @property
    def browser_driver(self) -> Path:
        return self.root / "web/driver/driver.mjs"

    @property
    def node_worker(self) -> Path:
        """The Node.js worker, built by `make web` (npm run build:node) into web/dist-node/."""
        return self.root / "web/dist-node/main.js"

    @property
    def go_worker(self) -> Path:
        """The Go worker, built by `make go` into go/bin/."""
        return self.root / "go/bin/codecbench-go-worker"

    def missing(self, kind: str) -> str | None:
        """None when `kind` can be started, else a sentence saying what is not built."""
        if kind == "control":
            return None if self.control.exists() else f"{_rel(self.control, self.root)} is not built"
        if kind == "rust":
            return None if self.rust_worker.exists() else f"{_rel(self.rust_worker, self.root)} is not built"
        if kind == "java":
            return None if self.java_jar.exists() else f"{_rel(self.java_jar, self.root)} is not built"
        if kind == "browser":
            if not (self.web_dist / "index.html").exists():
                return f"{_rel(self.web_dist / 'index.html', self.root)} is not built"
            if not self.browser_driver.exists():
                return f"{_rel(self.browser_driver, self.root)} does not exist"
            if not (self.root / "web/node_modules/puppeteer-core").exists():
                return "web/node_modules/puppeteer-core is not installed (npm ci in web/)"
            if not (shutil.which("chromium") or Path("/usr/bin/chromium").exists()):
                return "chromium is not installed (apt-get install chromium)"
            return None
        if kind == "node":
            if not self.node_worker.exists():
                return f"{_rel(self.node_worker, self.root)} is not built (make web)"
            if not shutil.which("node"):
                return "node is not on PATH"
            return None
        if kind == "go":
            return None if self.go_worker.exists() else f"{_rel(self.go_worker, self.root)} is not built (make go)"
        raise ValueError(f"unknown process kind {kind!r}")


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


@dataclass
class Proc:
    """A started process. `popen` is set when this Python process is its parent."""

    kind: str
    name: str
    pid: int
    log: Path
    marker: str
    popen: subprocess.Popen | None = field(default=None, repr=False)

    def alive(self) -> bool:
        if self.popen is not None:
            return self.popen.poll() is None
        return _pid_matches(self.pid, self.marker)

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "name": self.name, "pid": self.pid,
                           "log": str(self.log), "marker": self.marker})

    @classmethod
    def from_json(cls, text: str) -> "Proc":
        d = json.loads(text)
        return cls(kind=d["kind"], name=d["name"], pid=int(d["pid"]), log=Path(d["log"]),
                   marker=d["marker"])


def _pid_matches(pid: int, marker: str) -> bool:
    """True when `pid` is running and its command line contains `marker` (not a reused pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # A zombie (state Z) has exited; only its parent has not reaped it yet.
    state = stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else ""
    return marker in cmdline and state != "Z"


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    tail = text.splitlines()[-lines:]
    return "\n".join("    " + line for line in tail) or "    (empty log)"


def spawn(kind: str, name: str, argv: list[str], log: Path, marker: str,
          env: dict[str, str] | None = None, cwd: Path | None = None, netns: str | None = None,
          hostname: str | None = None) -> Proc:
    """Start `argv` (in network namespace `netns` when given: `ip netns exec` execs it, so the pid
    and the command line are the program's own; with `hostname`, in a UTS namespace of its own
    that bears that name, so the program reports a host of its own)."""
    if hostname:
        argv = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', hostname, *argv]
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        out.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {shlex.join(argv)}\n".encode())
        out.flush()
        try:
            popen = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                # Own session: terminal Ctrl-C reaches the CLI only; we stop these ourselves.
                start_new_session=True, env={**os.environ, **(env or {})}, cwd=cwd,
            )
        except OSError as exc:
            raise LaunchError(f"cannot start {name}: {argv[0]}: {exc.strerror}") from None
    return Proc(kind=kind, name=name, pid=popen.pid, log=log, marker=marker, popen=popen)


def start_control(art: Artifacts, listen: str, state_dir: Path, log: Path,
                  timeout: float = 30.0, netns: str | None = None,
                  extra: tuple[str, ...] = ()) -> tuple[Proc, str]:
    """Start control and return it with the address it bound (parsed from its first line)."""
    if (why := art.missing("control")):
        raise LaunchError(f"cannot start control: {why} (build it with: make build)")
    state_dir.mkdir(parents=True, exist_ok=True)
    argv = [str(art.control), "--listen", listen, "--state-dir", str(state_dir)]
    # Control serves the browser worker page on its own origin when the page is built.
    if (art.web_dist / "index.html").exists():
        argv += ["--web-dir", str(art.web_dist)]
    argv += list(extra)
    start_offset = log.stat().st_size if log.exists() else 0
    proc = spawn("control", "control", argv, log, marker="codecbench-control", netns=netns)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(log, "rb") as f:
            f.seek(start_offset)
            m = LISTENING.search(f.read().decode(errors="replace"))
        if m:
            return proc, m.group(1)
        if not proc.alive():
            raise LaunchError(f"control exited before listening on {listen} "
                              f"(exit code {proc.popen.returncode}); log {log}:\n{log_tail(log)}")
        time.sleep(0.05)
    stop(proc)
    raise LaunchError(f"control did not report listening within {timeout:.0f} s; log {log}:\n{log_tail(log)}")


def worker_url(addr: str) -> str:
    return addr if "://" in addr else f"http://{addr}"


def start_worker(art: Artifacts, kind: str, addr: str, log: Path, name: str | None = None,
                 count: int = 1, extra: tuple[str, ...] = (), netns: str | None = None,
                 program: Path | None = None, hostname: str | None = None) -> Proc:
    """Start one worker process of `kind` (rust, java, browser, node) against control at `addr` (in
    network namespace `netns` when given); `extra` arguments go to the worker (the browser's to its
    driver); `program` replaces the Rust worker binary (one built with a user's datasets)."""
    if (why := art.missing(kind)):
        raise LaunchError(f"cannot start the {kind} worker: {why}")
    url = worker_url(addr)
    if kind == "rust":
        argv = [str(program or art.rust_worker), "--control", url, "--name", name or "rust", *extra]
        marker = "codecbench-worker"
    elif kind == "java":
        opts = shlex.split(os.environ.get("CODECBENCH_JAVA_OPTS", ""))
        argv = ["java", *opts, "-jar", str(art.java_jar), "--control", url, "--name", name or "java", *extra]
        marker = art.java_jar.name
    elif kind == "browser":
        # One driver process runs `count` pages; its own log is beside ours.
        driver_log = log.with_name(log.stem + ".pages.log")
        argv = ["node", str(art.browser_driver), "--control", url, "--count", str(count),
                "--log", str(driver_log), *extra]
        marker = "driver.mjs"
    elif kind == "node":
        # Each trial runs in a child node process (pinned with taskset for a lane), in this group.
        # Node 20 has JSON.rawJSON and JSON.parse's source text (exact int64 in json) behind this flag.
        argv = ["node", "--harmony-json-parse-with-source", str(art.node_worker), "--control", url,
                "--name", name or "node", *extra]
        marker = "dist-node/main.js"
    elif kind == "go":
        # Each trial runs in a child process of the same binary (`trial`), pinned to its lane.
        argv = [str(art.go_worker), "--control", url, "--name", name or "go", *extra]
        marker = "codecbench-go-worker"
    else:
        raise ValueError(f"unknown worker kind {kind!r}")
    env = None
    if kind == "browser" and netns:
        # Off loopback, plain http is not a secure context: without this Chromium would not
        # cross-origin isolate control's page, and its clock would be coarsened (flags.mjs).
        env = {"CODECBENCH_SECURE_ORIGIN": url}
    return spawn(kind, name or kind, argv, log, marker=marker, cwd=art.root, netns=netns, env=env,
                 hostname=hostname)


def stop(proc: Proc, timeout: float = 5.0) -> bool:
    """SIGTERM the process group, then SIGKILL after `timeout`. True when something was stopped."""
    if not proc.alive():
        if proc.popen is not None:
            proc.popen.poll()
        return False
    _signal_group(proc.pid, signal.SIGTERM)
    if _wait_gone(proc, timeout):
        return True
    _signal_group(proc.pid, signal.SIGKILL)
    _wait_gone(proc, 5.0)
    return True


def _signal_group(pid: int, sig: int) -> None:
    # Started with start_new_session, so the group id is the pid; the group also holds children
    # (Chromium under the browser driver).
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _wait_gone(proc: Proc, timeout: float) -> bool:
    if proc.popen is not None:
        try:
            proc.popen.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_matches(proc.pid, proc.marker):
            return True
        time.sleep(0.05)
    return False


class PidDir:
    """The pid files of processes started in the background (`.state/pids/*.pid`)."""

    def __init__(self, path: Path):
        self.path = path

    def save(self, proc: Proc, file_name: str | None = None) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        target = self.path / f"{file_name or proc.name}.pid"
        target.write_text(proc.to_json() + "\n")
        return target

    def load_all(self) -> list[tuple[Path, Proc]]:
        out = []
        for f in sorted(self.path.glob("*.pid")):
            try:
                out.append((f, Proc.from_json(f.read_text())))
            except (ValueError, KeyError, OSError):
                f.unlink(missing_ok=True)  # unreadable: nothing we can safely signal
        return out

    def alive(self, file_name: str) -> Proc | None:
        f = self.path / f"{file_name}.pid"
        if not f.exists():
            return None
        try:
            proc = Proc.from_json(f.read_text())
        except (ValueError, KeyError, OSError):
            return None
        return proc if proc.alive() else None

    def next_name(self, prefix: str) -> str:
        n = 1
        while (self.path / f"{prefix}-{n}.pid").exists():
            n += 1
        return f"{prefix}-{n}"


def kind_of_selector(selector: str) -> str | None:
    """Which worker kind a scenario producer/consumer names: a language or a worker id (rust-1)."""
    if selector in KINDS:
        return selector
    base = re.sub(r"-\d+$", "", selector)
    return base if base in KINDS else None
