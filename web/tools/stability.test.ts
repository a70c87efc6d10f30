import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { expect, it } from "vitest";
import { DummyDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { datasetById } from "../src/datasets/registry";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import type { Measurement } from "../src/gen/codecbench/v1/results_pb";
import { chromiumPath } from "../test/chromium";
import { CHROMIUM_FLAGS, V8_FLAGS } from "../driver/flags.mjs";
import { exposeTrialBrowser, processTree } from "../driver/trial-browser.mjs";
import { FakeControl, task } from "../test/fake-control";
import { servePage } from "../test/serve-page";
import { canonicalPb } from "../test/vectors";

// Trial stability of the real page in headless Chromium: TRIALS decode trials each of protobuf
// and json typed, dummy x RECORDS, in a seeded random order, with the A/A run's sampling; prints
// every trial's median, rounds and warm-up, under the driver's flags (driver/flags.mjs). CHROMIUM_FLAGS
// adds launch flags (a later --js-flags replaces the driver's V8 flags);
// GC_TRACE=1 adds --trace-gc (every Chromium's stderr, the trials' included, in the output) and V8_EXTRA="--flag ..." other V8
// flags, both to the driver's in one --js-flags. Per trial it also prints the
// Web Worker thread's CPU and run-queue wait (Linux schedstat), Chromium's other threads' CPU and
// the whole machine's busy CPU, to tell a slow trial's cause: the code, V8's background work, or
// other load on the machine.

const TRIALS = Number(process.env.TRIALS ?? 8);
const RECORDS = Number(process.env.RECORDS ?? 1000);
const OUT = process.env.OUT ?? "/tmp/stability";
// PAGES > 1: the trials run in that many tabs one after another (TRIALS per codec each, a tab
// closed before the next opens), to tell a per-renderer-process effect from trial noise.
const PAGES = Number(process.env.PAGES ?? 1);
const DATASET = process.env.DATASET ?? "dummy";
const CODECS = (process.env.CODECS ?? "protobuf,json").split(",");
const MODE = process.env.DECODE_MODE ?? "typed";
// TRIALS_IN=web-worker: trials in the tab's own Web Workers (one launch) instead of the driver's
// fresh Chromium per trial; the thread figures below only see the tab's own Chromium.
const FRESH = (process.env.TRIALS_IN ?? "fresh-browser") === "fresh-browser";
// MIN_ROUND_MS: the rounds' length (10 ms; aa.yaml's library sampling uses 50).
const sampling = { warmupMs: Number(process.env.WARMUP_MS ?? 200), maxWarmupMs: 10_000, rounds: 10, minRoundMs: Number(process.env.MIN_ROUND_MS ?? 10), taskTimeoutS: 300 };

/** The dataset's canonical vector records repeated to n records (dummy with distinct ids). */
function records(n: number): Uint8Array {
  // CANONICAL=FILE: control's canonical blob (the `*Dataset` protobuf message) as the records.
  if (process.env.CANONICAL) return new Uint8Array(readFileSync(process.env.CANONICAL));
  if (DATASET === "dummy") {
    const seed = fromBinary(DummyDatasetSchema, canonicalPb("dummy")).records;
    const records = Array.from({ length: n }, (_, i) => ({ ...seed[i % seed.length]!, index: i, id: `${seed[i % seed.length]!.id.slice(0, 18)}${String(i).padStart(6, "0")}` }));
    return toBinary(DummyDatasetSchema, create(DummyDatasetSchema, { records }));
  }
  // Field 1 of every dataset message is its repeated record: repeat the encoded entries.
  const seed = canonicalPb(DATASET);
  const entries: Uint8Array[] = [];
  let at = 0;
  const varint = () => { let v = 0, shift = 0, b = 0; do { b = seed[at++]!; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80); return v; };
  while (at < seed.length) {
    const start = at;
    if (varint() !== 0x0a) throw new Error(`${DATASET}: unexpected field in the canonical vector`);
    const length = varint();
    at += length;
    entries.push(seed.subarray(start, at));
  }
  const out = Array.from({ length: n }, (_, i) => entries[i % entries.length]!);
  const bytes = new Uint8Array(out.reduce((sum, e) => sum + e.length, 0));
  out.reduce((offset, e) => (bytes.set(e, offset), offset + e.length), 0);
  return bytes;
}

it("prints per-trial figures", async () => {
  const control = new FakeControl();
  const server = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
  const extra = (process.env.CHROMIUM_FLAGS ?? "").split(" ").filter(Boolean);
  // One --js-flags: a later one replaces the driver's.
  const v8 = [V8_FLAGS, process.env.GC_TRACE ? "--trace-gc" : "", process.env.V8_EXTRA ?? ""].filter(Boolean).join(" ");
  if (v8 !== V8_FLAGS) extra.push(`--js-flags=${v8}`);
  const userDataDir = mkdtempSync(join(tmpdir(), "codecbench-stability-"));
  const browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, userDataDir, args: [...CHROMIUM_FLAGS, ...extra], dumpio: !!process.env.GC_TRACE, pipe: true });
  const closers: (() => Promise<void>)[] = [];
  try {
    const openTab = async () => {
      const tab = await browser.newPage();
      if (FRESH) closers.push(await exposeTrialBrowser(tab, { executablePath: chromiumPath, origin: server.origin, args: [...CHROMIUM_FLAGS, ...extra], dumpio: !!process.env.GC_TRACE }));
      await tab.goto(server.origin, { waitUntil: "domcontentloaded" });
      return tab;
    };
    let page = await openTab();
    const pb = records(RECORDS);
    const canonical = { id: control.putBlob(pb), size: pb.length };
    const codecs = CODECS;
    const lazyFields = MODE === "lazy" ? [...datasetById(DATASET).lazyFields] : [];
    control.enqueue(...codecs.map((codec) => task({ operation: Operation.ENCODE, dataset: DATASET, codec, recordCount: RECORDS, canonical, prepare: true, storePayload: true, sampling })));
    const prepared = await control.waitForReports(codecs.length, 120_000);
    expect(prepared.map((r) => r.failure)).toEqual(codecs.map(() => ""));
    // Seeded interleaving (a tiny LCG), as control does.
    let state = 12345;
    const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pagePlan = (p: number) => {
      const plan = codecs.flatMap((codec, c) => Array.from({ length: TRIALS }, (_, trial) => ({ codec, trial: p * TRIALS + trial, payload: { id: prepared[c]!.payloadBlobId, size: Number(prepared[c]!.payloadBlobSize) } })));
      for (let i = plan.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [plan[i], plan[j]] = [plan[j]!, plan[i]!];
      }
      return plan;
    };
    const enqueuePage = (p: number) => control.enqueue(...pagePlan(p).map((t) => task({ operation: Operation.DECODE, dataset: DATASET, codec: t.codec, decodeMode: MODE, lazyFields, recordCount: RECORDS, canonical, payload: t.payload, trial: t.trial, sampling })));
    const timedTrials = PAGES * TRIALS * codecs.length;
    const load: number[] = [];
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
    for (let p = 0; p < PAGES; p++) {
      if (p > 0) {
        await page.close();
        page = await openTab();
      }
      enqueuePage(p);
      await control.waitForReports(codecs.length + (p + 1) * TRIALS * codecs.length, 1_500_000);
    }
    const reports = (await control.waitForReports(codecs.length + timedTrials, 1_500_000)).slice(codecs.length);
    clearInterval(poll);
    clearInterval(sampler);
    const lines: string[] = [`flags: driver's${extra.length ? ` + ${extra.join(" ")}` : ""}; load average during: ${load.map((l) => l.toFixed(1)).join(" ")}`];
    for (const codec of codecs) {
      const ms: Measurement[] = reports.filter((r) => r.failure === "").flatMap((r) => r.measurements).filter((m) => m.codec === codec && m.operation === Operation.DECODE);
      const medians = ms.map((m) => median(m.roundNsPerOp) / 1e3);
      const mid = median(medians);
      if (PAGES > 1) {
        // Between-tab spread of the tab medians against what trial noise alone would give.
        const tabs = Array.from({ length: PAGES }, (_, p) => median(ms.filter((m) => Math.floor(m.trial / TRIALS) === p).map((m) => median(m.roundNsPerOp) / 1e3)));
        const within = Array.from({ length: PAGES }, (_, p) => ms.filter((m) => Math.floor(m.trial / TRIALS) === p).map((m) => median(m.roundNsPerOp) / 1e3));
        const sd = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + (x - v.reduce((a, b) => a + b, 0) / v.length) ** 2, 0) / (v.length - 1));
        const pooled = Math.sqrt(within.reduce((s, v) => s + sd(v) ** 2, 0) / within.length);
        lines.push(`${codec}: tab medians us/op ${tabs.map((v) => v.toFixed(1)).join(" ")}; sd between tabs ${(100 * sd(tabs) / mid).toFixed(2)} %, expected from trials alone ${(100 * 1.25 * pooled / Math.sqrt(TRIALS) / mid).toFixed(2)} %`);
      }
      lines.push(`${codec} ${MODE} decode, ${DATASET} x ${RECORDS}: trial medians us/op ${medians.map((v) => v.toFixed(0)).join(" ")}; max/min ${(Math.max(...medians) / Math.min(...medians)).toFixed(2)}; trials > 1.15 x median: ${medians.filter((v) => v > 1.15 * mid).length}/${medians.length}`);
      for (const m of ms) {
        const e = m.extras;
        lines.push(`  trial ${m.trial}: median ${(median(m.roundNsPerOp) / 1e3).toFixed(0)} steady ${m.steady} ops/round ${m.opsPerRound} warmup ${e["warmup_ms"]!.toFixed(0)} ms/${e["warmup_rounds"]} rounds, rounds us/op ${m.roundNsPerOp.map((v) => (v / 1e3).toFixed(0)).join(" ")}${e["browser_launch_ms"] !== undefined ? ` fresh browser: launch ${e["browser_launch_ms"].toFixed(0)} ms, settle ${e["browser_settle_ms"]!.toFixed(0)} ms` : ""}${e["gc_rounds"] !== undefined ? ` gc: ${JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k.startsWith("gc") || k.startsWith("heap"))))}` : ""}`);
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
    for (const close of closers) await close();
    await browser.close();
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
});

// Linux schedstat of every thread of Chromium's processes: ns on CPU and ns runnable but waiting
// for a CPU (preempted). A trial's Web Worker is a thread of its own ("DedicatedWorker").
interface ThreadStat { pid: number; tid: number; comm: string; cpuNs: number; waitNs: number; firstSeen: number }
function sampleThreads(root: number, into: Map<string, ThreadStat>): void {
  for (const pid of processTree(root)) {
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
