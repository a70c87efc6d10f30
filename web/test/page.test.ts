import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import { canonicalPb, vector } from "./vectors";
import { V8_FLAGS } from "../driver/flags.mjs";
import { requireChromium } from "./chromium";
import { FakeControl, task } from "./fake-control";
import { startProcess, type Child } from "./processes";
import { servePage, type PageServer } from "./serve-page";

// The real page in headless Chromium, opened by the driver, against a Node stand-in for control
// that serves the page cross-origin isolated and answers gRPC-web: so the page, connect-web and
// the driver are tested even where the Rust binaries are not built.

const driverPath = new URL("../driver/driver.mjs", import.meta.url).pathname;

// The drivers this file starts make their trial browsers' profiles in a temporary directory of
// this file's own, so what they leave behind is told from other suites' and benchmarks'.
const ownTmp = mkdtempSync(join(tmpdir(), "codecbench-page-test-"));
process.env.TMPDIR = ownTmp;
afterAll(() => rmSync(ownTmp, { recursive: true, force: true }));

/** Trial browsers' profile folders, and processes started with one, left in this file's temp dir. */
function trialBrowsersLeft(): string[] {
  const dirs = readdirSync(ownTmp).filter((name) => name.startsWith("codecbench-trial-"));
  const procs = readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(join(ownTmp, "codecbench-trial-"));
    } catch {
      return false;
    }
  });
  return [...dirs, ...procs.map((pid) => `pid ${pid}`)];
}

/**
 * What each describe below needs: a FakeControl serving the built page cross-origin isolated, a
 * temp dir, and the driver its test starts (`start`). Afterwards the driver gets SIGTERM, not
 * SIGKILL: it must close its Chromium (puppeteer starts it in its own process group, so killing
 * the driver alone would leave Chromium behind).
 */
function driverStack(prefix: string) {
  const control = new FakeControl();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let server: PageServer | undefined;
  let driver: Child | undefined;
  beforeAll(async () => {
    requireChromium();
    server = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
  });
  afterAll(async () => {
    await driver?.stop("SIGTERM");
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const start = (...args: string[]): Child => (driver = startProcess("driver", process.execPath, [driverPath, "--control", server!.origin, ...args]));
  return { control, dir, start };
}

describe("the page in Chromium with --trials web-worker", () => {
  const { control, dir, start } = driverStack("codecbench-page-ww-test-");

  it("runs each trial in a fresh Web Worker of the tab itself, and says so", async () => {
    const canonical = { id: control.putBlob(canonicalPb("dummy")), size: canonicalPb("dummy").length };
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical }),
      task({ operation: Operation.DECODE, dataset: "dummy", codec: "protobuf", recordCount: 3, canonical, payload: { id: control.putBlob(vector("dummy", "protobuf")), size: vector("dummy", "protobuf").length } }),
    );
    const logFile = join(dir, "driver.log");
    const driver = start("--count", "1", "--log", logFile, "--trials", "web-worker");
    await driver.waitForLine(/1 tab\(s\) open/, 60_000);
    const reports = await control.waitForReports(2, 60_000);
    expect(reports.map((r) => r.failure)).toEqual(["", ""]);
    for (const m of reports.flatMap((r) => r.measurements)) {
      expect(m.verified).toBe(true);
      expect(m.extras["worker_start_ms"]).toBeGreaterThan(0);
      expect(m.extras["browser_launch_ms"]).toBeUndefined();
    }
    for (const report of reports) {
      // phase_ms: the trial worker's own phases (its 5 ms clock probe is `other`), inside the
      // page's `process`, which starts with creating the Web Worker.
      const phases = report.phaseMs;
      const what = JSON.stringify(phases);
      expect(Object.keys(phases).sort(), what).toEqual(["fetch", "load", "other", "process", "rounds", "total", "verify", "warmup"]);
      expect(phases["other"], what).toBeGreaterThanOrEqual(5);
      const trial = phases["load"]! + phases["verify"]! + phases["warmup"]! + phases["rounds"]! + phases["other"]!;
      expect(phases["process"], what).toBeGreaterThan(trial + report.measurements.at(-1)!.extras["worker_start_ms"]!);
      expect(phases["total"], what).toBeGreaterThan(phases["process"]! + phases["fetch"]!);
    }
    expect(control.attaches[0]!.environment!.details["trials"]).toMatch(/fresh dedicated Web Worker of this page/);
    expect(await driver.stop("SIGTERM")).toBe(0);
    expect(readFileSync(logFile, "utf8")).not.toContain("trial browser:");
  }, 120_000);
});

