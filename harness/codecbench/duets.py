"""Duets (Sampling.duets; docs/DESIGN.md "Duets"): two cells whose trial k ran at the same moment,
one on each of two workers of a language, each in its own lane. Their ratio is judged trial by
trial: both trials of a pair saw the same machine, so a drift of the machine's speed divides out.

For every duet this module puts three intervals of the same ratio (right / left, e.g. protobuf /
json) side by side, each a 95 % rerun interval in the sense of stats.py:

- **paired**: the median of the per-trial ratios, with median_ci's interval over them;
- **unpaired**: the same trials with their pairing ignored, median(right) / median(left) with the
  interval [lo_right / hi_left, hi_right / lo_left] — what the verdict's "do the two intervals
  overlap" rule amounts to;
- **separate cells**: the run's ordinary cells of the same two comparisons, measured alone in
  their passes, by the same rule.

The A/A duet (the baseline against itself on the other worker) should give a ratio near 1 whose
interval holds 1.

    .venv/bin/python -m codecbench.duets RESULTS_DIR_OR_RUN_ID [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from . import stats

SUFFIX = "~duet:"  # rust/control/src/duets.rs DUET_SUFFIX


@dataclass
class Duet:
    duet: str
    language: str
    operation: str
    dataset: str
    record_count: int
    decode_mode: str
    left: str  # codec
    right: str
    aa: bool  # the A/A duet: the same codec on both sides
    pairs: int
    paired: stats.Interval
    unpaired: stats.Interval
    separate: stats.Interval

    def to_json(self) -> dict:
        d = asdict(self)
        for k in ("paired", "unpaired", "separate"):
            iv = getattr(self, k)
            d[k] = {"ratio": _num(iv.median), "lo": _num(iv.lo), "hi": _num(iv.hi), "n": iv.n,
                    "half_width_pct": _num(iv.half_width_pct)}
        return d


def _num(v: float):
    return None if v is None or math.isnan(v) else v


def split(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ordinary rows, duet rows) of a measurements frame; the duet copies are kept out of every
    cell, leaderboard and verdict (they ran under other conditions: two at once)."""
    if "duet" not in df or df.empty:
        return df, df.iloc[0:0]
    is_duet = df["duet"].fillna("").astype(str) != ""
    return df[~is_duet], df[is_duet]


def ratio_of(left: stats.Interval, right: stats.Interval) -> stats.Interval:
    """right / left with the interval the overlap rule implies: [lo_r / hi_l, hi_r / lo_l]."""
    if left.n == 0 or right.n == 0 or not (left.median > 0 and left.lo > 0):
        return stats.EMPTY
    return stats.Interval(right.median / left.median, right.lo / left.hi, right.hi / left.lo,
                          min(left.n, right.n), min(left.coverage, right.coverage))


def analyse(duet_rows: pd.DataFrame, cells: pd.DataFrame | None = None) -> list[Duet]:
    """One Duet per duet key with at least one complete pair (both trials verified, no failure)."""
    if duet_rows.empty:
        return []
    ok = duet_rows[(duet_rows["failure"].fillna("") == "") & duet_rows["verified"].astype(bool)]
    by_cell = {}
    if cells is not None and not cells.empty:
        from .results import interval_of
        for _, c in cells.iterrows():
            by_cell.setdefault(c["cell_id"], interval_of(c))
    out = []
    for key, rows in ok.groupby("duet", sort=True):
        left_id, _, right_id = str(key).partition("|")
        sides: dict[str, dict[int, float]] = {"left": {}, "right": {}}
        meta = {}
        for _, r in rows.iterrows():
            original = str(r["cell_id"]).split(SUFFIX)[0]
            side = "left" if original == left_id else "right" if original == right_id else None
            if side is None or not r["median_ns_per_op"] > 0:
                continue
            sides[side][int(r["trial"])] = float(r["median_ns_per_op"])
            meta[side] = r
        trials = sorted(set(sides["left"]) & set(sides["right"]))
        if not trials:
            continue
        lv = [sides["left"][k] for k in trials]
        rv = [sides["right"][k] for k in trials]
        left, right = meta["left"], meta["right"]
        out.append(Duet(
            duet=str(key), language=str(left["language"]), operation=str(left["operation"]),
            dataset=str(left["dataset"]), record_count=int(left["record_count"]),
            decode_mode=str(left["decode_mode"] or ""), left=str(left["codec"]), right=str(right["codec"]),
            aa=left["codec"] == right["codec"], pairs=len(trials),
            paired=stats.median_ci([b / a for a, b in zip(lv, rv)]),
            unpaired=ratio_of(stats.median_ci(lv), stats.median_ci(rv)),
            separate=ratio_of(by_cell.get(left_id, stats.EMPTY), by_cell.get(right_id, stats.EMPTY)),
        ))
    return out


def fmt(iv: stats.Interval) -> str:
    if iv.n == 0:
        return "—"
    return f"×{iv.median:.3f} [{iv.lo:.3f}–{iv.hi:.3f}] ±{iv.half_width_pct:.1f}%"


def table(duets: list[Duet]) -> list[str]:
    """Printable lines: one per duet, then what pairing bought (median half-widths)."""
    if not duets:
        return []
    lines = ["duets (right / left; 95 % rerun intervals): paired trials · same trials unpaired · separate cells"]
    for d in sorted(duets, key=lambda d: (d.language, d.operation, d.dataset, d.record_count, d.decode_mode, not d.aa, d.right)):
        what = f"{d.operation}{f' ({d.decode_mode})' if d.decode_mode else ''} {d.dataset} × {d.record_count:,}"
        pair = f"{d.right} / {d.left}" + (" (A/A)" if d.aa else "")
        lines.append(f"  {d.language:<8} {what:<28} {pair:<24} n{d.pairs:<3} "
                     f"{fmt(d.paired):<30} · {fmt(d.unpaired):<30} · {fmt(d.separate)}")
    hw = {k: stats.median([getattr(d, k).half_width_pct for d in duets]) for k in ("paired", "unpaired", "separate")}
    aa = [d for d in duets if d.aa]
    held = sum(1 for d in aa if d.paired.n and d.paired.lo <= 1 <= d.paired.hi)
    lines.append(f"median half-width: paired ±{hw['paired']:.1f}% · unpaired ±{hw['unpaired']:.1f}% · "
                 f"separate cells ±{hw['separate']:.1f}% ({len(duets)} duets)"
                 + (f"; A/A duets holding 1: {held} of {len(aa)}" if aa else ""))
    return lines


def from_results(run_dir: Path) -> list[Duet]:
    from .results import cells_frame, read_duets, read_measurements

    duet_rows = read_duets(run_dir)
    if duet_rows.empty:
        return []
    return analyse(duet_rows, cells_frame(read_measurements(run_dir)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="codecbench.duets", description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a results folder, or a run id under results/")
    ap.add_argument("--json", action="store_true", help="print the duets as JSON")
    args = ap.parse_args(argv)
    path = Path(args.run)
    if not path.is_dir():
        path = Path("results") / args.run
    if not path.is_dir():
        print(f"codecbench.duets: no results folder {args.run}", file=sys.stderr)
        return 2
    duets = from_results(path)
    if args.json:
        print(json.dumps([d.to_json() for d in duets], indent=2))
        return 0
    if not duets:
        print(f"{path}: no duets (the run's scenario did not set sampling.duets)")
        return 0
    print("\n".join(table(duets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
