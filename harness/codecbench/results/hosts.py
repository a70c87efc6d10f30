"""Replica (host) effects: a run with `sampling.replicas` spreads each cell's trials over the
workers of its language, often one per host (docs/DESIGN.md "Hosts"). The replica is a block of
the design, like the pass: a replica on a slower host makes every trial it runs slower, so a
cell's median would depend on how its trials fell. Its effect is estimated the way the pass's is
(stats.pass_factors: per language, operation and compression, the median over the cells that ran
on several replicas of the trial figure / the cell's median, centred so the median replica's
factor is 1) and divided out before the pass adjustment (cells.py); the report shows them.
"""

from __future__ import annotations

import pandas as pd

HOST_COLUMNS = ["language", "operation", "compression", "worker_id", "hostname", "factor", "cells", "trials"]


def replica_block(r: dict, op: str) -> tuple:
    """The block of the replica adjustment: the language, what was timed, and who timed it."""
    return (r["language"], op, r.get("compression") or "", r["worker_id"])


def _spread(groups: dict[tuple, list[dict]]) -> dict[tuple, list[dict]]:
    """The groups (cells) whose trials ran on more than one worker: only they say anything about
    a replica's effect (a cell on one worker is all one block)."""
    return {g: rs for g, rs in groups.items() if len({r["worker_id"] for r in rs}) > 1}


def replica_factors(timed: dict[tuple, list[dict]], figure_of: dict[int, float]) -> dict[tuple, float]:
    """{replica_block: factor} from the timed trials of every (cell, operation) group; empty when
    no cell ran on several replicas (a run without replicas: every factor is 1)."""
    from .. import stats

    spread = _spread(timed)
    if not spread:
        return {}
    return stats.pass_factors((replica_block(r, op), (key, op), figure_of[id(r)])
                              for (key, op), rs in spread.items() for r in rs)


def host_effects(df: pd.DataFrame) -> pd.DataFrame:
    """One row per replica, language, operation and compression that got a factor: its host, its
    factor (its trials' figures ÷ factor are what cells use), and how many cells and trials of
    cells spread over replicas it timed. Empty for a run without replicas."""
    from .. import stats
    from .cells import _records, cell_key

    if df.empty or "worker_id" not in df:
        return pd.DataFrame(columns=HOST_COLUMNS)
    groups: dict[tuple, list[dict]] = {}
    hosts: dict[str, str] = {}
    for r in _records(df):
        if r["rounds"] > 0 and not r["failure"]:
            groups.setdefault((cell_key(r), r["operation"]), []).append(r)
    if "hostname" in df:
        hosts = {w: h for w, h in zip(df["worker_id"], df["hostname"]) if isinstance(h, str) and h}
    figure_of = {id(r): stats.trial_figure(r["round_ns_per_op"]) for rs in groups.values() for r in rs}
    factors = replica_factors(groups, figure_of)
    rows = []
    for block, factor in sorted(factors.items()):
        lang, op, comp, worker = block
        mine = [(g, r) for g, rs in _spread(groups).items() for r in rs if replica_block(r, g[1]) == block]
        rows.append({"language": lang, "operation": op, "compression": comp, "worker_id": worker,
                     "hostname": hosts.get(worker, ""), "factor": factor,
                     "cells": len({g for g, _ in mine}), "trials": len(mine)})
    return pd.DataFrame(rows, columns=HOST_COLUMNS)


def describe(effects: pd.DataFrame) -> list[str]:
    """One line per language and operation: each replica's host and factor."""
    if effects.empty:
        return []
    lines = []
    for (lang, op, comp), g in effects.groupby(["language", "operation", "compression"], sort=True):
        parts = ", ".join(f"{r.hostname or r.worker_id} ×{r.factor:.3f}" for r in g.itertuples())
        what = f"{op}{' ' + comp if comp else ''}"
        lines.append(f"{lang} {what}: {parts} ({int(g['cells'].max())} cells spread over {len(g)} replicas)")
    return lines