describe("the page in Chromium against a gRPC-web control", () => {
  const { control, dir, start } = driverStack("codecbench-page-test-");
  const logFile = join(dir, "driver.log");
  const screenshot = join(dir, "page.png");

  it("attaches from two tabs, runs every trial in a Chromium the driver launched (one per pass) and a page of its own, verified and steady-or-marked, and stops cleanly", async () => {
    const blob = (bytes: Uint8Array) => ({ id: control.putBlob(bytes), size: bytes.length });
    const canonical = (id: "dummy" | "numeric" | "owners" | "docs" | "beers" | "matrix") => blob(canonicalPb(id));
    const truncated = vector("beers", "bson").slice(0, 100);
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical: canonical("dummy"), measureTransfer: true }),
      task({ operation: Operation.ENCODE, dataset: "numeric", codec: "bson", recordCount: 3, canonical: canonical("numeric"), storePayload: false, trial: 1 }),
      task({ operation: Operation.DECODE, dataset: "numeric", codec: "json", recordCount: 3, canonical: canonical("numeric"), payload: blob(vector("numeric", "json")), measureTransfer: true }),
      task({ operation: Operation.DECODE, dataset: "owners", codec: "bson", recordCount: 3, canonical: canonical("owners"), payload: blob(vector("owners", "bson")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "bson", decodeMode: "lazy", lazyFields: ["name", "delivery.company"], recordCount: 3, canonical: canonical("docs"), payload: blob(vector("docs", "bson")) }),
      task({ operation: Operation.DECODE, dataset: "matrix", codec: "bson", decodeMode: "lazy", lazyFields: ["0", "99"], recordCount: 3, canonical: canonical("matrix"), payload: blob(vector("matrix", "bson", "java")) }),
      task({ operation: Operation.DECODE, dataset: "beers", codec: "json", decodeMode: "tree", recordCount: 3, canonical: canonical("beers"), payload: blob(vector("beers", "json", "java")) }),
      task({ operation: Operation.DECODE, dataset: "dummy", codec: "bson", decodeMode: "tree", recordCount: 3, canonical: canonical("dummy"), payload: blob(vector("dummy", "bson")) }),
      // The other codecs in Chromium: ubjson's encoder on int64 data, Rust payloads decoded.
      task({ operation: Operation.ENCODE, dataset: "numeric", codec: "ubjson", recordCount: 3, canonical: canonical("numeric") }),
      task({ operation: Operation.DECODE, dataset: "owners", codec: "protobuf", recordCount: 3, canonical: canonical("owners"), payload: blob(vector("owners", "protobuf")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "msgpack", decodeMode: "tree", recordCount: 3, canonical: canonical("docs"), payload: blob(vector("docs", "msgpack")) }),
      task({ operation: Operation.DECODE, dataset: "numeric", codec: "ubjson", recordCount: 3, canonical: canonical("numeric"), payload: blob(vector("numeric", "ubjson")) }),
      // xml (fast-xml-parser as bundled for the page) on Java's payload: int64 as bigint, doubles written 88.0.
      task({ operation: Operation.DECODE, dataset: "owners", codec: "xml", recordCount: 3, canonical: canonical("owners"), payload: blob(vector("owners", "xml", "java")) }),
      // flatbuffers (the npm runtime as bundled for the page): encode (verified by a typed decode) and a lazy read of Rust's payload.
      task({ operation: Operation.ENCODE, dataset: "owners", codec: "flatbuffers", recordCount: 3, canonical: canonical("owners") }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "flatbuffers", decodeMode: "lazy", lazyFields: ["name", "delivery.company"], recordCount: 3, canonical: canonical("docs"), payload: blob(vector("docs", "flatbuffers", "rust")) }),
      // A corrupt payload fails inside the trial worker, with the step and the library's words.
      task({ operation: Operation.DECODE, dataset: "beers", codec: "bson", recordCount: 3, canonical: canonical("beers"), payload: blob(truncated) }),
    );
    const count = 16;
    const driver = start("--count", "2", "--log", logFile, "--screenshot", screenshot);
    await driver.waitForLine(/2 tab\(s\) open/, 60_000);
    const reports = await control.waitForReports(count, 90_000);
    const byTask = new Map(reports.map((r) => [r.taskId, r]));
    const corrupt = reports.find((r) => r.failure !== "");
    expect(reports.filter((r) => r.failure !== "").length, reports.map((r) => r.failure).join("\n")).toBe(1);
    expect(corrupt!.failure).toMatch(/^decode failed: .+/);
    expect(corrupt!.measurements).toEqual([]);
    const measurements = reports.flatMap((r) => r.measurements);
    // Two tabs take tasks concurrently, so reports arrive in any order.
    expect(measurements.map((m) => Operation[m.operation]).sort()).toEqual([...Array(11).fill("DECODE"), "DOWNLOAD", ...Array(4).fill("ENCODE"), "UPLOAD"]);
    for (const m of measurements) {
      const what = `${Operation[m.operation]} ${m.dataset} ${m.codec} ${m.decodeMode}: ${JSON.stringify(m.extras)}`;
      expect(m.verified, what).toBe(true);
      expect(m.roundNsPerOp, what).toHaveLength(3);
      // Steady (>= 10 warm-up rounds, >= warmup_ms) or marked unsteady at the 300 ms cap.
      if (m.steady) expect(m.extras["warmup_rounds"], what).toBeGreaterThanOrEqual(10);
      else expect(m.extras["warmup_ms"], what).toBeGreaterThanOrEqual(300);
      expect(m.extras["cross_origin_isolated"], what).toBe(1);
      expect(m.extras["timer_resolution_us"], what).toBeLessThanOrEqual(20);
      if (m.operation === Operation.ENCODE || m.operation === Operation.DECODE) {
        // Timed inside a trial worker, which took a measurable time to start.
        expect(m.extras["worker_start_ms"], what).toBeGreaterThan(0);
        expect(m.extras["jit_observable"], what).toBe(0);
        // ... in a Chromium launched by the driver (shared by the trials of one pass: these
        // tasks are all trial 0 of one run), in a page of its own, quiet before the trial began.
        expect(m.extras["browser_launch_ms"], what).toBeGreaterThan(0);
        expect(m.extras["browser_settle_ms"], what).toBeGreaterThanOrEqual(0);
        const launch = m.extras["browser_launch_trial"] === 0 ? m.extras["browser_launch_ms"]! : 0;
        expect(m.extras["worker_start_ms"], what).toBeGreaterThan(launch + m.extras["browser_page_ms"]! + m.extras["browser_settle_ms"]!);
      }
    }
    for (const report of reports) {
      // phase_ms: the trial's own phases (the corrupt payload's: up to its failed decode) inside
      // `process`, which the attached page times from handing the trial to the driver to holding
      // its answer: the fresh page's creation and settling (and the launch, for its first trial) included.
      const phases = report.phaseMs;
      const what = `${report.taskId} ${report.failure}: ${JSON.stringify(phases)}`;
      for (const phase of ["total", "fetch", "process", "load", "other"]) expect(phases[phase], `${phase} of ${what}`).toBeGreaterThan(0);
      expect(phases["warmup"] !== undefined && phases["rounds"] !== undefined, what).toBe(report.failure === "");
      const trial = ["load", "verify", "warmup", "rounds", "other"].reduce((sum, phase) => sum + (phases[phase] ?? 0), 0);
      const m = report.measurements.find((x) => x.operation === Operation.ENCODE || x.operation === Operation.DECODE);
      const page = m ? m.extras["browser_page_ms"]! + m.extras["browser_settle_ms"]! : 0;
      expect(phases["process"], what).toBeGreaterThan(trial + page);
      expect(phases["total"], what).toBeGreaterThan(phases["process"]! + phases["fetch"]! + (phases["transfer"] ?? 0) - 1e-6);
    }
    const shown = reports.find((r) => r.measurements.some((m) => m.operation === Operation.ENCODE && m.dataset === "dummy"))!;
    console.log(`phase_ms of a fresh-browser trial (encode dummy json, upload timed): ${JSON.stringify(Object.fromEntries(Object.entries(shown.phaseMs).sort().map(([k, v]) => [k, Number(v.toFixed(1))])))}`);
    const trials = measurements.filter((m) => m.operation === Operation.ENCODE || m.operation === Operation.DECODE);
    const ms = (key: string) => trials.map((m) => m.extras[key]!).sort((a, b) => a - b);
    console.log(`trial worker start ms (sorted): ${ms("worker_start_ms").map((v) => v.toFixed(1)).join(" ")}; whole trial ms: ${ms("trial_ms").map((v) => v.toFixed(0)).join(" ")}`);
    const encodes = reports.filter((r) => r.measurements.some((m) => m.operation === Operation.ENCODE));
    // store_payload: the json, ubjson and flatbuffers encodes uploaded their payload, the bson one (trial 1) did not.
    expect(encodes.map((r) => r.payloadBlobId !== "").sort()).toEqual([false, true, true, true]);
    expect(byTask.size).toBe(count);

    await expect.poll(() => control.attaches.length, { timeout: 30_000 }).toBe(2);
    const details = control.attaches[0]!.environment!.details;
    expect(details["crossOriginIsolated"]).toBe("true");
    // Isolated Chromium gives performance.now() a 5 µs grain (100 µs without isolation).
    expect(Number(details["timerResolutionUs"])).toBeLessThanOrEqual(20);
    expect(control.attaches[0]!.environment!.runtime).toMatch(/Chrom/);
    expect(details["allocBytes"]).toMatch(/not counted/);
    expect(details["jitCounter"]).toMatch(/no JIT compilation counter/);
    expect(details["trials"]).toMatch(/fresh headless Chromium page launched by codecbench's driver, one launch per pass/);
    // The driver passed its V8 flags in the page's URL.
    expect(details["v8Flags"]).toBe(V8_FLAGS);

    const code = await driver.stop("SIGTERM");
    expect(code, `driver exit; its log:\n${readFileSync(logFile, "utf8")}\n${driver.output.join("\n")}`).toBe(0);
    // The trial browser each tab kept for its pass was closed, its profile removed.
    expect(trialBrowsersLeft()).toEqual([]);
    expect(existsSync(screenshot) && statSync(screenshot).size > 1000).toBe(true);
    if (process.env.CODECBENCH_KEEP_SCREENSHOT) copyFileSync(screenshot, process.env.CODECBENCH_KEEP_SCREENSHOT);
    const log = readFileSync(logFile, "utf8");
    expect(log).toMatch(/tab 1: console\.log: codecbench browser worker: attached as browser-\d/);
    expect(log).toMatch(/tab 2: console\.log: codecbench browser worker: attached as browser-\d/);
    expect(log).toContain("driver: SIGTERM, stopping");
    // Every trial in a browser page of its own, the corrupt payload's included.
    const launches = log.split("\n").filter((line) => / trial browser: (encode|decode) .* (done|failed: decode failed)/.test(line));
    expect(launches.length, log).toBe(count);
    expect(log).not.toMatch(/trial browser: .*(page error|could not|the fresh browser for this trial failed)/);
  }, 180_000);
});
