"""End to end on loopback: the real control and Rust worker, the installed `codecbench` command.

Skipped only when the Rust binaries are absent (the Makefile builds them before the tests).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from itertools import product
from pathlib import Path

import pandas as pd
import pytest

from codecbench import processes, results
from codecbench.pb import hs, results as results_pb2, scenario as scenario_pb2

from conftest import ART, CODECBENCH, DATA, run_cli, start_rust_worker, write_scenario

ENC, DEC = scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE
UP, DOWN = scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD
FINISHED = results_pb2.RUN_STATUS_FINISHED


def only_run_dir(results_dir: Path) -> Path:
    dirs = [d for d in results_dir.iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def get_run(control, run_id):
    with control.client() as c:
        return c.harness.GetRun(hs.GetRunRequest(run_id=run_id), timeout=30)


def sqlite_rows(state_dir: Path, sql: str, args=()) -> list[sqlite3.Row]:
    db = state_dir / "codecbench.sqlite"
    assert db.exists(), f"control keeps no database at {db}"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def test_run_is_verified_stored_and_survives_a_restart(control, rust_worker, tmp_path):
    out = tmp_path / "results"
    res = run_cli("--control", control.addr, "run", str(DATA / "tiny.yaml"), "--results-dir", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    run_dir = only_run_dir(out)
    run_id = run_dir.name

    resp = get_run(control, run_id)
    assert resp.run.status == FINISHED
    datasets, codecs = ("dummy", "beers"), ("json", "bson")
    # JSON offers typed and tree, BSON typed, tree and lazy; the scenario asks typed and lazy.
    decode_cells = {(d, c, m) for d in datasets for c, m in (("json", "typed"), ("bson", "typed"), ("bson", "lazy"))}
    # 4 encode cells (each with its untimed prepare task), 6 decode cells and 1 A/A twin, 2 trials each.
    assert len(resp.tasks) == 4 + (4 + 6 + 1) * 2
    assert all(t.status == results_pb2.TASK_STATUS_DONE for t in resp.tasks), resp.tasks
    assert sum(t.prepare for t in resp.tasks) == 4
    assert all(t.prepare for t in resp.tasks[:4]), "prepare tasks run first"
    cells = {}
    for t in resp.tasks:
        if not t.prepare:
            cells.setdefault(t.cell_id, []).append(t.trial)
    assert len(cells) == 11 and all(sorted(v) == [0, 1] for v in cells.values()), cells
    assert sum(c.endswith("~aa") for c in cells) == 1
    ms = resp.measurements
    # Every encode trial times its upload; the first mode's decode cell of each payload its download.
    assert len(ms) == 4 * 2 * 2 + 6 * 2 + 4 * 2 + 1 * 2
    for m in ms:
        assert m.verified and not m.failure, m
        assert len(m.round_ns_per_op) == 3 and all(x > 0 for x in m.round_ns_per_op), m
        assert m.payload_bytes > 0 and m.cell_id and len(m.payload_blob_id) == 64
    assert {(m.dataset, m.codec) for m in ms if m.operation == ENC} == set(product(datasets, codecs))
    assert {(m.dataset, m.codec, m.decode_mode) for m in ms if m.operation == DEC} == decode_cells
    assert {(m.dataset, m.codec) for m in ms if m.operation == UP} == set(product(datasets, codecs))
    assert {(m.dataset, m.codec) for m in ms if m.operation == DOWN} == set(product(datasets, codecs))
    assert resp.run.scenario.sampling.order_seed != 0, "control records the trial order seed"
    # Every transfer leg carries the raw loopback TCP copy of the same bytes, timed beside it.
    for m in ms:
        if m.operation in (UP, DOWN):
            assert m.extras["raw_tcp_ns_per_op"] > 0, m
        if m.operation == ENC or (m.operation == DEC and m.decode_mode == "typed"):
            # One op's peak heap: at least its output (a payload, or the records) is held at once.
            assert m.extras["peak_heap_bytes"] >= min(m.payload_bytes, 1000), m

    # What the user sees: the answer first (a leaderboard per dataset, a verdict per language),
    # not every row; and the files.
    out = " ".join(res.stdout.split())
    assert "✗" not in out and "✓" not in out, "the full table is printed only with --all"
    assert "dummy × 5 records: each language's own round trip, per record" in out, res.stdout
    assert "beers × 5 records" in out and "bytes/rec" in out and "decode lazy /rec" in out
    assert "dummy × 5, rust: bson is " in out and "beers × 5, rust: bson is " in out, res.stdout
    assert "noise floor: identical work differed by ≤ " in out
    assert f"trial order seed {resp.run.scenario.sampling.order_seed}" in out
    assert len(res.stdout.strip().splitlines()) <= 40, res.stdout
    assert re.search(r"\d+/\d+ .*eta", res.stderr), "the progress bar shows an ETA"
    # The report is written at the end of every run, and its path is the last line.
    assert res.stdout.strip().splitlines()[-1] == f"report: {run_dir / 'report.html'}"
    assert (run_dir / "report.md").exists() and list((run_dir / "plots").glob("*.png"))
    csv = pd.read_csv(run_dir / "measurements.csv")
    assert len(csv) == len(ms) and csv["verified"].all()
    assert len(pd.read_parquet(run_dir / "measurements.parquet")) == len(ms)
    summary = pd.read_csv(run_dir / "summary.csv")
    assert len(summary) == 7 and summary["verified"].all()
    assert summary["encode_ns_per_record"].gt(0).all() and summary["decode_ns_per_record"].gt(0).all()
    assert (summary["decode_trials"] == 2).all()
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["run"]["id"] == run_id and doc["workers"]["rust-1"]["language"] == "rust"
    # Where the time went: every task that ran is stamped by control and carries the worker's
    # phases; a timed trial's process holds its own phases; the run's breakdown adds up.
    for t in resp.tasks:
        assert t.HasField("started_at") and t.HasField("ended_at"), t
        assert t.ended_at.ToNanoseconds() >= t.started_at.ToNanoseconds()
        ph = t.phase_ms
        assert {"total", "process", "load", "verify"} <= set(ph), t
        if not t.prepare:
            assert ph["warmup"] > 0 and ph["rounds"] > 0, t
            inside = sum(ph.get(k, 0) for k in ("load", "verify", "warmup", "rounds", "other"))
            assert ph["process"] >= inside and ph["total"] >= ph["process"], t
    spent = doc["timeBreakdown"]
    assert spent["tasks"] == len(resp.tasks) and spent["byLanguage"]["rust"]["tasks"] == len(resp.tasks)
    assert sum(spent["seconds"].values()) == pytest.approx(spent["wallSeconds"], rel=0.02)
    assert 0 < spent["timedShare"] < 1 and spent["seconds"]["transfer"] > 0
    assert re.search(r"time: [\d.]+ s wall, \d+% in timed rounds · ", out), res.stdout
    # Said up front: an empty results folder has no history to estimate from.
    assert f"plan: {len(resp.tasks)} tasks; no estimate yet" in res.stderr, res.stderr
    # The workers' codec declarations, for the report's timed-region table.
    json_codec = next(c for c in doc["workerInfo"][0]["codecs"] if c["id"] == "json")
    assert {r["operation"] for r in json_codec["timedRegions"]} >= {"encode", "typed", "tree"}
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "| json | encode |" in md.split("## Timed regions")[1]
    assert "### dummy: transfer against a raw loopback TCP copy" in md
    assert "### beers: peak memory (heap held at once by one operation)" in md
    # Control's own memory during the run: its resident set at the start and its peak.
    assert resp.run.control_rss_start_bytes > 0 and resp.run.control_peak_rss_bytes >= resp.run.control_rss_start_bytes
    assert re.search(r"control: resident \d+ MiB at the start, peak \+[\d.]+ MiB during the run", out), res.stdout
    assert "| control memory | resident " in md
    raw = results.transfer_vs_raw_tcp(results.read_measurements(run_dir))
    assert len(raw) == 8 and (raw["share_of_raw"] > 0).all() and (raw["raw_mb_s"] > 0).all(), raw

    # Every measurement is in SQLite, committed as it was reported.
    rows = sqlite_rows(control.state_dir, "SELECT * FROM measurements WHERE run_id = ?", (run_id,))
    assert len(rows) == len(ms)
    assert all(r["verified"] for r in rows)

    # Every measurement carries its payload's gzip and zstd sizes, measured by control from the
    # stored blob: gzip's within a few % of Python's zlib at the same level (two deflate
    # implementations), zstd's smaller than the raw JSON/BSON.
    for m in ms:
        assert m.HasField("gzip_bytes") and m.HasField("zstd_bytes"), m
        blob = control.state_dir / "blobs" / m.payload_blob_id[:2] / m.payload_blob_id
        data = blob.read_bytes()
        assert len(data) == m.payload_bytes
        ours = len(gzip.compress(data, compresslevel=6, mtime=0))
        assert abs(m.gzip_bytes - ours) <= max(8, 0.1 * ours), (m.dataset, m.codec, m.gzip_bytes, ours)
        assert 0 < m.zstd_bytes < m.payload_bytes + 64
    assert all(r["gzip_bytes"] and r["zstd_bytes"] for r in rows), "the columns sqlite3 users query"
    assert summary["gzip_bytes"].notna().all() and summary["zstd_bytes"].notna().all()
    assert "gzip/rec" in out and "zstd/rec" in out

    # Control restarts on the same state dir (a new port): the run is still there, unchanged.
    control.stop()
    control.start()
    again = get_run(control, run_id)
    assert again.run.status == FINISHED
    assert len(again.measurements) == len(ms)
    key = lambda m: (m.task_id, m.operation)
    assert sorted((key(m), list(m.round_ns_per_op)) for m in again.measurements) == \
        sorted((key(m), list(m.round_ns_per_op)) for m in ms)

    # The reading commands work against the restarted control.
    shown = run_cli("--control", control.addr, "runs", "show", run_id, "--json", "--results-dir", str(tmp_path / "again"))
    assert shown.returncode == 0, shown.stderr
    shown_doc = json.loads(shown.stdout)
    assert len(shown_doc["measurements"]) == len(ms)
    # The answer as numbers, not proto-JSON strings.
    answer = shown_doc["answer"]
    assert len(answer["rows"]) == 7 and all(isinstance(r["decode_ns_per_record"], float) for r in answer["rows"])
    assert {r["record_count"] for r in answer["rows"]} == {5}
    assert answer["verdict"] and {x["language"] for x in answer["leaderboards"]} == {"rust"}
    assert all(isinstance(x["value"], (int, float)) for x in answer["leaderboards"])
    # --all prints every producer → consumer row before the leaderboards.
    full = run_cli("--control", control.addr, "runs", "show", run_id, "--all", "--results-dir", str(tmp_path / "again"))
    assert full.returncode == 0, full.stderr
    assert "✗" not in full.stdout and full.stdout.count("✓") == 7, full.stdout
    assert "rust-1 → rust-1" in full.stdout and "rust-1 → rust-1 A/A" in full.stdout
    assert "A/A: a deliberate twin of another cell" in full.stdout
    assert "each language's own round trip" in full.stdout
    listed = run_cli("--control", control.addr, "runs", "--json")
    assert run_id in [r["id"] for r in json.loads(listed.stdout)]


def test_workers_and_codecs_commands(control, rust_worker):
    res = run_cli("--control", control.addr, "workers", "--json")
    assert res.returncode == 0, res.stderr
    workers = json.loads(res.stdout)
    assert [w["environment"]["language"] for w in workers] == ["rust"]
    res = run_cli("--control", control.addr, "codecs", "--json")
    offers = json.loads(res.stdout)["offers"]
    assert {o["codec"]["id"] for o in offers} >= {"json", "bson"}
    table = run_cli("--control", control.addr, "codecs", "--by-worker")
    assert "json" in table.stdout and "bson" in table.stdout and "rust-1" in table.stdout


def test_control_rejects_an_unknown_codec_with_exit_2(control, rust_worker, tmp_path):
    path = write_scenario(tmp_path / "s.yaml", "datasets: [beers]\ncodecs: [nosuchcodec]\ncounts: [3]\n")
    res = run_cli("--control", control.addr, "run", str(path), "--results-dir", str(tmp_path / "r"))
    assert res.returncode == 2, res.stdout + res.stderr
    assert "control rejected the scenario" in res.stderr
    assert "nosuchcodec" in res.stderr, "control's message names the codec"
    assert "(offered: bson, cbor, flatbuffers, json" in res.stderr, "and what is announced"
    path = write_scenario(tmp_path / "s.yaml", "datasets: [beers]\ncodecs: [jsn]\ncounts: [3]\n")
    res = run_cli("--control", control.addr, "run", str(path), "--results-dir", str(tmp_path / "r"))
    assert res.returncode == 2 and "did you mean json" in res.stderr, res.stderr


def test_corrupt_payload_fails_its_decode_task_and_the_run_completes(control, rust_worker, fake_worker, tmp_path):
    fake = fake_worker("garbage")
    path = write_scenario(tmp_path / "s.yaml", """\
