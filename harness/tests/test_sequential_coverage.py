"""scripts/sequential_coverage.py: replays sequential stopping on recorded runs."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "sequential_coverage.py"
FIELDS = ["cell_id", "trial", "operation", "median_ns_per_op", "failure"]


def write_run(root: Path, name: str, cells: dict[str, list[float]]) -> None:
    d = root / name
    d.mkdir()
    run = {"status": "RUN_STATUS_FINISHED", "scenario": {"name": "s", "sampling": {"trials": 21, "orderSeed": hash(name) % 1000}}}
    (d / "run.json").write_text(json.dumps({"run": run}))
    with open(d / "measurements.csv", "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for cell, xs in cells.items():
            for i, x in enumerate(xs):
                w.writerow({"cell_id": cell, "trial": i, "operation": cell.split("/")[0], "median_ns_per_op": x, "failure": ""})


def test_a_steady_cell_stops_at_nine_trials_and_a_whole_run_shift_is_taken_out(tmp_path):
    steady = [100.0 + (i % 3) for i in range(21)]          # within ±2 %: stops at 9
    noisy = [100.0 * (1.5 if i % 2 else 1.0) for i in range(21)]  # never within ±3 %: all 21
    write_run(tmp_path, "a", {"decode/x/rust-1": steady, "decode/y/rust-1": noisy})
    # B: the same machine 10 % slower as a whole: the column's shift takes it out.
    write_run(tmp_path, "b", {"decode/x/rust-1": [x * 1.1 for x in steady], "decode/y/rust-1": [x * 1.1 for x in noisy]})
    out = subprocess.run([sys.executable, str(SCRIPT), "--results", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    # 2 runs × 2 cells, both orders: every pair covered; (9 + 21) / 2 / 21 of the trials used.
    assert "s (2 runs): 4 cell pairs; covered 100% with every trial, 100% sequentially, using 71% of the trials" in out, out
