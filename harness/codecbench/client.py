"""gRPC connection to control: channel options, stubs, and waiting for workers."""

from __future__ import annotations

import collections
import os
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from .pb import hs, hs_grpc, ws, ws_grpc

# grpcio's default message limits (4 MiB) hold: control sends nothing larger (GetRun pages).
_OPTIONS = [
    # Control is on loopback or a LAN: an http_proxy in the environment must not capture it.
    ("grpc.enable_http_proxy", 0),
    # Identity only (bit 0 of gRPC core's compression bitset): control compresses blobs for a
    # client that advertises gzip or zstd (Scenario.compressions), and the link probe
    # (netprobe.py) must time the plain bytes.
    ("grpc.compression_enabled_algorithms_bitset", 1),
]


def target(addr: str) -> str:
    """host:port as grpcio wants it, from `host:port` or `http://host:port`."""
    for scheme in ("http://", "https://", "grpc://"):
        if addr.startswith(scheme):
            addr = addr[len(scheme):]
    return addr.rstrip("/")


class ControlUnreachable(Exception):
    pass


def load_token() -> str:
    """Control's token, when it requires one: the file named by CODECBENCH_TOKEN_FILE (the CLI's
    --token-file sets it), else CODECBENCH_TOKEN, else none (""). Processes the CLI starts inherit
    both variables, so control, the workers and the browser driver agree."""
    file = os.environ.get("CODECBENCH_TOKEN_FILE")
    if file:
        try:
            return Path(file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ControlUnreachable(f"cannot read the token file {file}: {exc.strerror or exc}") from None
    return os.environ.get("CODECBENCH_TOKEN", "").strip()


class _CallDetails(collections.namedtuple("_CallDetails", ("method", "timeout", "metadata", "credentials",
                                                            "wait_for_ready", "compression")),
                   grpc.ClientCallDetails):
    pass


class _Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
              grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds `authorization: Bearer TOKEN` to every call (grpcio has no per-channel metadata, and
    its call credentials need TLS)."""

    def __init__(self, token: str):
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, d):
        return _CallDetails(d.method, d.timeout, [*(d.metadata or ()), self._header], d.credentials,
                            getattr(d, "wait_for_ready", None), getattr(d, "compression", None))

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation, details, requests):
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation, details, requests):
        return continuation(self._details(details), requests)


@dataclass
class Control:
    addr: str
    channel: grpc.Channel
    harness: hs_grpc.HarnessServiceStub
    worker: ws_grpc.WorkerServiceStub

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "Control":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def put_blob(self, data: bytes, timeout: float = 600.0) -> str:
        """Stores `data` in control's blob store as the Rust and Java workers do (one UploadBlob
        stream, 1 MiB chunks: the most control takes in one); its blob id."""
        chunk = 1 << 20
        parts = (ws.UploadBlobRequest(offset=off, data=data[off:off + chunk], finish=off + chunk >= len(data))
                 for off in range(0, max(len(data), 1), chunk))
        return self.worker.UploadBlob(parts, timeout=timeout).blob_id

    def list_workers(self, timeout: float = 10.0):
        return self.harness.ListWorkers(hs.ListWorkersRequest(), timeout=timeout).workers

    def get_run(self, run_id: str, timeout: float = 60.0):
        """GetRun with every page merged into one response (control answers in pages under 4 MiB;
        `run` is taken from the last page, the newest)."""
        whole = self.harness.GetRun(hs.GetRunRequest(run_id=run_id), timeout=timeout)
        token = whole.next_page_token
        while token:
            page = self.harness.GetRun(hs.GetRunRequest(run_id=run_id, page_token=token), timeout=timeout)
            whole.tasks.extend(page.tasks)
            whole.measurements.extend(page.measurements)
            whole.run.CopyFrom(page.run)
            token = page.next_page_token
        whole.next_page_token = ""
        return whole


def connect(addr: str, ready_timeout: float = 5.0, token: str | None = None) -> Control:
    """Open a channel and wait until control answers; raise ControlUnreachable with a hint.
    Every call carries control's token (`token`, default load_token()) when there is one."""
    token = load_token() if token is None else token
    channel = grpc.insecure_channel(target(addr), options=_OPTIONS)
    try:
        grpc.channel_ready_future(channel).result(timeout=ready_timeout)
    except grpc.FutureTimeoutError:
        channel.close()
        raise ControlUnreachable(
            f"cannot reach control at {target(addr)} (waited {ready_timeout:.0f} s). "
            "Start it with `codecbench up`, pass --control ADDR, or use `codecbench run --local`."
        ) from None
    calls = grpc.intercept_channel(channel, _Bearer(token)) if token else channel
    return Control(addr=target(addr), channel=channel,
                   harness=hs_grpc.HarnessServiceStub(calls),
                   worker=ws_grpc.WorkerServiceStub(calls))


def worker_matches(worker, selector: str) -> bool:
    """A scenario names a worker by language (rust, java, browser) or by id (rust-1)."""
    return selector in (worker.id, worker.name, worker.environment.language)


def missing_selectors(workers, selectors: list[str]) -> list[str]:
    return [s for s in selectors if not any(worker_matches(w, s) for w in workers)]


def wait_for_workers(control: Control, selectors: list[str], timeout: float,
                     counts: dict[str, int] | None = None, alive=None) -> list:
    """Wait until every selector matches an attached worker (and `counts[sel]` workers match).

    With no selectors, waits for at least one worker. `alive()` may raise to abort early (e.g.
    when a worker process we started has exited). Returns the workers; raises TimeoutError naming
    what is missing and what is attached.
    """
    counts = counts or {}
    deadline = time.monotonic() + timeout
    while True:
        workers = list(control.list_workers())
        missing = [s for s in selectors
                   if sum(worker_matches(w, s) for w in workers) < counts.get(s, 1)]
        if not selectors and not workers:
            missing = ["any worker"]
        if not missing:
            return workers
        if alive is not None:
            alive()
        if time.monotonic() >= deadline:
            attached = ", ".join(w.id for w in workers) or "none"
            wanted = ", ".join(f"{counts[s]}× {s}" if counts.get(s, 1) > 1 else s for s in missing)
            waited = f"waited {timeout:.0f} s for workers; still missing" if timeout > 0 else "no attached worker for"
            raise TimeoutError(f"{waited}: {wanted} (attached: {attached})")
        time.sleep(0.2)
