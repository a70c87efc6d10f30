"""The soak (issue 10): at least 10,000 small tasks from Rust, Java and four browser pages against
one control, whose resident memory and open file descriptors are printed before, during and
after. Both must stay bounded: no growth with the number of tasks once the run has ended.

Trials run in each worker's cheapest mode (Java `--trials in-process`, browser `--trials
web-worker`): the soak is about control, not about timing. 12,018 tasks took 53 minutes here
(3,183 s on 2 cores with a CI run beside it; run 20261128-091307-a701: control's RSS 12.0 MiB
attached, 109.8 MiB peak, 57.9 MiB after; 21 → 22 descriptors). Ctrl-C stops the workers and
control (exit 130).

    make soak                                  # or:
    .venv/bin/python -m codecbench.soak [--trials 8] [--pages 4] [--languages rust,java,browser,node]

`--languages` picks the workers (any language of codecs/catalogue.yaml; the default is the three
the figures above were measured with). A Node worker runs each trial in a fresh Node process, its
only mode.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

from google.protobuf import json_format

from . import catalogue, datasets, processes
from .client import connect, wait_for_workers
from .pb import hs, results as results_pb2, scenario as scenario_pb2

DATASETS = list(datasets.builtin_ids())
CODECS = ["json", "bson", "protobuf", "ubjson", "msgpack"]
# The workers the soak attaches by default (the measured figures above); --languages takes any of
# catalogue.LANGUAGES.
LANGUAGES = ("rust", "java", "browser")
# Growth of control allowed between the workers' attachment and the end of the run: what a run
# of this size may leave in the allocator's free lists, not a per-task leak (10,000 tasks × a few
# hundred bytes would already pass it).
MAX_RSS_GROWTH_MIB = 64
MAX_FD_GROWTH = 8


def usage(pid: int) -> tuple[float, int]:
    """Control's resident memory (MiB) and open file descriptors."""
    with open(f"/proc/{pid}/status") as f:
        rss_kib = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return rss_kib / 1024, len(os.listdir(f"/proc/{pid}/fd"))