datasets: [dummy]
codecs: [json, bson]
decodeModes: [typed]
counts: [5]
producers: [fake]
consumers: [rust]
operations: [encode, decode]
sampling: {warmupMs: 5, rounds: 3, minRoundMs: 1, trials: 1, aaCells: 1}
""")
    res = run_cli("--control", control.addr, "run", str(path), "--results-dir", str(tmp_path / "r"))
    assert res.returncode == 1, res.stdout + res.stderr
    resp = get_run(control, only_run_dir(tmp_path / "r").name)
    assert resp.run.status == FINISHED
    decodes = [t for t in resp.tasks if t.operation == DEC]
    assert len(decodes) == 3  # json and bson, and one A/A twin
    for t in decodes:
        assert t.status == results_pb2.TASK_STATUS_FAILED
        assert t.consumer_worker_id.startswith("rust-")
        # The Rust worker names the step, then the codec library's own message.
        assert t.failure.startswith("decode failed: "), t.failure
        assert len(t.failure) > len("decode failed: ") + 5
    assert all(t.status == results_pb2.TASK_STATUS_DONE for t in resp.tasks if t.operation == ENC)
    assert "3 task(s) failed" in res.stdout and "decode failed: " in res.stdout
    with control.client() as c:  # control keeps serving
        assert {w.id for w in c.list_workers()} == {rust_worker_id(c), fake.worker_id}


def rust_worker_id(c) -> str:
    return next(w.id for w in c.list_workers() if w.environment.language == "rust")


def test_killed_worker_fails_its_task_and_the_run_finishes(control, rust_worker, fake_worker, tmp_path):
    fake = fake_worker("hang")
    path = write_scenario(tmp_path / "s.yaml", """\
