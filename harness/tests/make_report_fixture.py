"""Regenerate tests/data/report-run/ — the recorded run the report and compare tests read.

    .venv/bin/python harness/tests/make_report_fixture.py

Starts the real control and two Rust workers on an ephemeral port, plus tests/fake_worker.py with
`--behaviour fail` (every task fails, as a broken codec would), runs tests/data/report-fixture.yaml
with the installed `codecbench` command, and keeps measurements.parquet and run.json (the report
reads nothing else). Everything started is stopped at the end.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from codecbench import processes  # noqa: E402
from codecbench.client import connect, wait_for_workers  # noqa: E402

from conftest import ART, CODECBENCH, DATA  # noqa: E402

OUT = DATA / "report-run"


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="codecbench-fixture-"))
    control, addr = processes.start_control(ART, "127.0.0.1:0", tmp / "state", tmp / "control.log")
    started = [control]
    fake = None
    try:
        for i in (1, 2):
            started.append(processes.start_worker(ART, "rust", addr, tmp / f"rust{i}.log", name="rust"))
        with connect(addr) as c:
            wait_for_workers(c, ["rust"], 30, counts={"rust": 2})
        fake = subprocess.Popen([sys.executable, str(HERE / "fake_worker.py"), "--control", addr,
                                 "--behaviour", "fail", "--name", "fake"],
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        fake.stdout.readline()  # ATTACHED
        res = subprocess.run([str(CODECBENCH), "--control", addr, "run", str(DATA / "report-fixture.yaml"),
                              "--results-dir", str(tmp / "results"), "--no-progress", "--no-report"],
                             capture_output=True, text=True)
        print(res.stdout[-2000:], res.stderr[-2000:])
        run_dir = next((tmp / "results").iterdir())
        shutil.rmtree(OUT, ignore_errors=True)
        OUT.mkdir(parents=True)
        for name in ("measurements.parquet", "run.json"):
            shutil.copy(run_dir / name, OUT / name)
        print(f"fixture: {OUT} (run {run_dir.name})")
        return 0
    finally:
        if fake is not None:
            fake.kill()
            fake.wait(10)
        for p in reversed(started):
            processes.stop(p)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
