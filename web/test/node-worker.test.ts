import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRouterTransport } from "@connectrpc/connect";
import { build } from "vite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import { allowedCpus, laneMismatch, parseCpuList } from "../src/node/cpus";
import { collectNodeEnvironment, nodeLegExtras } from "../src/node/environment";
import { FrameReader, frame } from "../src/node/frames";
import { NODE_NATIVE_PATHS } from "../src/node/native";
import { heapMeter } from "../src/node/memory";
import { TRIAL_NODE_FLAGS, processTrials, trialCommand } from "../src/node/trials";
import type { TrialInput } from "../src/trial/trial";
import { runWorker, type WorkerEvents } from "../src/worker/attach";
import { workerClient } from "../src/worker/client";
import { FakeControl, task } from "./fake-control";
import { canonicalPb, repoRoot } from "./vectors";

// The Node.js worker (src/node/): its pipe framing, lane CPUs and heap meter, and the worker
// protocol with each trial in a fresh Node process built as make web builds it (vite.node.config.ts),
// against the in-memory control. harness/tests/test_node_worker.py runs it against the real one.

const quiet: WorkerEvents = { connecting() {}, attached() {}, detached() {}, taskStarted() {}, step() {}, taskFinished() {}, error() {} };

describe("node worker parts", () => {
  it("frames carry a trial's bytes, bigints and nesting however the pipe splits them", () => {
    const input = { taskId: "t", canonical: new Uint8Array([0, 1, 254, 255]), big: 2n ** 63n + 1n, nested: { list: [1.5, "李"] } };
    const bytes = Buffer.concat([frame({ kind: "ready" }), frame(input)]);
    for (const step of [1, 3, 7, bytes.length]) {
      const reader = new FrameReader();
      const seen: unknown[] = [];
      for (let at = 0; at < bytes.length; at += step) seen.push(...reader.push(bytes.subarray(at, at + step)));
      expect(seen).toEqual([{ kind: "ready" }, input]);
      expect(reader.leftover).toBe(0);
    }
  });

  it("joins a frame of many MiB from pipe-sized chunks once, not once per chunk", () => {
    const payload = new Uint8Array(32 << 20).map((_, i) => i & 0xff);
    const bytes = frame({ kind: "result", payload });
    const reader = new FrameReader();
    const start = performance.now();
    const seen: unknown[] = [];
    for (let at = 0; at < bytes.length; at += 16_384) seen.push(...reader.push(bytes.subarray(at, at + 16_384)));
    // Re-joining the pending bytes at every 16 KiB chunk would copy ~32 GiB here.
    expect(performance.now() - start).toBeLessThan(3000);
    expect(seen).toHaveLength(1);
    expect((seen[0] as { payload: Uint8Array }).payload.length).toBe(payload.length);
    expect(Buffer.compare((seen[0] as { payload: Uint8Array }).payload, payload)).toBe(0);
  });

  it("reads lane CPU lists as Linux writes them and tells a process off its lane", () => {
    expect(parseCpuList("0-2,5,7-8")).toEqual([0, 1, 2, 5, 7, 8]);
    expect(laneMismatch("1", [1])).toBeNull();
    expect(laneMismatch("0-1", [1, 0])).toBeNull();
    expect(laneMismatch("0-1", [1])).toMatch(/may run on CPUs 0-1, not only on its lane's 1/);
    expect(parseCpuList(allowedCpus()).length).toBeGreaterThan(0);
  });

  it("counts the heap bytes the operations allocate, freed or not", () => {
    const meter = heapMeter();
    const sink: unknown[] = [];
    meter.start();
    // 20,000 arrays of 100 doubles: 800 bytes of elements each, plus headers; most die young (scavenges free them).
    for (let i = 0; i < 20_000; i++) sink[i % 4] = new Array(100).fill(i + 0.5);
    const perOp = meter.stop() / 20_000;
    expect(perOp).toBeGreaterThan(800);
    expect(perOp).toBeLessThan(1000);
  });

  it("starts a lane's trial under taskset -c with the browser trials' V8 flags", () => {
    expect(trialCommand({ script: "/t.js", node: "/bin/node" })).toEqual(["/bin/node", ...TRIAL_NODE_FLAGS, "/t.js"]);
    expect(trialCommand({ script: "/t.js", node: "/bin/node" }, [2, 3])).toEqual(["taskset", "-c", "2,3", "/bin/node", ...TRIAL_NODE_FLAGS, "/t.js"]);
    expect(TRIAL_NODE_FLAGS).toEqual(expect.arrayContaining(["--max-semi-space-size=16", "--no-allocation-site-pretenuring", "--harmony-json-parse-with-source"]));
  });
});

describe("node worker protocol, each trial in a fresh Node process", () => {
  let out = "";
  let stopWorker: AbortController | undefined;
  beforeAll(async () => {
    // Inside web/ (as the vectors tool builds into node_modules/.vectors): the build's package imports resolve from web/node_modules.
    mkdirSync(`${repoRoot}web/node_modules/.node-worker-test`, { recursive: true });
    out = mkdtempSync(`${repoRoot}web/node_modules/.node-worker-test/build-`);
    await build({ configFile: `${repoRoot}web/vite.node.config.ts`, logLevel: "error", build: { outDir: out, emptyOutDir: true } });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  afterEach(() => stopWorker?.abort());

  function start(control: FakeControl): void {
    stopWorker = new AbortController();
    const environment = collectNodeEnvironment();
    void runWorker({
      client: workerClient(createRouterTransport(control.routes)),
      name: "node",
      environment,
      trials: processTrials({ script: join(out, "trial.js") }),
      legExtras: nodeLegExtras(environment),
      runtimeNotes: NODE_NATIVE_PATHS,
      events: quiet,
      signal: stopWorker.signal,
      firstRetryMs: 10,
    });
  }

  it("attaches as node and encodes then decodes, verified, with allocated bytes and the trial's own phases", async () => {
    const control = new FakeControl();
    start(control);
    const pb = canonicalPb("dummy");
    const canonical = { id: control.putBlob(pb), size: pb.length };
    control.enqueue(task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical, sampling: { maxWarmupMs: 200 } }));
    const [encoded] = await control.waitForReports(1, 60_000);
    expect(encoded!.failure).toBe("");
    const request = control.attaches[0]!;
    expect([request.name, request.environment?.language, request.environment?.runtime]).toEqual(["node", "node", "Node.js"]);
    expect(request.environment?.details["allocBytes"]).toMatch(/GCProfiler/);
    // Node-native paths are declared in every timed region of the codecs that have one, and only there.
    for (const codec of request.codecs) {
      for (const region of codec.timedRegions) expect(region.note.endsWith(`; ${NODE_NATIVE_PATHS[codec.id]}`), `${codec.id} ${region.operation}`).toBe(codec.id in NODE_NATIVE_PATHS);
    }
    // msgpackr's native add-on (an optional, prebuilt dependency that npm ci installs) loads under Node.
    expect(request.codecs.find((c) => c.id === "msgpack/msgpackr")?.notes).toMatch(/^native add-on loaded \(msgpackr-extract/);
    const payload = { id: encoded!.payloadBlobId, size: Number(encoded!.payloadBlobSize) };
    control.enqueue(task({ operation: Operation.DECODE, dataset: "dummy", codec: "json", recordCount: 3, canonical, payload, measureTransfer: true, sampling: { maxWarmupMs: 200 } }));
    const [, decoded] = await control.waitForReports(2, 60_000);
    expect(decoded!.failure).toBe("");
    for (const report of [encoded!, decoded!]) {
      // The trial process read where it ran (not pinned here: this process's own CPUs).
      expect(report.trialCpus).toBe(allowedCpus());
      expect(Object.keys(report.phaseMs)).toEqual(expect.arrayContaining(["total", "fetch", "process", "load", "verify", "warmup", "rounds", "other"]));
      expect(report.phaseMs["process"]!).toBeGreaterThanOrEqual(report.phaseMs["warmup"]! + report.phaseMs["rounds"]!);
    }
    const byOperation = new Map(decoded!.measurements.map((m) => [m.operation, m]));
    const decode = byOperation.get(Operation.DECODE)!;
    expect([decode.language, decode.verified]).toEqual(["node", true]);
    // A typed json decode builds its 3 records (nested friends, tags, strings) on the V8 heap.
    expect(decode.allocBytesPerOp).toBeGreaterThan(3 * 300);
    expect(encoded!.measurements[0]!.allocBytesPerOp).toBeGreaterThan(0);
    // One operation's peak heap growth, measured after the rounds: at least the records it builds.
    expect(decode.extras["peak_heap_bytes"]).toBeGreaterThan(3 * 300);
    expect(encoded!.measurements[0]!.extras["peak_heap_bytes"]).toBeGreaterThan(0);
    expect(decode.extras["jit_observable"]).toBe(0);
    // The download leg is timed by the attached process, with its clock's diagnostics, not the page's.
    const download = byOperation.get(Operation.DOWNLOAD)!;
    expect([download.language, download.extras["cross_origin_isolated"]]).toEqual(["node", undefined]);
  });

  it("pins a lane's trial process to the lane's CPUs, fails one taskset cannot pin, and a compression it does not offer", async () => {
    const control = new FakeControl();
    start(control);
    const pb = canonicalPb("dummy");
    const canonical = { id: control.putBlob(pb), size: pb.length };
    const lane = parseCpuList(allowedCpus()).at(-1)!;
    const pinned = task({ operation: Operation.ENCODE, dataset: "dummy", codec: "protobuf", recordCount: 3, canonical, sampling: { maxWarmupMs: 100 } });
    pinned.cpus = [lane];
    const nowhere = task({ operation: Operation.ENCODE, dataset: "dummy", codec: "protobuf", recordCount: 3, canonical, sampling: { maxWarmupMs: 100 } });
    nowhere.cpus = [4095];
    // A compressed leg it does not offer (it announces none) fails before any trial, saying so.
    const gzip = task({ operation: Operation.ENCODE, dataset: "dummy", codec: "protobuf", recordCount: 3, canonical, measureTransfer: true, compressions: ["identity", "gzip"] });
    control.enqueue(pinned, nowhere, gzip);
    const [first, second, third] = await control.waitForReports(3, 60_000);
    expect(control.attaches[0]!.compressions).toEqual([]);
    expect(third!.failure).toBe('upload failed: the node worker offers no compression "gzip" (it offers identity only)');
    expect(first!.failure).toBe("");
    expect(first!.trialCpus).toBe(String(lane));
    expect(second!.failure).toMatch(/^trial failed: the trial worker crashed: the trial process exited with code \d+ before answering: taskset: /);
  });

  it("names a trial process that dies before answering, with what it said", async () => {
    const script = join(out, "dies.mjs");
    writeFileSync(script, 'process.stderr.write("out of luck\\n"); process.exit(3);\n');
    const input = { taskId: "t", canonical: new Uint8Array(4) } as unknown as TrialInput;
    const run = await processTrials({ script })(input, 10_000);
    expect(run.result.failure).toBe("trial failed: the trial worker crashed: the trial process exited with code 3 before answering: out of luck");
  });
});
