"""Issue 32's upload probes against a real control on loopback: idle UploadBlob streams count
against the caps from the moment they open, are closed after the stream deadline and hold no
thread of control's; the per-client cap is keyed by who the client is (a worker's report secret),
not by its address, so four loopback addresses are one anonymous client."""
from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import grpc
import pytest

from codecbench.client import connect
from codecbench.pb import results, ws

IDLE_S = 3  # CODECBENCH_UPLOAD_IDLE_S: the stream deadline here (30 s by default)
PER_CLIENT = 16
SECRET_HEADER = "codecbench-report-secret"


def threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line")


def attach(c, name: str):
    """An attached worker (this process speaking WorkerService): its open stream and secret."""
    codec = results.CodecInfo(id="json", decode_modes=["typed"], library="probe", library_version="0")
    stream = c.worker.Attach(ws.AttachRequest(name=name, codecs=[codec]))
    first = next(stream)
    assert first.WhichOneof("message") == "attached"
    return stream, first.report_secret


def put(c, upload_id: str, secret: str | None = None, finish: bool = False):
    meta = [(SECRET_HEADER, secret)] if secret else None
    return c.worker.PutBlob(ws.PutBlobRequest(upload_id=upload_id, offset=0, data=b"x", finish=finish),
                            timeout=5, metadata=meta)


@pytest.fixture
def idle_control(monkeypatch, start_control):
    monkeypatch.setenv("CODECBENCH_UPLOAD_IDLE_S", str(IDLE_S))
    return start_control()


def test_idle_upload_streams_count_from_the_start_hold_no_thread_and_are_closed(idle_control):
    control = idle_control
    release = threading.Event()

    def idle():  # a stream that never sends a chunk until released
        release.wait(60)
        return
        yield

    with control.client() as c:
        stream, secret = attach(c, "probe")
        before = threads(control.proc.pid)
        calls = [c.worker.UploadBlob.future(idle(), timeout=60) for _ in range(80)]
        try:
            deadline = time.monotonic() + 10
            while sum(f.done() for f in calls) < len(calls) - PER_CLIENT and time.monotonic() < deadline:
                time.sleep(0.05)
            refused = [f for f in calls if f.done()]
            # From the moment they open: the anonymous loopback allowance (16) is all they get.
            assert len(refused) == len(calls) - PER_CLIENT, f"{len(refused)} of 80 idle streams refused"
            assert all(f.exception().code() == grpc.StatusCode.RESOURCE_EXHAUSTED for f in refused)
            assert "16 unfinished uploads" in refused[0].exception().details()
            # The 16 open streams pin no blocking thread each (before: one each, up to 512).
            grown = threads(control.proc.pid) - before
            assert grown <= 6, f"control grew by {grown} threads for 16 idle streams"
            # Everyone else's blob calls answer at once: a worker has an allowance of its own.
            t = time.monotonic()
            r = put(c, "probe-put", secret, finish=True)
            got = list(c.worker.GetBlob(ws.GetBlobRequest(blob_id=r.blob_id), timeout=5))
            assert got[0].data == b"x" and time.monotonic() - t < 2
            # After the stream deadline the idle streams are closed, and their slots freed.
            open_ = [f for f in calls if not f.done()]
            for f in open_:
                e = f.exception(timeout=IDLE_S + 10)
                assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED and f"no chunk for {IDLE_S} s" in e.details(), e
            r = c.worker.UploadBlob(iter([ws.UploadBlobRequest(offset=0, data=b"after", finish=True)]), timeout=10)
            assert r.size == 5
        finally:
            release.set()
            stream.cancel()
    assert not list((control.state_dir / "blobs" / "uploads").iterdir()), "an idle stream left a file"


class SourceProxy:
    """A loopback TCP relay whose outgoing connections leave from `source` (127.0.0.N): a client
    that connects through it reaches control from that address."""

    def __init__(self, target: str, source: str):
        host, port = target.rsplit(":", 1)
        self.target, self.source = (host, int(port)), source
        self.server = socket.create_server(("127.0.0.1", 0))
        self.addr = f"127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target, source_address=(self.source, 0))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.server.close()


