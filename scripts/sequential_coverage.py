#!/usr/bin/env python3
"""Would sequential stopping keep the rerun interval's promise? (issue "Answers in minutes", item 3)

Sequential stopping: a cell stops at the fewest trials k (from MIN_TRIALS, the fewest whose
interval reaches 95 %) whose rerun interval is within ±target, else at the trials it has. Stopping
when an interval happens to be narrow can make intervals that cover less than they claim. This
replays the rule on recorded runs: for every ordered pair (A, B) of runs of the same scenario and
sampling, and every cell they share, A's interval from its first k trials (in trial order) is
checked against the median of B's first k trials (an identical rerun of the same size), B first
divided by its column's shift (the median B/A over the cells of one operation and worker, as
`compare` does: runs at different hours differ by a few per cent as a whole). Printed
per scenario: pairs, cells, the share covered with every trial (the fixed rule) and with the
sequential rule, and the mean trials the sequential rule used.

    .venv/bin/python scripts/sequential_coverage.py [--results results] [--target 3] [--name aa-rust]
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from itertools import permutations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "harness"))
from codecbench import stats  # noqa: E402


def trials_by_cell(run_dir: Path) -> dict[str, list[float]]:
    """Each cell's per-trial figures (median over rounds) in trial order; own-operation rows only."""
    rows: dict[str, list[tuple[int, float]]] = {}
    with open(run_dir / "measurements.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["failure"] or not r["median_ns_per_op"] or not r["cell_id"].startswith(r["operation"]):
                continue
            rows.setdefault(r["cell_id"], []).append((int(r["trial"]), float(r["median_ns_per_op"])))
    return {c: [v for _, v in sorted(xs)] for c, xs in rows.items()}


def sequential(xs: list[float], target: float) -> int:
    """Trials the rule uses: the first k ≥ MIN_TRIALS whose interval is within ±target."""
    for k in range(stats.MIN_TRIALS, len(xs) + 1):
        if stats.median_ci(xs[:k]).half_width_pct <= target:
            return k
    return len(xs)


def covered(a: list[float], b: list[float], k: int, shift: float = 1.0) -> bool:
    iv = stats.median_ci(a[:k])
    return iv.lo <= stats.median(b[:k]) / shift <= iv.hi


def column(cell: str) -> str:
    """A cell's column: its operation and the worker that ran it (the consumer for decodes)."""
    worker = cell.rsplit("/", 1)[-1].split(">")[-1].removesuffix("~aa")
    return cell.split("/", 1)[0] + "/" + worker


def shifts(a: dict, b: dict) -> dict[str, float]:
    """Per column, the median over shared cells of B's median / A's median."""
    ratios: dict[str, list[float]] = {}
    for cell, xs in a.items():
        if cell in b and xs and b[cell]:
            ratios.setdefault(column(cell), []).append(stats.median(b[cell]) / stats.median(xs))
    return {c: stats.median(r) for c, r in ratios.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--target", type=float, default=3.0, help="the interval target, ± %% (default 3)")
    ap.add_argument("--name", help="only this scenario")
    args = ap.parse_args()
    groups: dict[tuple, list[Path]] = {}
    for p in sorted(Path(args.results).glob("*/run.json")):
        try:
            run = json.loads(p.read_text())["run"]
        except (OSError, ValueError, KeyError):
            continue
        s = run.get("scenario") or {}
        if run.get("status") != "RUN_STATUS_FINISHED" or (args.name and s.get("name") != args.name):
            continue
        if not (p.parent / "measurements.csv").exists():
            continue
        sampling = {k: v for k, v in (s.get("sampling") or {}).items() if k != "orderSeed"}  # each run draws its own
        groups.setdefault((s.get("name"), json.dumps(sampling, sort_keys=True), run.get("lanes", 0)), []).append(p.parent)
    print(f"target ±{args.target:g} %, sequential from {stats.MIN_TRIALS} trials; B's median over as many trials as A used")
    for (name, _, lanes), dirs in sorted(groups.items()):
        runs = [trials_by_cell(d) for d in dirs]
        fixed = seq = cells = 0
        used = []
        for a, b in permutations(runs, 2):
            shift = shifts(a, b)
            for cell, xs in a.items():
                ys = b.get(cell) or []
                n = min(len(xs), len(ys))
                if n < stats.MIN_TRIALS:
                    continue
                cells += 1
                fixed += covered(xs, ys, n, shift[column(cell)])
                k = sequential(xs[:n], args.target)
                used.append(k / n)
                seq += covered(xs, ys, k, shift[column(cell)])
        if cells:
            print(f"{name} ({len(dirs)} runs{f', {lanes} lanes' if lanes else ''}): {cells} cell pairs; covered "
                  f"{fixed / cells:.0%} with every trial, {seq / cells:.0%} sequentially, using "
                  f"{sum(used) / len(used):.0%} of the trials")
    return 0


if __name__ == "__main__":
    sys.exit(main())
