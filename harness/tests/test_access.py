"""Access (docs/DESIGN.md): control refuses to listen beyond loopback without a token; with a token,
every gRPC call and the page need it (a header; the page's first load with ?token= sets a cookie);
Rust, Java and browser workers and the CLI send it; and a report must carry the secret its
worker was given at attach, so knowing a worker's id is not enough to report in its name."""
from __future__ import annotations

import http.client
import os
import subprocess
import time

import grpc
import pytest

from codecbench import processes
from codecbench.client import connect, wait_for_workers
from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2, ws
from conftest import ART, CODECBENCH, require_rust, run_cli, run_every_task_done, write_scenario

TOKEN = "test-token-0123456789abcdef"
LANGUAGES = ("rust", "java", "browser")


def http_get(addr: str, path: str, cookie: str | None = None) -> tuple[int, dict, str]:
    ip, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(ip, int(port), timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read().decode(errors="replace")
    finally:
        conn.close()


@pytest.fixture
def with_token(monkeypatch):
    """CODECBENCH_TOKEN set for this test: control, workers, the CLI and connect() all read it."""
    monkeypatch.delenv("CODECBENCH_TOKEN_FILE", raising=False)
    monkeypatch.setenv("CODECBENCH_TOKEN", TOKEN)


@pytest.fixture
def token_control(with_token, start_control):
    return start_control()


def test_control_refuses_to_listen_beyond_loopback_without_a_token(tmp_path, monkeypatch):
    require_rust()
    monkeypatch.delenv("CODECBENCH_TOKEN", raising=False)
    monkeypatch.delenv("CODECBENCH_TOKEN_FILE", raising=False)
    with pytest.raises(processes.LaunchError) as refused:
        processes.start_control(ART, "0.0.0.0:0", tmp_path / "state", tmp_path / "control.log")
    assert "refusing to listen on 0.0.0.0:0 without a token" in str(refused.value)
    monkeypatch.setenv("CODECBENCH_TOKEN", "short")
    with pytest.raises(processes.LaunchError) as weak:
        processes.start_control(ART, "127.0.0.1:0", tmp_path / "state", tmp_path / "control-weak.log")
    assert "at least 16 characters" in str(weak.value)
    monkeypatch.setenv("CODECBENCH_TOKEN", TOKEN)
    proc, addr = processes.start_control(ART, "0.0.0.0:0", tmp_path / "state", tmp_path / "control-2.log")
    try:
        with connect(f"127.0.0.1:{addr.rsplit(':', 1)[1]}") as c:
            assert c.harness.ListWorkers(hs.ListWorkersRequest(), timeout=10) is not None
    finally:
        processes.stop(proc)


def test_every_call_and_the_page_need_the_token(token_control):
    addr = token_control.addr
    for token in ("", "wrong-token-0123456789abcdef"):
        with connect(addr, token=token) as c:
            for call in (lambda: c.harness.ListWorkers(hs.ListWorkersRequest(), timeout=10),
                         lambda: list(c.worker.GetBlob(ws.GetBlobRequest(blob_id="0" * 64), timeout=10))):
                with pytest.raises(grpc.RpcError) as refused:
                    call()
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED, refused.value
                assert "requires its token" in refused.value.details(), refused.value.details()
    with connect(addr, token=TOKEN) as c:
        assert c.harness.ListWorkers(hs.ListWorkersRequest(), timeout=10) is not None
    status, _, body = http_get(addr, "/")
    assert status == 401 and "requires its token" in body, (status, body)
    assert http_get(addr, "/?token=wrong-token-0123456789abcdef")[0] == 401
    status, headers, body = http_get(addr, f"/?token={TOKEN}")
    assert status in (200, 404), (status, body)  # 404 only when the page is not built
    cookie = headers.get("set-cookie", "")
    assert cookie.startswith(f"codecbench_token={TOKEN};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie
    assert http_get(addr, "/", cookie=f"codecbench_token={TOKEN}")[0] in (200, 404)
    assert http_get(addr, "/", cookie="codecbench_token=wrong-token-0123456789abcdef")[0] == 401


def test_the_cli_sends_the_token_from_a_file_or_the_environment(token_control, tmp_path):
    addr = token_control.addr
    refused = run_cli("--control", addr, "workers", env={"CODECBENCH_TOKEN": ""})
    assert refused.returncode != 0 and "UNAUTHENTICATED" in refused.stderr, refused.stdout + refused.stderr
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    ok = run_cli("--token-file", str(token_file), "--control", addr, "workers", env={"CODECBENCH_TOKEN": ""})
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert run_cli("--control", addr, "workers").returncode == 0


def test_a_worker_with_a_wrong_token_stops_at_once_saying_why(token_control, monkeypatch):
    monkeypatch.setenv("CODECBENCH_TOKEN", "wrong-token-0123456789abcdef")
    proc = processes.start_worker(ART, "rust", token_control.addr, token_control.logs / "rust.log")
    try:
        deadline = time.monotonic() + 20
        while proc.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not proc.alive(), "a refused worker does not retry for an hour"
        log = processes.log_tail(proc.log)
        assert "refused this worker" in log and "requires its token" in log, log
    finally:
        processes.stop(proc)


def test_rust_java_and_browser_workers_run_a_scenario_with_the_token(token_control, procs, tmp_path):
    missing = [f"{kind}: {why}" for kind in LANGUAGES if (why := ART.missing(kind))]
    if missing:
        pytest.skip("not built: " + "; ".join(missing) + " (the Makefile builds them before tests)")
    for kind in LANGUAGES:
        procs.append(processes.start_worker(ART, kind, token_control.addr, token_control.logs / f"{kind}.log"))
    with token_control.client() as c:
        workers = wait_for_workers(c, list(LANGUAGES), 120)
    scenario = write_scenario(tmp_path / "s.yaml", """
datasets: [owners]
codecs: [json]
decodeModes: [typed]
counts: [5]
operations: [encode, decode]
sampling: {warmupMs: 10, maxWarmupMs: 500, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 1, repeatSameBytes: true}
""")
    resp = run_every_task_done(token_control, scenario, tmp_path / "out")
    language = {w.id: w.environment.language for w in workers}
    decoded = {(language[m.producer_worker_id], language[m.consumer_worker_id])
               for m in resp.measurements if m.operation == scenario_pb2.OPERATION_DECODE and m.verified}
    assert decoded == {(p, q) for p in LANGUAGES for q in LANGUAGES}


def test_a_report_in_another_workers_name_is_refused(control, fake_worker, tmp_path):
    """The probe from issue 10: a second client reports the task a worker holds, by its id (which
    ListWorkers shows), at 0.001 ns/op. Without that worker's report secret it is refused."""
    victim = fake_worker("hang")
    scenario = write_scenario(tmp_path / "s.yaml", """
datasets: [beers]
codecs: [json]
counts: [5]
operations: [encode]
sampling: {warmupMs: 5, rounds: 3, minRoundMs: 1, taskTimeoutS: 60, trials: 1}
""")
    cli = subprocess.Popen([str(CODECBENCH), "--control", control.addr, "run", str(scenario), "--no-progress",
                            "--no-report", "--results-dir", str(tmp_path / "r")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy())
    try:
        task_id = victim.expect("TASK").split()[1]
        with control.client() as c:
            shown = {w.id: w.current_task_id for w in c.list_workers()}
            assert shown[victim.worker_id] == task_id, shown
            forged = results_pb2.Measurement(operation=scenario_pb2.OPERATION_ENCODE, round_ns_per_op=[0.001] * 3,
                                             ops_per_round=1, verified=True, language="rust")
            for secret in ("", "0" * 32):
                with pytest.raises(grpc.RpcError) as refused:
                    c.worker.ReportResult(ws.ReportResultRequest(worker_id=victim.worker_id, task_id=task_id,
                                                                 report_secret=secret, measurements=[forged]), timeout=10)
                assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, refused.value
                assert "report secret" in refused.value.details()
            run_id = c.harness.ListRuns(hs.ListRunsRequest(limit=1), timeout=10).runs[0].id
            resp = c.harness.GetRun(hs.GetRunRequest(run_id=run_id), timeout=10)
            assert not resp.measurements, "nothing was stored"
            assert [t.status for t in resp.tasks if t.id == task_id] == [results_pb2.TASK_STATUS_RUNNING]
    finally:
        victim.kill()
        cli.wait(60)
        cli.stdout.close()