def threads(pid: int) -> int:
    """Control's threads: each thread that allocates may hold its own allocator arena."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def scenario(trials: int) -> scenario_pb2.Scenario:
    s = scenario_pb2.Scenario()
    json_format.ParseDict({
        "name": "soak", "datasets": DATASETS, "codecs": CODECS, "counts": [10], "decodeModes": ["typed"],
        "operations": ["OPERATION_ENCODE", "OPERATION_DECODE"],
        "sampling": {"warmupMs": 1, "maxWarmupMs": 20, "rounds": 1, "minRoundMs": 1, "trials": trials,
                     "maxTrials": trials, "taskTimeoutS": 120},
    }, s)
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="codecbench.soak", description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=8, help="trials per cell (8: 10,308 tasks with 4 pages, each page a worker)")
    ap.add_argument("--pages", type=int, default=4, help="browser pages (default 4)")
    ap.add_argument("--languages", default=",".join(LANGUAGES),
                    help=f"workers to attach, of {', '.join(catalogue.LANGUAGES)} (default {','.join(LANGUAGES)})")
    args = ap.parse_args(argv)
    languages = [lang for lang in args.languages.split(",") if lang]
    if (unknown := [lang for lang in languages if lang not in catalogue.LANGUAGES]) or not languages:
        ap.error(f"--languages: {', '.join(unknown) or 'none given'}: the catalogue's languages are {', '.join(catalogue.LANGUAGES)}")
    art = processes.Artifacts(processes.repo_root())
    if (missing := [f"{k}: {why}" for k in ("control", *languages) if (why := art.missing(k))]):
        print("soak: not built: " + "; ".join(missing) + " (run make build)", file=sys.stderr)
        return 2
    base = processes.state_root() / "soak" / time.strftime("%Y%m%d-%H%M%S")
    logs = base / "logs"
    started: list[processes.Proc] = []
    try:
        control, addr = processes.start_control(art, "127.0.0.1:0", base / "control", logs / "control.log")
        started.append(control)
        url = processes.worker_url(addr)
        for lang in languages:
            if lang == "java":
                started.append(processes.start_worker(art, "java", addr, logs / "java.log", extra=("--trials", "in-process")))
            elif lang == "browser":
                started.append(processes.spawn("browser", "browser", [
                    "node", str(art.browser_driver), "--control", url, "--count", str(args.pages),
                    "--log", str(logs / "browser.pages.log"), "--trials", "web-worker"], logs / "browser.log",
                    marker="driver.mjs", cwd=art.root))
            else:
                started.append(processes.start_worker(art, lang, addr, logs / f"{lang}.log"))
        with connect(addr) as c:
            wait_for_workers(c, languages, 180, counts={"browser": args.pages} if "browser" in languages else None)
            before = usage(control.pid)
            print(f"soak: control {addr}, logs in {logs}")
            print(f"before: control RSS {before[0]:.1f} MiB, {before[1]} open descriptors "
                  f"({', '.join(f'{args.pages} browser pages' if lang == 'browser' else lang for lang in languages)} attached)")
            peak = list(before)
            stop = threading.Event()

            def sample():
                while not stop.wait(5):
                    rss, fds = usage(control.pid)
                    peak[0], peak[1] = max(peak[0], rss), max(peak[1], fds)

            threading.Thread(target=sample, daemon=True).start()
            t0 = time.monotonic()
            tally = {"done": 0, "failed": 0, "run": None, "error": None}

            def follow():
                # In a thread: the main thread blocked in a gRPC stream would not see Ctrl-C.
                try:
                    for resp in c.harness.StartRun(hs.StartRunRequest(scenario=scenario(args.trials), source="soak"),
                                                   timeout=6 * 3600):
                        e = resp.event
                        kind = e.WhichOneof("event")
                        if kind == "run":
                            tally["run"] = e.run
                        elif kind == "task" and e.task.status in (results_pb2.TASK_STATUS_DONE, results_pb2.TASK_STATUS_FAILED):
                            tally["done" if e.task.status == results_pb2.TASK_STATUS_DONE else "failed"] += 1
                            if (n := tally["done"] + tally["failed"]) % 1000 == 0:
                                rss, fds = usage(control.pid)
                                print(f"  {n:>6} tasks ({tally['failed']} failed) in {time.monotonic() - t0:,.0f} s: "
                                      f"control RSS {rss:.1f} MiB, {fds} descriptors, "
                                      f"{threads(control.pid)} threads", flush=True)
                except Exception as e:  # noqa: BLE001 - reported below, in the main thread
                    tally["error"] = e

            follower = threading.Thread(target=follow, daemon=True)
            follower.start()
            while follower.is_alive():
                follower.join(0.5)
            if tally["error"] is not None:
                raise tally["error"]
            done, failed, run = tally["done"], tally["failed"], tally["run"]
            stop.set()
            elapsed = time.monotonic() - t0
            time.sleep(2)  # let the run's streams and files close
            after = usage(control.pid)
            whole = c.get_run(run.id)
    except KeyboardInterrupt:
        print("soak: interrupted; stopping the workers and control", file=sys.stderr)
        return 130
    finally:
        for p in reversed(started):
            processes.stop(p)
    print(f"run {run.id}: {len(whole.tasks)} tasks, {done} done, {failed} failed, in {elapsed:,.0f} s "
          f"({len(whole.tasks) / elapsed:.1f} tasks/s)")
    print(f"after:  control RSS {after[0]:.1f} MiB, {after[1]} open descriptors "
          f"(peak during the run {peak[0]:.1f} MiB, {peak[1]} descriptors)")
    grew = after[0] - before[0], after[1] - before[1]
    problems = []
    if len(whole.tasks) < 10_000:
        problems.append(f"only {len(whole.tasks)} tasks (want at least 10,000)")
    if failed:
        problems.append(f"{failed} tasks failed (see {logs})")
    if grew[0] > MAX_RSS_GROWTH_MIB:
        problems.append(f"control's RSS grew by {grew[0]:.1f} MiB (at most {MAX_RSS_GROWTH_MIB})")
    if grew[1] > MAX_FD_GROWTH:
        problems.append(f"control holds {grew[1]} more descriptors than before (at most {MAX_FD_GROWTH})")
    if problems:
        print("soak FAILED: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(f"soak passed: RSS {grew[0]:+.1f} MiB, descriptors {grew[1]:+d} after {len(whole.tasks):,} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