datasets: [beers]
codecs: [json]
decodeModes: [typed]
counts: [5]
producers: [rust]
consumers: [fake]
operations: [encode, decode]
sampling: {warmupMs: 5, rounds: 3, minRoundMs: 1}
""")
    # A shell that starts the tests in the background (`make test &`) makes them ignore SIGINT,
    # and Python keeps an ignored SIGINT ignored: give the CLI Ctrl-C as a terminal would.
    cli = subprocess.Popen([str(CODECBENCH), "--control", control.addr, "run", str(path), "--no-progress",
                            "--results-dir", str(tmp_path / "r")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        task_line = fake.expect("TASK")  # the decode task reached the fake worker
        task_id = task_line.split()[1]
        fake.kill()
        out, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 1, out + err
    resp = get_run(control, only_run_dir(tmp_path / "r").name)
    assert resp.run.status == FINISHED
    task = next(t for t in resp.tasks if t.id == task_id)
    assert task.status == results_pb2.TASK_STATUS_FAILED
    assert f"worker {fake.worker_id} went away" in task.failure, task.failure
    assert next(t for t in resp.tasks if t.operation == ENC).status == results_pb2.TASK_STATUS_DONE
    with control.client() as c:
        assert [w.environment.language for w in c.list_workers()] == ["rust"]


def test_ctrl_c_cancels_the_run_and_keeps_what_was_measured(control, rust_worker, tmp_path):
    path = write_scenario(tmp_path / "s.yaml", """\
