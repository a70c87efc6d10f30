"""The blob store has a quota, and `codecbench gc` removes the blobs no active run needs (results
stay). Control's grace period (blobs stored in the last 10 minutes are kept) is 0 here."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

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


def test_a_100_mib_payload_passes_through_control_in_bounded_memory(control):
    """A 100 MiB payload uploaded through PutBlob (1 MiB chunks, as workers send) and downloaded
    through GetBlob: control appends chunks to a file and streams them back from it, so its peak
    RSS grows by less than 32 MiB (issue 12's bound), and the bytes come back whole."""
    import hashlib
    import os
    import uuid

    size, chunk = 100 << 20, 1 << 20
    block = os.urandom(chunk)  # 100 distinct chunks: each is the block with its index in front
    sha = hashlib.sha256()
    before = vm_hwm_kib(control.proc.pid)
    with control.client() as c:
        upload = uuid.uuid4().hex
        blob_id = ""
        for i in range(size // chunk):
            data = i.to_bytes(4, "big") + block[4:]
            sha.update(data)
            blob_id = c.worker.PutBlob(ws.PutBlobRequest(upload_id=upload, offset=i * chunk, data=data,
                                                         finish=i == size // chunk - 1), timeout=30).blob_id
        assert blob_id == sha.hexdigest(), "the blob is named by the SHA-256 of its bytes"
        after_upload = vm_hwm_kib(control.proc.pid)
        down, received = hashlib.sha256(), 0
        for ch in c.worker.GetBlob(ws.GetBlobRequest(blob_id=blob_id), timeout=120):
            assert ch.offset == received and ch.total_size == size
            down.update(ch.data)
            received += len(ch.data)
    growth = {"upload": (after_upload - before) / 1024, "upload+download": (vm_hwm_kib(control.proc.pid) - before) / 1024}
    assert received == size and down.hexdigest() == blob_id
    assert growth["upload+download"] < 32, f"control's peak RSS grew by {growth} MiB for a 100 MiB payload"


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
    from codecbench.netprobe import _put
    from codecbench.pb import ws_grpc

    data = bytes(4 << 20)  # zeros: gzip takes them to a few kB
    with connect(control.addr) as c:
        blob_id = _put(c.worker, data)
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
