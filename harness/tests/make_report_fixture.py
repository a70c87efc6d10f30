"""Record two real runs of one scenario back to back into tests/data/recorded-a/ and recorded-b/
(measurements.parquet and run.json): the real A/A pair that test_compare checks when present.

    .venv/bin/python harness/tests/make_report_fixture.py [--workers rust,java,browser] [SCENARIO]

Starts the real control and the named workers (default: two Rust workers) on an ephemeral port,
plus tests/fake_worker.py with `--behaviour fail` (every task fails, as a broken codec would), runs
the scenario (default tests/data/report-fixture.yaml) twice with the installed `codecbench` command,
and keeps what the report and compare read. Everything started is stopped at the end.

tests/data/report-run/ is a run recorded before trials existed; it stays frozen, so that old
results keep reading (each measurement one trial, "transfer" the download).
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", nargs="?", default=str(DATA / "report-fixture.yaml"))
    ap.add_argument("--workers", default="rust,rust", help="worker kinds to start, comma-separated")
    args = ap.parse_args()
    kinds = [k for k in args.workers.split(",") if k]
    tmp = Path(tempfile.mkdtemp(prefix="codecbench-fixture-"))
    control, addr = processes.start_control(ART, "127.0.0.1:0", tmp / "state", tmp / "control.log")
    started = [control]
    fake = None
    try:
        for i, kind in enumerate(kinds):
            started.append(processes.start_worker(ART, kind, addr, tmp / f"{kind}{i}.log", name=kind))
        counts = {k: kinds.count(k) for k in kinds}
        with connect(addr) as c:
            wait_for_workers(c, sorted(counts), 120, counts=counts)
        fake = subprocess.Popen([sys.executable, str(HERE / "fake_worker.py"), "--control", addr,
                                 "--behaviour", "fail", "--name", "fake"],
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        fake.stdout.readline()  # ATTACHED
        for name in ("recorded-a", "recorded-b"):
            results = tmp / name
            res = subprocess.run([str(CODECBENCH), "--control", addr, "run", args.scenario, "--results-dir",
                                  str(results), "--no-progress", "--no-report"], capture_output=True, text=True)
            print(res.stdout[-3000:], res.stderr[-2000:])
            run_dir = next(results.iterdir())
            out = DATA / name
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            for f in ("measurements.parquet", "run.json"):
                shutil.copy(run_dir / f, out / f)
            print(f"fixture: {out} (run {run_dir.name})")
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
