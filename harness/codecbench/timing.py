"""Where a run's wall time went (proto/README.md "Where the time goes"), from its tasks: control's
`startedAt`/`endedAt` stamps and the workers' `phaseMs`.

Phases, summed over tasks, each in seconds and as a share of the run's lane time (its wall time
times its lanes, docs/DESIGN.md "Lanes": with one lane, the wall time):
- rounds: the timed rounds (what the run is for);
- warm-up: calibration and warm-up rounds;
- start/exit: starting and ending each trial's fresh process (its `process` time minus what the
  trial process measured of itself: exec, JVM boot and class loading, page and module load,
  passing the input and the result);
- load: canonical bytes to native records; verify: the untimed round trip and comparison;
- transfer: timing the upload and download legs (their own warm-up and rounds);
- fetch: untimed blob calls (canonical data, payloads);
- messaging: a task's time at control not spent in the worker phases above (the task and report
  messages, storing the report, the attached process's own bookkeeping);
- other: the rest of the trial processes' time (peak-heap probe, GC, writing the result), and the
  whole time of a task whose worker reported no phases;
- idle: lane time when no task was running (scheduling, a browser launch between passes, a lane
  waiting because every ready task's worker was busy, the end of the run).
"""
from __future__ import annotations

from datetime import datetime
from typing import Callable

PHASES = ["rounds", "warm-up", "start/exit", "load", "verify", "transfer", "fetch", "messaging", "other", "idle"]
_TRIAL = ["load", "verify", "warmup", "rounds", "other"]


def task_worker(task: dict) -> str:
    """The worker that ran a task (run.json form): its replica when the run spread trials over
    replicas (sampling.replicas), else the producer encodes and the consumer decodes."""
    if task.get("replica"):
        return task["replica"]
    return task.get("producerWorkerId", "") if task.get("operation") == "OPERATION_ENCODE" else task.get("consumerWorkerId", "")


def seconds(stamp: str | None) -> float | None:
    """An RFC 3339 stamp of run.json as POSIX seconds (None when absent)."""
    if not stamp:
        return None
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def task_phases(task: dict) -> dict[str, float] | None:
    """One task's seconds by phase (PHASES but idle), or None when it never ran."""
    start, end = seconds(task.get("startedAt")), seconds(task.get("endedAt"))
    if start is None or end is None:
        return None
    wall = max(0.0, end - start)
    ms = {k: float(v) for k, v in (task.get("phaseMs") or {}).items()}
    out = dict.fromkeys(PHASES[:-1], 0.0)
    if "total" not in ms:
        out["other"] = wall
        return out
    s = {k: v / 1e3 for k, v in ms.items()}
    inside = sum(s.get(k, 0.0) for k in _TRIAL)
    out["rounds"], out["warm-up"] = s.get("rounds", 0.0), s.get("warmup", 0.0)
    out["load"], out["verify"], out["other"] = s.get("load", 0.0), s.get("verify", 0.0), s.get("other", 0.0)
    out["start/exit"] = max(0.0, s.get("process", inside) - inside)
    out["transfer"], out["fetch"] = s.get("transfer", 0.0), s.get("fetch", 0.0)
    worker = s.get("process", inside) + out["transfer"] + out["fetch"]
    out["messaging"] = max(0.0, wall - worker)
    return out


def lanes(run: dict) -> int:
    """How many tasks the run ran at once (Run.lanes; 0 or absent in runs from before lanes: one)."""
    return max(1, int(run.get("lanes") or 0))


def breakdown(run: dict, tasks: list[dict], language_of: Callable[[str], str] = lambda w: w) -> dict | None:
    """The run's time breakdown (run.json's `timeBreakdown`), or None when its tasks carry no stamps
    (a run from before control stamped them). `language_of` maps a worker id to its language."""
    t0, t1 = seconds(run.get("createdAt")), seconds(run.get("finishedAt"))
    per_task = [(t, task_phases(t)) for t in tasks]
    ran = [(t, p) for t, p in per_task if p is not None]
    if not ran or t0 is None:
        return None
    if t1 is None:
        t1 = max(seconds(t["endedAt"]) for t, _ in ran)
    wall = max(1e-9, t1 - t0)
    capacity = wall * lanes(run)
    total = dict.fromkeys(PHASES, 0.0)
    by_lang: dict[str, dict] = {}
    for t, p in ran:
        lang = language_of(task_worker(t)) or "?"
        entry = by_lang.setdefault(lang, {"tasks": 0, "seconds": dict.fromkeys(PHASES[:-1], 0.0)})
        entry["tasks"] += 1
        for k, v in p.items():
            total[k] += v
            entry["seconds"][k] += v
    busy = sum(v for k, v in total.items() if k != "idle")
    total["idle"] = max(0.0, capacity - busy)
    return {
        "wallSeconds": round(wall, 3),
        "lanes": lanes(run),
        "tasks": len(ran),
        "seconds": {k: round(v, 3) for k, v in total.items()},
        "shares": {k: round(v / capacity, 4) for k, v in total.items()},
        "timedShare": round(total["rounds"] / capacity, 4),
        # Per language: the mean task's seconds by phase (a trial's cost in that runtime).
        "byLanguage": {lang: {"tasks": e["tasks"], "meanTaskSeconds": {k: round(v / e["tasks"], 4) for k, v in e["seconds"].items()}}
                       for lang, e in sorted(by_lang.items())},
    }


def duration(s: float) -> str:
    if s < 60:
        return f"{s:.1f} s"
    whole = round(s)
    return f"{whole // 60} min {whole % 60} s"


def sentence(b: dict, estimated: float | None = None) -> str:
    """One line for `run`: the wall time (against the up-front estimate, when there was one), the
    timed share, and every phase's share, largest first."""
    shares = sorted(((k, v) for k, v in b["shares"].items() if k != "rounds" and v >= 0.005), key=lambda kv: -kv[1])
    rest = " · ".join(f"{k} {v:.0%}" for k, v in shares)
    per = "; ".join(f"{lang} {sum(e['meanTaskSeconds'].values()):.2f} s" for lang, e in b["byLanguage"].items())
    est = (f" (estimated {duration(estimated)}, {b['wallSeconds'] / estimated - 1:+.0%})"
           if estimated else "")
    lanes = b.get("lanes", 1)
    of = f" of {lanes} lanes' time" if lanes > 1 else ""
    return (f"time: {duration(b['wallSeconds'])} wall{est}, {b['timedShare']:.0%}{of} in timed rounds · {rest}"
            + (f" (mean task: {per})" if per else ""))