def test_four_loopback_addresses_are_one_client_and_a_worker_keeps_its_own_allowance(control):
    proxies = [SourceProxy(control.addr, f"127.0.0.{n}") for n in range(2, 6)]
    clients = [connect(p.addr) for p in proxies]
    try:
        accepted, refused = 0, []
        for i, c in enumerate(clients):
            for k in range(PER_CLIENT):
                try:
                    put(c, f"addr{i}-{k}")
                    accepted += 1
                except grpc.RpcError as e:
                    refused.append(e)
        # Before: 16 per address, 64 in all, and every other client got "64 uploads are unfinished".
        assert accepted == PER_CLIENT, f"{accepted} unfinished uploads from one machine's four addresses"
        assert all(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for e in refused)
        assert "anonymous, on loopback" in refused[0].details(), refused[0].details()
        with control.client() as c:
            stream, secret = attach(c, "honest")
            try:
                for k in range(PER_CLIENT):
                    put(c, f"worker-{k}", secret)
                with pytest.raises(grpc.RpcError) as own_cap:
                    put(c, "worker-one-more", secret)
                assert "16 unfinished uploads are worker honest-1's" in own_cap.value.details()
                with pytest.raises(grpc.RpcError) as forged:
                    put(c, "forged", "0" * 32)
                assert forged.value.code() == grpc.StatusCode.PERMISSION_DENIED
            finally:
                stream.cancel()
    finally:
        for c in clients:
            c.close()
        for p in proxies:
            p.close()


def test_near_the_quota_stored_bytes_upload_again_and_a_refusal_names_the_size(monkeypatch, start_control):
    """A re-upload of a stored blob adds nothing, so a full store takes it (a transfer leg sends
    the same payload round after round); a refusal says how much, not "0.0 MiB"."""
    monkeypatch.setenv("CODECBENCH_BLOB_QUOTA_MIB", "1")
    control = start_control()
    payload = bytes(range(256)) * 3900  # 998,400 bytes of the 1 MiB quota
    with control.client() as c:
        first = c.worker.UploadBlob(iter([ws.UploadBlobRequest(offset=0, data=payload, finish=True)]), timeout=10)
        again = c.worker.UploadBlob(iter([ws.UploadBlobRequest(offset=0, data=payload, finish=True)]), timeout=10)
        assert again.blob_id == first.blob_id
        with pytest.raises(grpc.RpcError) as full:
            c.worker.UploadBlob(iter([ws.UploadBlobRequest(offset=0, data=b"y" * 60_000, finish=True)]), timeout=10)
        assert full.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "58.6 KiB more would pass its quota of 1.0 MiB" in full.value.details(), full.value.details()


def test_real_workers_store_payloads_while_anonymous_clients_hold_the_shared_allowance(monkeypatch, start_control, procs):
    """Every worker sends its report secret on its blob calls (proto/README.md), so a local client
    holding the 16 anonymous uploads unfinished does not stop any worker's payload: before, none sent it,
    and every prepare task failed 'storing the payload failed: ... 16 unfinished uploads'."""
    from google.protobuf import json_format

    from codecbench.client import wait_for_workers
    from codecbench.pb import hs, scenario as scenario_pb2
    from conftest import ART, _check_alive, processes

    languages = [kind for kind in ("rust", "java", "browser") if not ART.missing(kind)]
    if "rust" not in languages:
        pytest.skip("the Rust worker is not built")
    # The held uploads must outlast the run: once expired, they would free the anonymous slots and
    # the run would pass without any worker naming itself. Unfinished PutBlob uploads, not idle
    # UploadBlob streams: those are closed after at most 30 s, whatever this says.
    monkeypatch.setenv("CODECBENCH_UPLOAD_IDLE_S", "600")
    control = start_control()
    started = [processes.start_worker(ART, kind, control.addr, control.logs / f"{kind}.log") for kind in languages]
    procs.extend(started)
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"name": "caps", "datasets": ["dummy"], "codecs": ["json"], "decodeModes": ["typed"],
                           "counts": [5], "operations": ["OPERATION_ENCODE"], "producers": languages,
                           "sampling": {"warmupMs": 1, "maxWarmupMs": 100, "rounds": 1, "minRoundMs": 1, "trials": 1,
                                        "taskTimeoutS": 120}}, s)
    with control.client() as c:
        wait_for_workers(c, languages, 120, alive=lambda: [_check_alive(p) for p in started])
        for k in range(PER_CLIENT):
            put(c, f"held-{k}")

        def anonymous_allowance_taken():
            with pytest.raises(grpc.RpcError) as one_more:
                put(c, "one-more")
            assert one_more.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "anonymous, on loopback" in one_more.value.details(), one_more.value.details()

        anonymous_allowance_taken()
        run = None
        for resp in c.harness.StartRun(hs.StartRunRequest(scenario=s, source="caps-test"), timeout=300):
            if resp.event.WhichOneof("event") == "run":
                run = resp.event.run
        anonymous_allowance_taken()  # all along the run
        got = c.get_run(run.id)
    failures = [f"{t.producer_worker_id} {'prepare' if t.prepare else 'trial'} {t.status}: {t.failure}" for t in got.tasks if t.status != results.TASK_STATUS_DONE]
    assert not failures, (failures, [(t.producer_worker_id, t.prepare, t.status) for t in got.tasks])
    prepares = [t for t in got.tasks if t.prepare]
    assert sorted(t.producer_worker_id.rsplit("-", 1)[0] for t in prepares) == sorted(languages)
