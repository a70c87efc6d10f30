"""gRPC connection to control: channel options, stubs, and waiting for workers."""

from __future__ import annotations

import time
from dataclasses import dataclass

import grpc

from .pb import hs, hs_grpc, ws_grpc

# GetRun of a large run returns every measurement in one message; 4 MiB (the default) is too small.
_MAX_MESSAGE = 256 * 1024 * 1024
_OPTIONS = [
    ("grpc.max_receive_message_length", _MAX_MESSAGE),
    ("grpc.max_send_message_length", _MAX_MESSAGE),
    # Control is on loopback or a LAN: an http_proxy in the environment must not capture it.
    ("grpc.enable_http_proxy", 0),
]


def target(addr: str) -> str:
    """host:port as grpcio wants it, from `host:port` or `http://host:port`."""
    for scheme in ("http://", "https://", "grpc://"):
        if addr.startswith(scheme):
            addr = addr[len(scheme):]
    return addr.rstrip("/")


class ControlUnreachable(Exception):
    pass


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

    def list_workers(self, timeout: float = 10.0):
        return self.harness.ListWorkers(hs.ListWorkersRequest(), timeout=timeout).workers


def connect(addr: str, ready_timeout: float = 5.0) -> Control:
    """Open a channel and wait until control answers; raise ControlUnreachable with a hint."""
    channel = grpc.insecure_channel(target(addr), options=_OPTIONS)
    try:
        grpc.channel_ready_future(channel).result(timeout=ready_timeout)
    except grpc.FutureTimeoutError:
        channel.close()
        raise ControlUnreachable(
            f"cannot reach control at {target(addr)} (waited {ready_timeout:.0f} s). "
            "Start it with `codecbench up`, pass --control ADDR, or use `codecbench run --local`."
        ) from None
    return Control(addr=target(addr), channel=channel,
                   harness=hs_grpc.HarnessServiceStub(channel),
                   worker=ws_grpc.WorkerServiceStub(channel))


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
