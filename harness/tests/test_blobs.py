"""The blob store has a quota, and `codecbench gc` removes the blobs no active run needs (results
stay). Control's grace period (blobs stored in the last 10 minutes are kept) is 0 here."""
from __future__ import annotations

import hashlib
import json
import subprocess
import time
from pathlib import Path

import pytest

from codecbench.pb import hs, scenario as scenario_pb2, ws
from conftest import CODECBENCH, ControlHandle, FakeWorker, run_cli, start_rust_worker, write_scenario

SCENARIO = """
datasets: [beers]
codecs: [json]
decodeModes: [typed]
counts: [5]
operations: [encode, decode]
sampling: {warmupMs: 5, maxWarmupMs: 200, rounds: 3, minRoundMs: 1, taskTimeoutS: 60, trials: 1}
"""


def blob_files(control: ControlHandle) -> set[str]:
    root = control.state_dir / "blobs"
    return {p.name for p in root.glob("*/*") if p.parent.name != "uploads"}


def gc(control: ControlHandle, *extra: str) -> dict:
    res = run_cli("--control", control.addr, "gc", "--json", *extra)
    assert res.returncode == 0, res.stdout + res.stderr
    return json.loads(res.stdout)


def test_gc_removes_what_no_active_run_needs_and_keeps_results(tmp_path, monkeypatch, procs, start_control):
    monkeypatch.setenv("CODECBENCH_GC_GRACE_S", "0")
    control = start_control()
    start_rust_worker(control, procs)
    done = run_cli("--control", control.addr, "run", str(write_scenario(tmp_path / "s.yaml", SCENARIO)),
                   "--results-dir", str(tmp_path / "out"), "--no-progress", "--no-report", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    finished = blob_files(control)
    assert len(finished) >= 2, f"canonical data and a payload: {finished}"
    dry = gc(control, "--dry-run")
    assert dry["blobs_removed"] == len(finished) and blob_files(control) == finished, "a dry run removes nothing"
    # A second run is held open by a worker that never answers: its canonical data is needed.
    fake = FakeWorker(control, "hang")
    hang = subprocess.Popen([str(CODECBENCH), "--control", control.addr, "run",
                             str(write_scenario(tmp_path / "h.yaml", SCENARIO.replace("[beers]", "[dummy]")
                                                + "producers: [fake]\n")),
                             "--no-progress", "--no-report", "--results-dir", str(tmp_path / "h")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        fake.expect("TASK")
        result = gc(control)
        left = blob_files(control)
        assert result["blobs_removed"] == len(finished) and not (left & finished), (result, left)
        assert result["blobs_kept"] == len(left) == 1, (result, left)
        with control.client() as c:
            # The running run's canonical data is still served.
            data = b"".join(ch.data for ch in c.worker.GetBlob(ws.GetBlobRequest(blob_id=next(iter(left))), timeout=10))
            assert data, "the kept blob is readable"
            # The finished run's results are all still there.
            first = c.harness.ListRuns(hs.ListRunsRequest(limit=2), timeout=10).runs[1]
            assert len(c.get_run(first.id).measurements) > 0
    finally:
        fake.kill()
        fake.popen.stdout.close()
        hang.wait(60)


def test_a_full_blob_store_refuses_a_run_saying_why(tmp_path, monkeypatch, procs, start_control):
    monkeypatch.setenv("CODECBENCH_BLOB_QUOTA_MIB", "0")
    control = start_control()
    start_rust_worker(control, procs)
    res = run_cli("--control", control.addr, "run", str(write_scenario(tmp_path / "s.yaml", SCENARIO)),
                  "--results-dir", str(tmp_path / "out"), "--no-progress", "--no-report", timeout=120)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "RESOURCE_EXHAUSTED" in out and "blob store is full" in out and "codecbench gc" in out, out


def vm_hwm_kib(pid: int) -> int:
    """The process's peak resident set (VmHWM), KiB."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_million_records_are_stored_in_bounded_memory(control, fake_worker):
    """Control writes canonical data record by record into the blob store (it once built 1 M
    records in memory first: 3.1 GB)."""
    fake_worker("hang")
    before = vm_hwm_kib(control.proc.pid)
    scenario = scenario_pb2.Scenario(datasets=["numeric"], codecs=["json"], counts=[1_000_000],
                                     operations=[scenario_pb2.OPERATION_ENCODE],
                                     sampling=scenario_pb2.Sampling(trials=1, task_timeout_s=60))
    with control.client() as c:
        stream = c.harness.StartRun(hs.StartRunRequest(scenario=scenario, source="memory-test"), timeout=600)
        run = next(stream).event.run  # sent once the canonical data is stored
        growth_mib = (vm_hwm_kib(control.proc.pid) - before) / 1024
        c.harness.CancelRun(hs.CancelRunRequest(run_id=run.id), timeout=30)
        stream.cancel()
        tasks = c.harness.GetRun(hs.GetRunRequest(run_id=run.id), timeout=30).tasks
    assert growth_mib <= 64, f"control's peak RSS grew by {growth_mib:.0f} MiB for 1 M records"
    size = max(b.stat().st_size for b in (control.state_dir / "blobs").glob("*/*") if b.parent.name != "uploads")
    assert size > 10_000_000, f"the canonical blob holds 1 M records ({size} bytes)"
    assert tasks


@pytest.mark.parametrize("method", ["PutBlob", "UploadBlob"])
def test_a_100_mib_payload_passes_through_control_in_bounded_memory(control, method):
    """A 100 MiB payload uploaded in 1 MiB chunks, as the browser (PutBlob, one call per chunk) or
    the Rust and Java workers (UploadBlob, one stream) send it, and downloaded through GetBlob:
    control appends chunks to a file and streams them back from it, so its peak RSS grows by less
    than 32 MiB (issue 12's bound), and the bytes come back whole."""
    import hashlib
    import os
    import uuid

    size, chunk = 100 << 20, 1 << 20
    block = os.urandom(chunk)  # 100 distinct chunks: each is the block with its index in front
    sha = hashlib.sha256()

    def chunks():
        for i in range(size // chunk):
            data = i.to_bytes(4, "big") + block[4:]
            sha.update(data)
            yield i * chunk, data, i == size // chunk - 1

    before = vm_hwm_kib(control.proc.pid)
    with control.client() as c:
        if method == "PutBlob":
            upload = uuid.uuid4().hex
            for offset, data, finish in chunks():
                r = c.worker.PutBlob(ws.PutBlobRequest(upload_id=upload, offset=offset, data=data, finish=finish),
                                     timeout=30)
        else:
            # A generator: grpcio takes each chunk when the stream has room for it.
            r = c.worker.UploadBlob((ws.UploadBlobRequest(offset=o, data=d, finish=f) for o, d, f in chunks()),
                                    timeout=120)
        blob_id = r.blob_id
        assert (blob_id, r.size) == (sha.hexdigest(), size), "the blob is named by the SHA-256 of its bytes"
        after_upload = vm_hwm_kib(control.proc.pid)
        down, received = hashlib.sha256(), 0
        for ch in c.worker.GetBlob(ws.GetBlobRequest(blob_id=blob_id), timeout=120):
            assert ch.offset == received and ch.total_size == size
            down.update(ch.data)
            received += len(ch.data)
    growth = {"upload": (after_upload - before) / 1024, "upload+download": (vm_hwm_kib(control.proc.pid) - before) / 1024}
    assert received == size and down.hexdigest() == blob_id
    assert growth["upload+download"] < 32, f"control's peak RSS grew by {growth} MiB for a 100 MiB payload"


def test_an_upload_stream_that_breaks_off_stores_nothing_and_leaves_no_file(control):
    """UploadBlob's failures: a stream that ends without `finish`, a chunk that does not follow
    the bytes before it, a chunk over 1 MiB and a client that cancels mid-stream each store
    nothing, leave no file in uploads/, and control goes on serving (the next upload works)."""
    import grpc

    uploads = control.state_dir / "blobs" / "uploads"
    one = bytes(range(256)) * 4096  # 1 MiB
    cases = {
        "no finish": ([ws.UploadBlobRequest(offset=0, data=one)], grpc.StatusCode.INVALID_ARGUMENT,
                      "ended without a chunk marked `finish`: nothing was stored"),
        "gap": ([ws.UploadBlobRequest(offset=0, data=one), ws.UploadBlobRequest(offset=(1 << 20) + 1, data=b"x", finish=True)],
                grpc.StatusCode.INVALID_ARGUMENT, "has 1048576 bytes; a chunk at offset 1048577 does not follow"),
        "too big": ([ws.UploadBlobRequest(offset=0, data=one + b"x", finish=True)], grpc.StatusCode.INVALID_ARGUMENT,
                    "over the 1 MiB limit"),
    }
    with control.client() as c:
        for name, (requests, code, message) in cases.items():
            with pytest.raises(grpc.RpcError) as err:
                c.worker.UploadBlob(iter(requests), timeout=30)
            assert err.value.code() == code and message in err.value.details(), (name, err.value)
            assert not list(uploads.iterdir()), f"{name}: an upload file was left behind"

        # A client that goes away after two chunks: control drops the upload as the stream breaks.
        def two_then_wait(sent):
            for i in range(2):
                yield ws.UploadBlobRequest(offset=i << 20, data=one)
                sent.append(i)
            time.sleep(30)
            yield ws.UploadBlobRequest(offset=2 << 20, data=b"", finish=True)

        sent: list[int] = []
        call = c.worker.UploadBlob.future(two_then_wait(sent), timeout=60)
        deadline = time.monotonic() + 20
        while len(sent) < 2 or not list(uploads.iterdir()):
            assert time.monotonic() < deadline, "the two chunks never reached control"
            time.sleep(0.05)
        call.cancel()
        while list(uploads.iterdir()):
            assert time.monotonic() < deadline, "a cancelled upload's file stayed in uploads/"
            time.sleep(0.05)

        r = c.worker.UploadBlob(iter([ws.UploadBlobRequest(offset=0, data=b"hello", finish=True)]), timeout=30)
        assert (r.blob_id, r.size) == (hashlib.sha256(b"hello").hexdigest(), 5)


def _loopback_rx_bytes() -> int:
    """Bytes the loopback interface has received (each byte sent on it is received once)."""
    for line in Path("/proc/net/dev").read_text().splitlines():
        name, _, counters = line.partition(":")
        if name.strip() == "lo":
            return int(counters.split()[0])
    raise AssertionError("no loopback interface in /proc/net/dev")


def test_control_compresses_a_blob_only_for_a_client_that_asks(control):
    """Scenario.compressions rests on this: control answers gzip to a client that advertises it
    (grpcio does by default), and plain bytes to one that does not — the harness's client, whose
    link probe must time the plain bytes (client._OPTIONS)."""
    import grpc
    from codecbench.client import connect, target
    from codecbench.pb import ws_grpc

    data = bytes(4 << 20)  # zeros: gzip takes them to a few kB
    with connect(control.addr) as c:
        blob_id = c.put_blob(data)
        before = _loopback_rx_bytes()
        got = sum(len(m.data) for m in c.worker.GetBlob(ws.GetBlobRequest(blob_id=blob_id), timeout=60))
        plain = _loopback_rx_bytes() - before
    with grpc.insecure_channel(target(control.addr), options=[("grpc.enable_http_proxy", 0)]) as ch:
        stub = ws_grpc.WorkerServiceStub(ch)
        before = _loopback_rx_bytes()
        got_gzip = sum(len(m.data) for m in stub.GetBlob(ws.GetBlobRequest(blob_id=blob_id), timeout=60))
        squeezed = _loopback_rx_bytes() - before
    assert got == got_gzip == len(data)
    assert plain > len(data), f"the harness's client got {plain:,} bytes on the wire for {len(data):,}"
    assert squeezed < len(data) / 20, f"a client advertising gzip got {squeezed:,} bytes on the wire"
