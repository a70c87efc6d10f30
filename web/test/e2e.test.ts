import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HarnessService } from "../src/gen/codecbench/v1/harness_service_pb";
import type { Measurement, Run } from "../src/gen/codecbench/v1/results_pb";
import { RunStatus } from "../src/gen/codecbench/v1/results_pb";
import { Operation, ScenarioSchema } from "../src/gen/codecbench/v1/scenario_pb";
import { repoRoot } from "./vectors";
import { V8_FLAGS } from "../driver/flags.mjs";
import { requireChromium } from "./chromium";
import { startProcess, type Child } from "./processes";
import { requireBuiltPage } from "./serve-page";

// The real thing: Rust control serving the built page, a Rust worker, and the driver's headless
// Chromium tab as the browser worker; this test is the harness client. A scenario runs every codec
// (json, protobuf, flatbuffers) both ways between rust and browser on one dataset, and every
// measurement must be verified. (Every dataset and every language pair:
// harness/tests/test_all_languages.py; every codec's modes and datasets in the page: the unit tests.)

const control = `${repoRoot}rust/target/release/codecbench-control`;
const rustWorker = `${repoRoot}rust/target/release/codecbench-worker`;
const driverPath = `${repoRoot}web/driver/driver.mjs`;
const screenshot = `${repoRoot}results/browser-e2e.png`;
// A text, a schema and a zero-copy format: what this test checks is the browser's side of the
// protocol (a launch per pass, isolation, flags, steady state); every codec between every pair of
// languages is harness/tests/test_all_languages.py's (eight codecs here took 153 s).
const codecIds = ["json", "protobuf", "flatbuffers"];
const binariesMissing = [control, rustWorker].filter((path) => !existsSync(path));

if (binariesMissing.length > 0) {
  console.warn(`SKIPPED browser end-to-end test: ${binariesMissing.join(" and ")} not built (run \`make\` or cargo build --release in rust/)`);
}

