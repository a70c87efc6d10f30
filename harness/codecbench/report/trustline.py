"""The trust line: the caveats that travel with a verdict, in one sentence (issue 31, item 2).

Every place that states a verdict (report.html's first screen, report.md, `report --format
md|csv|json`, the terminal) prints this line beside it: how many trials each cell had, the noise
floors the verdict was judged by, how many cells have an interval wider than WIDE_CI, unsteady
trials, and the machine. No matplotlib here: the CLI imports it to print a run's answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .. import stats

# A cell whose 95 % interval is wider than this (half-width over the median) is flagged.
WIDE_CI = 0.10


@dataclass(frozen=True)
class TrustLine:
    trials_min: int
    trials_max: int
    cells: int  # timed cells
    wide: int  # of them, wider than ±WIDE_CI
    unsteady: int  # trials that never reached a steady state
    floors: dict  # language → stats.NoiseFloor (the verdict's); empty when no A/A group
    machine: str

    def parts(self) -> list[str]:
        out = []
        if self.cells:
            n = (f"{self.trials_min} trials per cell" if self.trials_min == self.trials_max
                 else f"{self.trials_min}–{self.trials_max} trials per cell")
            if self.trials_min < stats.MIN_TRIALS:
                n += f" (fewer than {stats.MIN_TRIALS}: intervals short of 95 % coverage)"
            out.append(n)
        measured = {lang: f for lang, f in self.floors.items() if f.groups}
        if measured:
            worst = max(measured, key=lambda lang: measured[lang].worst)
            rest = ", ".join(f"{lang} {f.worst_pct:.1f} %" for lang, f in sorted(measured.items()) if lang != worst)
            out.append(f"noise floor {measured[worst].worst_pct:.1f} % ({worst}" + (f"; {rest}" if rest else "")
                       + "): a smaller effect is inconclusive here")
        else:
            out.append("noise floor not measured (no identical work measured twice)")
        if self.cells:
            out.append(f"{self.wide} of {self.cells} cells wider than ±{WIDE_CI:.0%}")
        if self.unsteady:
            out.append(f"{self.unsteady} unsteady trial{'s' if self.unsteady != 1 else ''}")
        if self.machine:
            out.append(f"machine: {self.machine}")
        return out

    def sentence(self) -> str:
        return "Trust: " + " · ".join(self.parts()) + "."

    def as_json(self) -> dict:
        return {"trialsMin": self.trials_min, "trialsMax": self.trials_max, "cells": self.cells,
                "wideCells": self.wide, "wideThresholdPct": WIDE_CI * 100, "unsteadyTrials": self.unsteady,
                "noiseFloorPct": {lang: round(f.worst_pct, 2) for lang, f in sorted(self.floors.items()) if f.groups},
                "machine": self.machine, "sentence": self.sentence()}


def machine(doc: dict) -> str:
    """Where the workers ran, as they announced it: "host (2 cores, CPU model); 3 workers on one host"."""
    envs = [e for e in (doc.get("workers") or {}).values() if e.get("hostname")]
    hosts: dict[str, dict] = {}
    for e in envs:
        hosts.setdefault(e["hostname"], e)
    if not hosts:
        h = doc.get("harness") or {}
        return h.get("hostname", "")
    said = []
    for name, e in sorted(hosts.items()):
        what = ", ".join(x for x in (f"{e['cores']} core{'s' if int(e['cores']) != 1 else ''}" if e.get("cores") else "", e.get("cpuModel") or "") if x)
        said.append(f"{name} ({what})" if what else name)
    text = "; ".join(said)
    if len(hosts) == 1 and len(envs) > 1:
        text += f", {len(envs)} workers on one host"
    return text


def trust_line(cells: pd.DataFrame, floors: dict, doc: dict) -> TrustLine:
    """The trust line of a run: `cells` (results.cells_frame), `floors` (the verdict's: language →
    stats.NoiseFloor, leaderboard.for_run), `doc` (run.json)."""
    t = cells[cells["trials"] > 0] if not cells.empty else cells
    if t.empty:
        return TrustLine(0, 0, 0, 0, 0, floors, machine(doc))
    return TrustLine(trials_min=int(t["trials"].min()), trials_max=int(t["trials"].max()), cells=len(t),
                     wide=int((t["ci_pct"] > WIDE_CI * 100).sum()), unsteady=int(t["unsteady"].sum()),
                     floors=floors, machine=machine(doc))