datasets: [dummy, numeric, owners, docs, beers]
codecs: [json, bson]
counts: [10, 20]
sampling: {warmupMs: 20, rounds: 5, minRoundMs: 10}
""")
    # A shell that starts the tests in the background (`make test &`) makes them ignore SIGINT,
    # and Python keeps an ignored SIGINT ignored: give the CLI Ctrl-C as a terminal would.
    cli = subprocess.Popen([str(CODECBENCH), "--control", control.addr, "run", str(path), "--no-progress",
                            "--results-dir", str(tmp_path / "r")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        run = wait_for(lambda: _running_with_progress(control), 60, "a run with a measurement")
        cli.send_signal(signal.SIGINT)
        out, err = cli.communicate(timeout=120)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 130, out + err
    assert f"cancelling run {run.id}" in err
    resp = get_run(control, run.id)
    assert resp.run.status == results_pb2.RUN_STATUS_CANCELLED
    statuses = [t.status for t in resp.tasks]
    assert results_pb2.TASK_STATUS_CANCELLED in statuses and results_pb2.TASK_STATUS_DONE in statuses
    assert results_pb2.TASK_STATUS_RUNNING not in statuses and results_pb2.TASK_STATUS_PENDING not in statuses
    csv = pd.read_csv(tmp_path / "r" / run.id / "measurements.csv")
    assert len(csv) == len(resp.measurements) > 0
    assert "records: each language's own round trip" in " ".join(out.split()), "what was measured is printed"


def _running_with_progress(control):
    with control.client() as c:
        for r in c.harness.ListRuns(hs.ListRunsRequest(), timeout=5).runs:
            # Prepare tasks come first and measure nothing: wait for a measurement.
            if r.status == results_pb2.RUN_STATUS_RUNNING and r.tasks_done >= 1 and \
                    c.harness.GetRun(hs.GetRunRequest(run_id=r.id), timeout=5).measurements:
                return r
    return None


def wait_for(fn, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (value := fn()):
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_grpcurl_lists_the_services_through_reflection(control, rust_worker):
    # The Makefile installs grpcurl into .tools/bin and puts that on PATH for the tests.
    grpcurl = shutil.which("grpcurl") or str(processes.repo_root() / ".tools/bin/grpcurl")
    if not Path(grpcurl).exists():
        pytest.skip("grpcurl is absent (neither on PATH nor in .tools/bin; the Makefile installs it)")

    def call(*args: str) -> str:
        res = subprocess.run([grpcurl, "-plaintext", *args], capture_output=True, text=True, timeout=30)
        assert res.returncode == 0, f"grpcurl {' '.join(args)}: {res.stderr}"
        return res.stdout

    services = call(control.addr, "list").split()
    assert "codecbench.v1.HarnessService" in services and "codecbench.v1.WorkerService" in services
    assert "rpc StartRun" in call(control.addr, "describe", "codecbench.v1.HarnessService")
    workers = json.loads(call("-d", "{}", control.addr, "codecbench.v1.HarnessService/ListWorkers"))
    assert [w["id"] for w in workers["workers"]] == ["rust-1"]


def local_env(tmp_path) -> dict:
    return {"CODECBENCH_STATE": str(tmp_path / "state"), "CODECBENCH_CONTROL": ""}


def test_run_local_starts_and_stops_everything(tmp_path):
    from conftest import require_rust
    require_rust()
    env = local_env(tmp_path)
    res = run_cli("run", str(DATA / "tiny.yaml"), "--local", "--results-dir", str(tmp_path / "r"), env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "dummy × 5, rust: " in " ".join(res.stdout.split()), res.stdout
    # The run had a folder of its own: .state/local/<time>-<pid>/ (`up` and `down` use .state/).
    [own] = list((tmp_path / "state" / "local").iterdir())
    assert processes.PidDir(own / "pids").load_all() == [], "pid files of the local processes are removed"
    assert not (tmp_path / "state" / "pids").exists() or not list((tmp_path / "state" / "pids").iterdir())
    assert (own / "logs" / "control.log").exists() and (own / "logs" / "rust.log").exists()
    run_id = only_run_dir(tmp_path / "r").name
    rows = sqlite_rows(own / "control", "SELECT * FROM runs")
    assert len(rows) == 1
    assert not (own / "control" / "blobs").exists(), "payloads are not kept once the results are written"
    started = started_pids(res.stderr)
    assert len(started) == 2, res.stderr  # control and the Rust worker
    assert not [p for p in started if alive(p)], "nothing the run started is left running"
    assert run_id


def started_pids(stderr: str) -> list[int]:
    return [int(p) for p in re.findall(r"\(pid (\d+), log", stderr)]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_up_workers_down(tmp_path):
    from conftest import require_rust
    require_rust()
    env = local_env(tmp_path)
    try:
        up = run_cli("up", "--listen", "127.0.0.1:0", "--workers", "rust", env=env, timeout=120)
        assert up.returncode == 0, up.stdout + up.stderr
        assert "worker     rust-1" in up.stderr
        # Later commands find the control `up` started without --control.
        workers = run_cli("workers", "--json", env=env)
        assert workers.returncode == 0, workers.stderr
        assert [w["id"] for w in json.loads(workers.stdout)] == ["rust-1"]
        again = run_cli("up", env=env)
        assert again.returncode == 0 and "already running" in again.stderr
        started = started_pids(up.stderr)
        assert len(started) == 2 and all(alive(p) for p in started), up.stderr
    finally:
        down = run_cli("down", env=env)
    assert down.returncode == 0, down.stderr
    assert "stopped: " in down.stderr and "control" in down.stderr and "rust" in down.stderr
    assert not [p for p in started if alive(p)]
    down = run_cli("down", env=env)
    assert down.returncode == 0 and "nothing was running" in down.stderr


def test_sigterm_during_run_local_stops_what_it_started(tmp_path):
    from conftest import require_rust
    require_rust()
    env = {**os.environ, **local_env(tmp_path)}
    path = write_scenario(tmp_path / "s.yaml", """\