describe.skipIf(binariesMissing.length > 0)("browser worker end to end with Rust control and worker", () => {
  const children: Child[] = [];
  const dir = mkdtempSync(join(tmpdir(), "codecbench-e2e-"));
  const logFile = join(dir, "driver.log");
  let controlUrl = "";

  beforeAll(async () => {
    requireBuiltPage();
    requireChromium();
    const controlProcess = startProcess("control", control, ["--listen", "127.0.0.1:0", "--state-dir", join(dir, "state"), "--web-dir", `${repoRoot}web/dist`]);
    children.push(controlProcess);
    const [, address] = await controlProcess.waitForLine(/codecbench-control listening on (\S+)/, 30_000);
    controlUrl = `http://${address}`;
    const page = await fetch(`${controlUrl}/`);
    if (page.status !== 200) throw new Error(`control answered GET / with ${page.status}; it must serve web/dist there (the page cannot load otherwise)`);
    expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(page.headers.get("cross-origin-embedder-policy")).toBe("require-corp");
    children.push(startProcess("rust worker", rustWorker, ["--control", controlUrl, "--name", "rust"]));
    children.push(startProcess("driver", process.execPath, [driverPath, "--control", controlUrl, "--count", "1", "--log", logFile, "--screenshot", screenshot]));
    mkdirSync(`${repoRoot}results`, { recursive: true });
  });

  afterAll(async () => {
    // Driver first (it takes the screenshot and closes Chromium), then the worker, then control.
    for (const child of [...children].reverse()) await child.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs rust→browser and browser→rust for each codec, all verified", async () => {
    const harness = createClient(HarnessService, createGrpcTransport({ baseUrl: controlUrl }));

    // Both workers attached (the page attaches once Chromium has loaded it).
    const deadline = Date.now() + 60_000;
    let languages: string[] = [];
    while (Date.now() < deadline) {
      languages = (await harness.listWorkers({})).workers.map((w) => w.environment?.language ?? "");
      if (languages.includes("rust") && languages.includes("browser")) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const driverLog = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "(no driver log)");
    expect(languages, `workers attached: ${languages.join(", ")}; driver log:\n${driverLog()}`).toEqual(expect.arrayContaining(["rust", "browser"]));

    const scenario = create(ScenarioSchema, {
      name: "browser-e2e",
      description: "three codecs between the Rust worker and the browser page",
      datasets: ["numeric"],
      codecs: [...codecIds],
      // Typed only: every codec's other modes are covered by the unit tests; here what matters is
      // every codec across processes and languages (eight codecs in every mode took > 400 s; two datasets in typed, 320 s).
      decodeModes: ["typed"],
      counts: [20],
      // repeatSameBytes: every producer's payload decoded by every consumer even where the bytes are
      // the same (control decodes those once per consumer by default): the cross cells are the point.
      sampling: { warmupMs: 20, maxWarmupMs: 500, rounds: 3, minRoundMs: 2, trials: 2, repeatSameBytes: true },
    });
    const measurements: Measurement[] = [];
    let run: Run | undefined;
    for await (const response of harness.startRun({ scenario, source: "web/test/e2e.test.ts" }, { timeoutMs: 800_000 })) {
      const event = response.event?.event;
      if (event?.case === "measurement") measurements.push(event.value);
      if (event?.case === "run") {
        run = event.value;
        if (run.status !== RunStatus.RUNNING && run.status !== RunStatus.UNSPECIFIED) break;
      }
    }
    expect(run?.status, `run ended as ${run ? RunStatus[run.status] : "nothing"}: ${run?.message}`).toBe(RunStatus.FINISHED);

    const failures = measurements.filter((m) => m.failure || !m.verified).map((m) => `${m.dataset} ${m.codec} ${Operation[m.operation]} ${m.producerWorkerId}→${m.consumerWorkerId}: ${m.failure || "not verified"}`);
    expect(failures, `driver log:\n${driverLog()}`).toEqual([]);
    expect(run!.tasksFailed).toBe(0);

    const language = (workerId: string) => workerId.replace(/-\d+$/, "");
    const cells = new Set(
      measurements
        .filter((m) => m.operation === Operation.DECODE)
        .map((m) => `${m.dataset} ${m.codec} ${m.decodeMode} ${language(m.producerWorkerId)}→${language(m.consumerWorkerId)}`),
    );
    for (const dataset of ["numeric"]) {
      for (const codec of codecIds) {
        expect(cells).toContain(`${dataset} ${codec} typed rust→browser`);
        expect(cells).toContain(`${dataset} ${codec} typed browser→rust`);
        expect(cells).toContain(`${dataset} ${codec} typed browser→browser`);
      }
    }
    const browserEncodes = measurements.filter((m) => m.operation === Operation.ENCODE && m.language === "browser");
    expect([...new Set(browserEncodes.map((m) => `${m.dataset} ${m.codec}`))].sort()).toEqual(["numeric"].flatMap((dataset) => codecIds.map((codec) => `${dataset} ${codec}`)).sort());
    // Every cell in two trials, each in a Chromium the driver launched, served by the real control (its trial page
    // cross-origin isolated too), warmed up to a steady state or marked.
    expect([...new Set(browserEncodes.map((m) => m.trial))].sort()).toEqual([0, 1]);
    const browserTrials = measurements.filter((m) => m.language === "browser" && (m.operation === Operation.ENCODE || m.operation === Operation.DECODE));
    for (const m of browserTrials) {
      expect(m.steady ? m.extras["warmup_rounds"]! >= 10 : m.extras["warmup_ms"]! >= 500, `${m.cellId} trial ${m.trial}: ${JSON.stringify(m.extras)}`).toBe(true);
      expect(m.extras["worker_start_ms"]).toBeGreaterThan(0);
      expect(m.extras["browser_launch_ms"]).toBeGreaterThan(0);
      expect(m.extras["cross_origin_isolated"]).toBe(1);
    }
    // One Chromium launch per pass of control's order: every trial of pass k ran in one launch
    // (its first trial launched it), the two passes in two different launches.
    const launches = [0, 1].map((trial) => browserTrials.filter((m) => m.trial === trial));
    for (const pass of launches) {
      expect(new Set(pass.map((m) => m.extras["browser_launch_ms"])).size, "one launch per pass").toBe(1);
      expect(pass.map((m) => m.extras["browser_launch_trial"]).sort((a, b) => a! - b!)).toEqual(pass.map((_, i) => i));
    }
    expect(launches[0]![0]!.extras["browser_launch_ms"]).not.toBe(launches[1]![0]!.extras["browser_launch_ms"]);
    const costs = (key: string) => browserTrials.map((m) => m.extras[key]!).sort((a, b) => a - b);
    const mid = (values: number[]) => values[values.length >> 1]!.toFixed(0);
    console.log(`browser trials: ${browserTrials.length}; median worker start ${mid(costs("worker_start_ms"))} ms, median warm-up ${mid(costs("warmup_ms"))} ms, median whole trial ${mid(costs("trial_ms"))} ms, median browser launch ${mid(costs("browser_launch_ms"))} ms and settling ${mid(costs("browser_settle_ms"))} ms`);
    const browserMeasurement = browserEncodes[0]!;
    expect(browserMeasurement.environment?.details["crossOriginIsolated"]).toBe("true");
    expect(browserMeasurement.environment?.details["v8Flags"]).toBe(V8_FLAGS);
    expect(browserMeasurement.roundNsPerOp).toHaveLength(3);

    // Stop the driver now so it writes the screenshot of the page after the run.
    const driver = children.find((child) => child.name === "driver")!;
    expect(await driver.stop("SIGTERM"), `driver log:\n${driverLog()}`).toBe(0);
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  }, 860_000);
});
