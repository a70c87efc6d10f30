import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { expect, it } from "vitest";
import { DummyDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import type { Measurement } from "../src/gen/codecbench/v1/results_pb";
import { chromiumPath } from "../test/chromium";
import { CHROMIUM_FLAGS, V8_FLAGS } from "../driver/flags.mjs";
import { FakeControl, task } from "../test/fake-control";
import { servePage } from "../test/serve-page";
import { canonicalPb } from "../test/vectors";

// Trial stability of the real page in headless Chromium: TRIALS decode trials each of protobuf
// and json typed, dummy x RECORDS, in a seeded random order, with the A/A run's sampling; prints
// every trial's median, rounds and warm-up, under the driver's flags (driver/flags.mjs). CHROMIUM_FLAGS
// adds launch flags (a later --js-flags replaces the driver's V8 flags);
// GC_TRACE=1 adds --js-flags=--trace-gc (Chromium's stderr, in the output). Per trial it also prints the
// Web Worker thread's CPU and run-queue wait (Linux schedstat), Chromium's other threads' CPU and
// the whole machine's busy CPU, to tell a slow trial's cause: the code, V8's background work, or
// other load on the machine.

const TRIALS = Number(process.env.TRIALS ?? 8);
const RECORDS = Number(process.env.RECORDS ?? 1000);
const OUT = process.env.OUT ?? "/tmp/stability";
const sampling = { warmupMs: Number(process.env.WARMUP_MS ?? 200), maxWarmupMs: 10_000, rounds: 10, minRoundMs: 10, taskTimeoutS: 300 };

function dummyRecords(n: number): Uint8Array {
  const seed = fromBinary(DummyDatasetSchema, canonicalPb("dummy")).records;
  const records = Array.from({ length: n }, (_, i) => ({ ...seed[i % seed.length]!, index: i, id: `${seed[i % seed.length]!.id.slice(0, 18)}${String(i).padStart(6, "0")}` }));
  return toBinary(DummyDatasetSchema, create(DummyDatasetSchema, { records }));
}

it("prints per-trial figures", async () => {
  const control = new FakeControl();
  const server = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
  const extra = (process.env.CHROMIUM_FLAGS ?? "").split(" ").filter(Boolean);
  if (process.env.GC_TRACE) extra.push(`--js-flags=${V8_FLAGS} --trace-gc`);
  const userDataDir = mkdtempSync(join(tmpdir(), "codecbench-stability-"));
  const browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, userDataDir, args: [...CHROMIUM_FLAGS, ...extra], dumpio: !!process.env.GC_TRACE, pipe: true });
  try {
    const page = await browser.newPage();
    await page.goto(server.origin, { waitUntil: "domcontentloaded" });
    const pb = dummyRecords(RECORDS);
    const canonical = { id: control.putBlob(pb), size: pb.length };
    const codecs = ["protobuf", "json"];
    control.enqueue(...codecs.map((codec) => task({ operation: Operation.ENCODE, dataset: "dummy", codec, recordCount: RECORDS, canonical, prepare: true, storePayload: true, sampling })));
    const prepared = await control.waitForReports(codecs.length, 120_000);
    expect(prepared.map((r) => r.failure)).toEqual(codecs.map(() => ""));
    // Seeded interleaving (a tiny LCG), as control does.
    let state = 12345;
    const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const plan = codecs.flatMap((codec, c) => Array.from({ length: TRIALS }, (_, trial) => ({ codec, trial, payload: { id: prepared[c]!.payloadBlobId, size: Number(prepared[c]!.payloadBlobSize) } })));
    for (let i = plan.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [plan[i], plan[j]] = [plan[j]!, plan[i]!];
    }
    const load: number[] = [];
    control.enqueue(...plan.map((p) => task({ operation: Operation.DECODE, dataset: "dummy", codec: p.codec, recordCount: RECORDS, canonical, payload: p.payload, trial: p.trial, sampling })));
    const poll = setInterval(() => load.push(loadavg()[0]!), 5000);
    const threads = new Map<string, ThreadStat>();
    const root = browser.process()!.pid!;
    sampleThreads(root, threads);
    const before = new Map([...threads].map(([k, v]) => [k, { ...v }]));
    // Per trial (between two reports): CPU of the renderer's pool threads (V8's background GC and
    // compiler threads) and main threads, and the machine's busy CPU from /proc/stat.
    const perTrial: { pool: number; mains: number; machine: number }[] = [];
    const totals = () => {
      const cpu = (re: RegExp) => [...threads.values()].filter((t) => re.test(t.comm)).reduce((n, t) => n + t.cpuNs, 0) / 1e6;
      const stat = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
      const busy = (stat[0]! + stat[1]! + stat[2]! + stat[5]! + stat[6]! + stat[7]!) * 10;
      return { pool: cpu(/ThreadPoolForeg/), mains: cpu(/^chromium$/), machine: busy };
    };
    let seenReports = control.reports.length;
    let last = totals();
    const sampler = setInterval(() => {
      sampleThreads(root, threads);
      if (control.reports.length !== seenReports) {
        seenReports = control.reports.length;
        const now = totals();
        perTrial.push({ pool: now.pool - last.pool, mains: now.mains - last.mains, machine: now.machine - last.machine });
        last = now;
      }
    }, 10);
    const reports = (await control.waitForReports(codecs.length + plan.length, 1_500_000)).slice(codecs.length);
    clearInterval(poll);
    clearInterval(sampler);
    const lines: string[] = [`flags: driver's${extra.length ? ` + ${extra.join(" ")}` : ""}; load average during: ${load.map((l) => l.toFixed(1)).join(" ")}`];
    for (const codec of codecs) {
      const ms: Measurement[] = reports.filter((r) => r.failure === "").flatMap((r) => r.measurements).filter((m) => m.codec === codec && m.operation === Operation.DECODE);
      const medians = ms.map((m) => median(m.roundNsPerOp) / 1e3);
      const mid = median(medians);
      lines.push(`${codec} typed decode, dummy x ${RECORDS}: trial medians us/op ${medians.map((v) => v.toFixed(0)).join(" ")}; max/min ${(Math.max(...medians) / Math.min(...medians)).toFixed(2)}; trials > 1.15 x median: ${medians.filter((v) => v > 1.15 * mid).length}/${medians.length}`);
      for (const m of ms) {
        const e = m.extras;
        lines.push(`  trial ${m.trial}: median ${(median(m.roundNsPerOp) / 1e3).toFixed(0)} steady ${m.steady} ops/round ${m.opsPerRound} warmup ${e["warmup_ms"]!.toFixed(0)} ms/${e["warmup_rounds"]} rounds, rounds us/op ${m.roundNsPerOp.map((v) => (v / 1e3).toFixed(0)).join(" ")}${e["gc_rounds"] !== undefined ? ` gc: ${JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k.startsWith("gc") || k.startsWith("heap"))))}` : ""}`);
      }
    }
    // Trial worker threads in order of appearance = trial order (one trial at a time).
    const workers = [...threads.values()].filter((t) => /DedicatedWorker/i.test(t.comm)).sort((a, b) => a.firstSeen - b.firstSeen);
    const order = reports.flatMap((r) => r.measurements.filter((m) => m.operation === Operation.DECODE).map((m) => `${m.codec}#${m.trial} ${(median(m.roundNsPerOp) / 1e3).toFixed(0)}us`));
    lines.push(`trial worker threads (${workers.length}): cpu ms / runnable-but-waiting ms`);
    workers.slice(-order.length).forEach((t, i) => {
      const p = perTrial[i];
      const chromium = p ? `; same span: Chromium pool threads ${p.pool.toFixed(0)}, Chromium main threads ${p.mains.toFixed(0)}, whole machine busy ${p.machine.toFixed(0)} ms` : "";
      lines.push(`  ${order[i]}: worker cpu ${(t.cpuNs / 1e6).toFixed(0)} wait ${(t.waitNs / 1e6).toFixed(1)}${chromium}`);
    });
    const others = [...threads.values()].filter((t) => !/DedicatedWorker/i.test(t.comm)).map((t) => ({ t, cpu: t.cpuNs - (before.get(`${t.pid}/${t.tid}/${t.comm}`)?.cpuNs ?? 0) })).filter((x) => x.cpu > 5e6).sort((a, b) => b.cpu - a.cpu);
    lines.push(`other Chromium threads with > 5 ms CPU during the trials: ${others.map((x) => `${x.t.comm}(${x.t.pid}) ${(x.cpu / 1e6).toFixed(0)}`).join(", ")}`);
    const failures = reports.filter((r) => r.failure !== "").map((r) => r.failure);
    if (failures.length) lines.push(`failures: ${failures.join("; ")}`);
    writeFileSync(`${OUT}.txt`, lines.join("\n") + "\n");
    console.log(lines.join("\n"));
  } finally {
    await browser.close();
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
});

// Linux schedstat of every thread of Chromium's processes: ns on CPU and ns runnable but waiting
// for a CPU (preempted). A trial's Web Worker is a thread of its own ("DedicatedWorker").
interface ThreadStat { pid: number; tid: number; comm: string; cpuNs: number; waitNs: number; firstSeen: number }
function descendants(pid: number): number[] {
  const out = [pid];
  for (const task of existsSync(`/proc/${pid}/task`) ? readdirSync(`/proc/${pid}/task`) : []) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean)) out.push(...descendants(Number(child)));
    } catch {}
  }
  return out;
}
function sampleThreads(root: number, into: Map<string, ThreadStat>): void {
  for (const pid of descendants(root)) {
    let tasks: string[] = [];
    try { tasks = readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tasks) {
      try {
        const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
        const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
        const key = `${pid}/${tid}/${comm}`;
        const seen = into.get(key);
        into.set(key, { pid, tid: Number(tid), comm, cpuNs: cpu!, waitNs: wait!, firstSeen: seen?.firstSeen ?? performance.now() });
      } catch {}
    }
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