datasets: [dummy, numeric, owners, docs, beers]
codecs: [json, bson]
counts: [10, 20]
producers: [rust]
consumers: [rust]
sampling: {warmupMs: 20, rounds: 5, minRoundMs: 10}
""")
    cli = subprocess.Popen([str(CODECBENCH), "run", str(path), "--local", "--no-progress",
                            "--results-dir", str(tmp_path / "r")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    saved = []
    try:
        # run --local keeps its pid files and database in a folder of its own under .state/local/.
        own = wait_for(lambda: next(iter((tmp_path / "state" / "local").glob("*")), None)
                       if (tmp_path / "state" / "local").exists() else None, 60, "the local run's folder")
        pids = processes.PidDir(own / "pids")
        saved = wait_for(lambda: [p for _, p in pids.load_all()] if len(pids.load_all()) == 2 else None,
                         60, "control and the Rust worker of run --local")
        wait_for(lambda: (own / "control" / "codecbench.sqlite").exists(), 30, "the database")
        time.sleep(1)  # let the run start
        cli.terminate()
        out, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
        left = [p.pid for p in saved if alive(p.pid)]
        for p in saved:  # never leave them behind, even when the test fails
            processes.stop(p)
    assert cli.returncode != 0
    assert not left, err
    assert pids.load_all() == []


def test_report_and_compare_fetch_a_run_from_control_when_its_folder_is_absent(control, rust_worker, tmp_path):
    res = run_cli("--control", control.addr, "run", str(DATA / "tiny.yaml"), "--no-report",
                  "--results-dir", str(tmp_path / "first"))
    assert res.returncode == 0, res.stdout + res.stderr
    run_id = only_run_dir(tmp_path / "first").name
    assert not (tmp_path / "first" / run_id / "report.html").exists(), "--no-report"
    assert "report: " not in res.stdout
    # Another results folder: the run is not there, so it comes from control.
    other = tmp_path / "other"
    rep = run_cli("--control", control.addr, "report", run_id, "--results-dir", str(other))
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert "fetched from control" in rep.stderr
    assert (other / run_id / "measurements.parquet").exists()
    assert rep.stdout.strip().splitlines()[-1] == f"report: {other / run_id / 'report.html'}"
    cmp = run_cli("--control", control.addr, "compare", run_id, run_id, "--results-dir", str(tmp_path / "third"))
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr
    # encode, upload, decode (the twin pools with its original) and download keys.
    assert "18 matching measurement(s)" in cmp.stdout
    assert "no significant change" in cmp.stdout
