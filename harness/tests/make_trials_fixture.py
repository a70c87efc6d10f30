"""Regenerate tests/data/trials-a/ and tests/data/trials-b/: two runs of one scenario, back to back,
as the issue 9 protocol records them (cells, trials, steady flags, blob ids, A/A twins, upload and
download legs, workers with their codecs' timed regions). The report and compare tests read them.

    .venv/bin/python harness/tests/make_trials_fixture.py

The runs are synthetic until real ones are recorded: each cell has a true cost (codec × mode ×
language × dataset × count, plus a fixed overhead); each trial is that cost with trial-to-trial
noise (lognormal, σ 2 %; Java 4 % with an occasional slow, unsteady trial as a JIT recompilation
gives), and each of its 10 rounds adds round noise (σ 1 %); each run adds a small drift per cell
(σ 1 %). Byte-identical payloads share a blob id across producers, as in control's content-
addressed store. A fake worker's codec fails, so failures are recorded as control stores them.
Run B is the same scenario with other random draws: an A/A pair of runs. Deterministic seeds.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from google.protobuf.timestamp_pb2 import Timestamp  # noqa: E402

from codecbench import results  # noqa: E402
from codecbench.pb import results as rpb  # noqa: E402
from codecbench.pb import scenario as spb  # noqa: E402
from codecbench.pb import ws  # noqa: E402

DATA = HERE / "data"
DATASETS = ("beers", "dummy")
COUNTS = (10, 100)
CODECS = {"json": ("typed", "tree"), "bson": ("typed", "tree", "lazy"), "protobuf": ("typed",)}
WORKERS = {"rust-1": "rust", "java-1": "java", "browser-1": "browser"}
FAKE = "fake-1"
TRIALS = 5
ROUNDS = 10
ORDER_SEED = 424242
# True ns per record of the codec's own work, by operation (and mode).
ENCODE = {"json": 800.0, "bson": 600.0, "protobuf": 300.0}
DECODE = {("json", "typed"): 1200.0, ("json", "tree"): 1000.0, ("bson", "typed"): 900.0,
          ("bson", "tree"): 1030.0, ("bson", "lazy"): 150.0, ("protobuf", "typed"): 400.0}
LANG = {"rust": 1.0, "java": 1.4, "browser": 2.5}
DATASET = {"beers": 1.0, "dummy": 3.0}
BYTES = {"json": 300, "bson": 330, "protobuf": 180}
OVERHEAD_NS = 2000.0
FAKE_FAILURE = "encode failed: the fake worker's codec is broken on purpose"
REGIONS = {
    "json": [("encode", ["serialize", "utf8"], ""), ("typed", ["parse", "utf8"], ""),
             ("tree", ["parse", "utf8"], "")],
    "bson": [("encode", ["serialize"], ""), ("typed", ["parse"], ""), ("tree", ["parse"], ""),
             ("lazy", ["field-lookup"], "")],
    "protobuf": [("encode", ["model-conversion", "serialize"], ""),
                 ("typed", ["parse", "model-conversion"], "")],
}


def blob_id(*parts) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


def environment(wid: str) -> rpb.Environment:
    lang = WORKERS.get(wid, "python")
    details = {"rust": {"debug_assertions": "false", "allocator": "counting"},
               "java": {"gc": "G1 Young Generation, G1 Old Generation", "jvm_flags": "-Xmx1g",
                        "max_heap_bytes": str(2**30)},
               "browser": {"crossOriginIsolated": "true", "timerResolutionUs": "5"}}.get(lang, {})
    runtime = {"rust": ("rustc", "1.95.0"), "java": ("OpenJDK", "21.0.5"),
               "browser": ("Chromium", "131.0")}.get(lang, ("python", "3.12"))
    return rpb.Environment(language=lang, runtime=runtime[0], runtime_version=runtime[1],
                           build_profile="release", cpu_model="synthetic 2-core", cores=2,
                           hostname="fixture-host", os="linux", details=details)


def worker_info(wid: str) -> ws.WorkerInfo:
    codecs = []
    for codec, modes in CODECS.items():
        if wid == FAKE and codec != "json":
            continue
        regions = [rpb.TimedRegion(operation=op, contains=c, note=n) for op, c, n in REGIONS[codec]]
        if codec == "protobuf" and wid == "browser-1":
            regions[0] = rpb.TimedRegion(operation="encode", contains=["model-conversion", "serialize", "copy"],
                                         note="protobuf-es returns a fresh Uint8Array (a copy)")
        codecs.append(rpb.CodecInfo(id=codec, decode_modes=list(modes), library=f"{codec}-lib",
                                    library_version="1.0", timed_regions=regions))
    return ws.WorkerInfo(id=wid, name=wid.rsplit("-", 1)[0], environment=environment(wid), codecs=codecs)


class Run:
    def __init__(self, name: str, seed: int):
        self.rng = random.Random(seed)
        self.drift = random.Random(seed * 7919)
        self.id = name
        self.ms: list = []
        self.tasks: list = []
        self.n = 0
        self.when = Timestamp()
        self.when.FromJsonString("2026-11-23T03:00:00Z")

    def trial_value(self, true_ns: float, lang: str) -> tuple[float, bool]:
        sigma = 0.04 if lang == "java" else 0.02
        v = true_ns * self.rng.lognormvariate(0, sigma)
        steady = True
        if lang == "java" and self.rng.random() < 0.1:  # a JIT recompilation mid-trial
            v *= 1.15
            steady = False
        return v, steady

    def task(self, op, cell, trial, ds, count, codec, mode, producer, consumer, failure=""):
        self.n += 1
        tid = f"{self.id}-t{self.n}"
        self.tasks.append(rpb.TaskSummary(
            id=tid, operation=op, dataset=ds, codec=codec, decode_mode=mode, record_count=count,
            producer_worker_id=producer, consumer_worker_id=consumer, cell_id=cell, trial=trial,
            status=rpb.TASK_STATUS_FAILED if failure else rpb.TASK_STATUS_DONE, failure=failure))
        return tid

    def measure(self, tid, op, cell, trial, ds, count, codec, mode, producer, consumer, worker,
                true_ns, payload, blob, aa_twin=False, alloc=None):
        lang = WORKERS[worker]
        value, steady = self.trial_value(true_ns, lang)
        rounds = [value * self.rng.lognormvariate(0, 0.01) for _ in range(ROUNDS)]
        m = rpb.Measurement(
            run_id=self.id, task_id=tid, dataset=ds, codec=codec, decode_mode=mode, record_count=count,
            producer_worker_id=producer, consumer_worker_id=consumer, environment=environment(worker),
            language=lang, operation=op, payload_bytes=payload, round_ns_per_op=rounds, verified=True,
            extras={"warmup_ms": 200.0 + 50 * self.rng.random(), "warmup_rounds": 12.0},
            ops_per_round=max(1, int(10_000_000 / max(value, 1))), worker_id=worker, recorded_at=self.when,
            cell_id=cell, trial=trial, steady=steady, payload_blob_id=blob, aa_twin=aa_twin)
        if not steady:
            m.extras["jit_ms"] = 3.0
        if alloc is not None and lang != "browser":
            m.alloc_bytes_per_op = alloc
        self.ms.append(m)

    def build(self) -> None:
        E, D, U, L = spb.OPERATION_ENCODE, spb.OPERATION_DECODE, spb.OPERATION_UPLOAD, spb.OPERATION_DOWNLOAD
        plan = []  # (kind, args) per trial, shuffled with the order seed as control interleaves them
        for ds in DATASETS:
            for count in COUNTS:
                for codec, modes in CODECS.items():
                    payload = BYTES[codec] * count * (3 if ds == "dummy" else 1)
                    blob = blob_id(ds, count, codec)
                    producers = list(WORKERS) + ([FAKE] if codec == "json" else [])
                    for p in producers:
                        drift = {leg: self.drift.lognormvariate(0, 0.01) for leg in ("e", "u")}
                        cell = f"enc/{ds}/{count}/{codec}/{p}"
                        for t in range(TRIALS):
                            plan.append(("enc", (cell, t, ds, count, codec, p, payload, blob, drift)))
                        for c in WORKERS:
                            for mode in modes:
                                twins = [False, True] if (ds, count, codec, mode, p) == (
                                    "dummy", 100, "json", "typed", c) else [False]
                                for twin in twins:
                                    dcell = f"dec/{ds}/{count}/{codec}/{mode}/{p}>{c}" + ("~aa" if twin else "")
                                    drift2 = {leg: self.drift.lognormvariate(0, 0.01) for leg in ("d", "l")}
                                    for t in range(TRIALS):
                                        plan.append(("dec", (dcell, t, ds, count, codec, mode, p, c, payload,
                                                             blob, twin, drift2)))
        random.Random(ORDER_SEED).shuffle(plan)
        for kind, a in plan:
            if kind == "enc":
                cell, t, ds, count, codec, p, payload, blob, drift = a
                if p == FAKE:
                    tid = self.task(E, cell, t, ds, count, codec, "", p, "", failure=FAKE_FAILURE)
                    self.ms.append(rpb.Measurement(
                        run_id=self.id, task_id=tid, dataset=ds, codec=codec, record_count=count,
                        producer_worker_id=p, operation=E, failure=FAKE_FAILURE, worker_id=p, cell_id=cell,
                        trial=t, environment=rpb.Environment(language="python", runtime="python",
                                                             hostname="fixture-host", cores=2)))
                    continue
                tid = self.task(E, cell, t, ds, count, codec, "", p, "")
                lang = WORKERS[p]
                true = (OVERHEAD_NS + ENCODE[codec] * DATASET[ds] * count) * LANG[lang] * drift["e"]
                self.measure(tid, E, cell, t, ds, count, codec, "", p, "", p, true, payload, blob,
                             alloc=payload * 2.5)
                self.measure(tid, U, cell, t, ds, count, codec, "", p, "", p,
                             (50_000 + 2.0 * payload) * drift["u"], payload, blob)
            else:
                cell, t, ds, count, codec, mode, p, c, payload, blob, twin, drift = a
                if p == FAKE:
                    msg = f"not run: the payload's encode (enc/{ds}/{count}/{codec}/{p}) failed: {FAKE_FAILURE}"
                    tid = self.task(D, cell, t, ds, count, codec, mode, p, c, failure=msg)
                    self.ms.append(rpb.Measurement(
                        run_id=self.id, task_id=tid, dataset=ds, codec=codec, decode_mode=mode,
                        record_count=count, producer_worker_id=p, consumer_worker_id=c, operation=D,
                        failure=msg, cell_id=cell, trial=t, aa_twin=twin))
                    continue
                tid = self.task(D, cell, t, ds, count, codec, mode, p, c)
                lang = WORKERS[c]
                true = (OVERHEAD_NS + DECODE[(codec, mode)] * DATASET[ds] * count) * LANG[lang] * drift["d"]
                self.measure(tid, L, cell, t, ds, count, codec, mode, p, c, c,
                             (40_000 + 1.5 * payload) * drift["l"], payload, blob, aa_twin=twin)
                self.measure(tid, D, cell, t, ds, count, codec, mode, p, c, c, true, payload, blob,
                             aa_twin=twin, alloc=None if mode == "lazy" else payload * 4.0)

    def write(self, out: Path) -> None:
        scenario = spb.Scenario(
            name="trials-fixture", description="synthetic issue-9 run: 3 workers and a failing fake one",
            datasets=list(DATASETS), codecs=list(CODECS), counts=list(COUNTS),
            operations=[spb.OPERATION_ENCODE, spb.OPERATION_DECODE, spb.OPERATION_TRANSFER],
            sampling=spb.Sampling(warmup_ms=200, rounds=ROUNDS, min_round_ms=10, trials=TRIALS,
                                  max_trials=TRIALS, target_ci_pct=3, max_seconds=600,
                                  order_seed=ORDER_SEED, max_warmup_ms=10_000, aa_cells=1),
            seed=1)
        done = sum(1 for t in self.tasks if t.status == rpb.TASK_STATUS_DONE)
        run = rpb.Run(id=self.id, name="trials-fixture", scenario=scenario, status=rpb.RUN_STATUS_FINISHED,
                      created_at=self.when, finished_at=self.when, tasks_total=len(self.tasks),
                      tasks_done=done, tasks_failed=len(self.tasks) - done)
        tmp = Path(tempfile.mkdtemp(prefix="codecbench-fixture-"))
        try:
            files = results.write_results(tmp, run, self.tasks, self.ms, control_addr="127.0.0.1:50051",
                                          workers=[worker_info(w) for w in (*WORKERS, FAKE)],
                                          extra={"scenarioFile": "tests/data/trials-fixture (synthetic)"})
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            for name in ("measurements.parquet", "run.json"):
                shutil.copy(files["parquet" if name.endswith("parquet") else "run"], out / name)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    for name, seed in (("trials-a", 1), ("trials-b", 2)):
        run = Run(name, seed)
        run.build()
        run.write(DATA / name)
        print(f"fixture: {DATA / name} ({len(run.ms)} measurements, {len(run.tasks)} tasks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
