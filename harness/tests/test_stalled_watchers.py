"""Issue 32's probe of watchers that stop reading: 20 WatchRun streams that never read, opened on a
run of about 19,000 tasks. Before, each had an unbounded queue (control went from 246 to 844 MiB)
and replays read SQLite under control's lock (ListWorkers took up to 3.5 s). Now a follower's
queue holds at most 1,024 events and the replay reads a page at a time outside the lock
(rust/control/src/follow.rs): control's memory stays bounded, ListWorkers stays fast, a stalled
follower ends with RESOURCE_EXHAUSTED saying how to resume, and WatchRun again replays the run."""
from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import grpc
from google.protobuf import json_format

from codecbench.pb import hs, results, scenario as scenario_pb2

WATCHERS = 20
# Bounds for this probe. Measured on a 2-CPU machine: control peaked at 126-128 MiB (99 MiB with no
# watchers: the run's 19,492 tasks themselves) and ListWorkers took 16 ms at the median and 48-69 ms
# at worst (283 ms while two-lane benchmark trials filled both CPUs). Before: 844 MiB and 3.5 s.
# On a noisier day of the same host (2026-11-28: a plain CPU loop varying 2.6x) the single worst
# call moved with the host, not with control: 133-246 ms with session 40's control and 125-253 ms
# with the refactored one, three runs each alone, medians 22-56 ms. The lock this probe guards
# against held calls for seconds; so 95 % of calls must stay under MAX_LIST_WORKERS_S and the worst
# one under MAX_LIST_WORKERS_WORST_S, and one unlucky scheduling tail on 2 CPUs does not decide.
MAX_RSS_MIB = 192
MAX_LIST_WORKERS_S = 0.25
MAX_LIST_WORKERS_WORST_S = 1.0


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def big_scenario() -> scenario_pb2.Scenario:
    # 4 datasets × 2 codecs × 24 counts × a decode cell × 100 trials and a prepare task, and one
    # A/A twin cell: 19,492 tasks. The fake worker fails every prepare, so the decode trials
    # that wait for its payload fail at once: 96 bursts of 400 events.
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"name": "stalled-watchers", "datasets": ["dummy", "numeric", "owners", "beers"],
                           "codecs": ["json", "bson"], "counts": list(range(5, 29)), "producers": ["fw"], "consumers": ["fw"],
                           "operations": ["OPERATION_DECODE"],
                           "sampling": {"trials": 100, "maxTrials": 100, "warmupMs": 1, "rounds": 1, "minRoundMs": 1}}, s)
    return s


def test_stalled_watchers_cost_bounded_memory_and_never_slow_control(control, fake_worker):
    fake_worker("fail", "fw")
    pid = control.proc.pid
    with control.client() as c:
        start = rss_mib(pid)
        starter = c.harness.StartRun(hs.StartRunRequest(scenario=big_scenario(), source="probe"), timeout=600)
        first = next(starter).event.run
        assert first.tasks_total > 18_000, first.tasks_total
        stalled = [c.harness.WatchRun(hs.WatchRunRequest(run_id=first.id), timeout=600) for _ in range(WATCHERS)]
        drained = threading.Thread(target=lambda: list(starter), daemon=True)
        drained.start()
        peak, latencies = start, []
        while drained.is_alive():
            t0 = time.perf_counter()
            c.harness.ListWorkers(hs.ListWorkersRequest(), timeout=10)
            latencies.append(time.perf_counter() - t0)
            peak = max(peak, rss_mib(pid))
            time.sleep(0.05)
        run = c.harness.GetRun(hs.GetRunRequest(run_id=first.id), timeout=60).run
        assert run.status == results.RUN_STATUS_FINISHED, run
        print(f"control RSS {start:.0f} -> peak {peak:.0f} MiB; ListWorkers median {statistics.median(latencies) * 1e3:.1f} ms, "
              f"max {max(latencies) * 1e3:.1f} ms over {len(latencies)} calls")
        assert peak < MAX_RSS_MIB, (start, peak)
        p95 = statistics.quantiles(latencies, n=20)[-1]
        assert p95 < MAX_LIST_WORKERS_S and max(latencies) < MAX_LIST_WORKERS_WORST_S, (p95, sorted(latencies)[-5:])

        # A stalled follower gets what was queued, then the status that says how to resume.
        events = 0
        try:
            for _ in stalled[0]:
                events += 1
            raise AssertionError(f"the stalled follower was not dropped ({events} events)")
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, exc
            assert "WatchRun again to resume" in exc.details(), exc.details()
        # Resuming replays the whole run, a page at a time.
        tasks = sum(1 for r in c.harness.WatchRun(hs.WatchRunRequest(run_id=first.id), timeout=120)
                    if r.event.WhichOneof("event") == "task")
        assert tasks == run.tasks_total
        for s in stalled:
            s.cancel()
