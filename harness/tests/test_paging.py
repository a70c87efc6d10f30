"""No message over 4 MiB: GetRun answers in pages of whole tasks, and the CLI reads every page.
Control's page budget is made tiny here (a hidden setting) so a small run spans many pages."""
from __future__ import annotations

from codecbench.pb import hs
from codecbench.results import read_measurements
from conftest import run_cli, start_rust_worker, write_scenario
from test_e2e import sqlite_rows


def test_getrun_pages_cover_the_run_and_the_cli_reads_them_all(tmp_path, monkeypatch, procs, start_control):
    monkeypatch.setenv("CODECBENCH_GETRUN_PAGE_BYTES", "3000")
    control = start_control()
    start_rust_worker(control, procs)
    scenario = write_scenario(tmp_path / "s.yaml", """
datasets: [beers]
codecs: [json, bson]
decodeModes: [typed]
counts: [5]
operations: [encode, decode]
sampling: {warmupMs: 5, maxWarmupMs: 200, rounds: 3, minRoundMs: 1, taskTimeoutS: 60, trials: 2}
""")
    out = tmp_path / "out"
    res = run_cli("--control", control.addr, "run", str(scenario), "--results-dir", str(out),
                  "--no-progress", "--no-report", timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    with control.client() as c:
        run_id = c.harness.ListRuns(hs.ListRunsRequest(limit=1), timeout=10).runs[0].id
        pages, token = [], ""
        while True:
            page = c.harness.GetRun(hs.GetRunRequest(run_id=run_id, page_token=token), timeout=10)
            pages.append(page)
            token = page.next_page_token
            if not token:
                break
        whole = c.get_run(run_id)
    stored = sqlite_rows(control.state_dir, "SELECT task_id FROM measurements WHERE run_id = ?", (run_id,))
    assert len(pages) > 3, f"{len(pages)} pages"
    assert all(p.run.id == run_id for p in pages) and not any(p.workers for p in pages[1:])
    # Pages after the first (which also carries the workers) hold whole tasks within the budget.
    assert all(p.ByteSize() <= 3000 or len(p.tasks) == 1 for p in pages[1:]), [p.ByteSize() for p in pages]
    assert [t.id for p in pages for t in p.tasks] == [t.id for t in whole.tasks]
    assert len(whole.tasks) == whole.run.tasks_total
    assert sorted(m.task_id for m in whole.measurements) == sorted(r["task_id"] for r in stored)
    assert len(read_measurements(out / run_id)) == len(stored), "the CLI's results hold every page"
    bad = run_cli("--control", control.addr, "runs", "show", run_id, "--results-dir", str(tmp_path / "again"))
    assert bad.returncode == 0, bad.stdout + bad.stderr
    assert len(read_measurements(tmp_path / "again" / run_id)) == len(stored)
