"""How long a planned run will take, said before it starts: every planned task costs what tasks of
its kind cost in the earlier runs on this host with the same sampling (their results folders:
control's `startedAt`/`endedAt` per task, timing.py), plus those runs' idle share.

Runs count only when they ran as many lanes (docs/DESIGN.md "Lanes") as this one: a task pinned to
one CPU beside another trial does not cost what it costs alone. With several lanes the run lasts
as long as the larger of its task time shared over the lanes and its busiest worker's task time
(a worker runs one task at a time).

A task's kind is its language, what it does (prepare, encode, decode and its mode) and whether the
run times transfer legs; a kind never seen with this sampling falls back to the same language and
operation in any mode, and a task with no such history is left out and counted, so the estimate
never pretends. `run` prints it up front and stores it in run.json (`estimate`); the `time:` line
at the end sets the actual time against it.
"""
from __future__ import annotations

import json
import socket
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from . import timing

# Runs read at most, newest first: enough history, bounded start-up cost.
MAX_RUNS = 40


def signature(sampling: dict) -> tuple:
    """What makes two runs' tasks cost the same: the sampling that sets warm-up and round time."""
    return tuple(int(sampling.get(k) or 0) for k in ("warmupMs", "maxWarmupMs", "rounds", "minRoundMs"))


def _transfer(scenario: dict) -> bool:
    ops = scenario.get("operations") or []
    return not ops or "OPERATION_TRANSFER" in ops


def kind(task: dict, language: str, transfer: bool) -> tuple:
    op = "prepare" if task.get("prepare") else (task.get("operation") or "").removeprefix("OPERATION_").lower()
    mode = task.get("decodeMode", "") if op == "decode" else ""
    return (language, op, mode, transfer and op != "prepare")


def _coarse(k: tuple) -> tuple:
    return (k[0], k[1], "", k[3])


def _worker_language(doc: dict) -> Callable[[str], str]:
    envs = doc.get("workers") or {}
    return lambda w: (envs.get(w) or {}).get("language") or (w.rsplit("-", 1)[0] if "-" in w else w)


@dataclass
class History:
    """Seconds per task by kind (and by coarse kind), and idle shares, from earlier runs."""
    seconds: dict
    coarse: dict
    idle_shares: list
    runs: int


def history(results_dir: Path, sampling: dict, host: str | None = None, exclude: str = "", lanes: int = 1) -> History:
    host = host or socket.gethostname()
    want = signature(sampling)
    seconds: dict = {}
    coarse: dict = {}
    idle: list = []
    runs = 0
    docs = sorted(results_dir.glob("*/run.json"), key=lambda p: p.parent.name, reverse=True) if results_dir.is_dir() else []
    for path in docs[:MAX_RUNS * 3]:
        if runs >= MAX_RUNS or path.parent.name == exclude:
            continue
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        run, scenario = doc.get("run") or {}, (doc.get("run") or {}).get("scenario") or {}
        if (doc.get("harness") or {}).get("hostname") != host or signature(scenario.get("sampling") or {}) != want:
            continue
        if run.get("status") != "RUN_STATUS_FINISHED" or not doc.get("timeBreakdown") or timing.lanes(run) != lanes:
            continue
        runs += 1
        lang = _worker_language(doc)
        transfer = _transfer(scenario)
        for t in doc.get("tasks") or []:
            start, end = timing.seconds(t.get("startedAt")), timing.seconds(t.get("endedAt"))
            if start is None or end is None or t.get("status") != "TASK_STATUS_DONE":
                continue
            k = kind(t, lang(timing.task_worker(t)), transfer)
            seconds.setdefault(k, []).append(end - start)
            coarse.setdefault(_coarse(k), []).append(end - start)
        idle.append(doc["timeBreakdown"]["shares"].get("idle", 0.0))
    return History(seconds, coarse, idle, runs)


def estimate(tasks: Iterable[dict], language_of: Callable[[str], str], scenario: dict, past: History, lanes: int = 1) -> dict:
    """The planned run's estimate: seconds, tasks covered and not, and what it rests on."""
    transfer = _transfer(scenario)
    total, covered, missing = 0.0, 0, 0
    per_worker: dict[str, float] = {}
    for t in tasks:
        k = kind(t, language_of(timing.task_worker(t)), transfer)
        xs = past.seconds.get(k) or past.coarse.get(_coarse(k))
        if not xs:
            missing += 1
            continue
        cost = statistics.fmean(xs)
        total += cost
        per_worker[timing.task_worker(t)] = per_worker.get(timing.task_worker(t), 0.0) + cost
        covered += 1
    busy = max([total / max(1, lanes), *per_worker.values()])
    idle = statistics.median(past.idle_shares) if past.idle_shares else 0.0
    seconds = busy / (1 - idle) if idle < 0.5 else busy
    return {"seconds": round(seconds, 1), "tasks": covered, "tasksWithoutHistory": missing, "runs": past.runs}


def sentence(est: dict, planned: int) -> str:
    if not est["tasks"]:
        return (f"plan: {planned} tasks; no estimate yet (no earlier finished run on this host with this "
                "sampling in the results folder)")
    unsure = (f"; {est['tasksWithoutHistory']} of them have no history and are not counted"
              if est["tasksWithoutHistory"] else "")
    runs = f"{est['runs']} earlier run" + ("s" if est["runs"] != 1 else "")
    return f"plan: {planned} tasks, estimated {timing.duration(est['seconds'])} (from {runs} on this host with this sampling{unsure})"
