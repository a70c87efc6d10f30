import { readFileSync } from "node:fs";
import { create, toBinary } from "@bufbuild/protobuf";
import { createRouterTransport } from "@connectrpc/connect";
import { afterEach, describe, expect, it } from "vitest";
import { EnvironmentSchema } from "../src/gen/codecbench/v1/results_pb";
import { MatrixDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import { runWorker, type WorkerEvents } from "../src/worker/attach";
import { workerClient } from "../src/worker/client";
import type { TrialInput } from "../src/trial/trial";
import { ABANDONED, type TrialRunner } from "../src/worker/trials";
import { inProcessTrials } from "./in-process-trials";
import { FakeControl, sha256, task } from "./fake-control";
import { canonicalPb, catalogue, fingerprints, repoRoot, vector } from "./vectors";

const browserCodecs = catalogue().filter((entry) => entry.modes.has("browser"));

// The worker protocol of proto/README.md against an in-memory control: attach, tasks one at a
// time, verification before timing, blobs in 1 MiB chunks, failures that name their step,
// reattaching after the stream drops. Trials run in process here; test/page.test.ts runs them in
// fresh Web Workers in Chromium.

const environment = create(EnvironmentSchema, { language: "browser", runtime: "test", details: { timerResolutionUs: "1" } });
const quiet: WorkerEvents = { connecting() {}, attached() {}, detached() {}, taskStarted() {}, step() {}, taskFinished() {}, error() {} };

let stopWorker: AbortController | undefined;
afterEach(() => stopWorker?.abort());

function start(control: FakeControl, events: Partial<WorkerEvents> = {}, trials: TrialRunner = inProcessTrials): void {
  stopWorker = new AbortController();
  const client = workerClient(createRouterTransport(control.routes));
  void runWorker({ client, name: "browser", environment, trials, events: { ...quiet, ...events }, signal: stopWorker.signal, firstRetryMs: 10, firstReportRetryMs: 10 });
}

function withCanonical(control: FakeControl, dataset: "dummy" | "numeric" | "owners" | "docs" | "beers" | "matrix") {
  const pb = canonicalPb(dataset);
  return { id: control.putBlob(pb), size: pb.length };
}

function blobOf(control: FakeControl, bytes: Uint8Array) {
  return { id: control.putBlob(bytes), size: bytes.length };
}

describe("worker protocol", () => {
  it("announces itself, its codecs and its datasets", async () => {
    const control = new FakeControl();
    let attachedAs = "";
    start(control, { attached: (id) => (attachedAs = id) });
    await expect.poll(() => attachedAs).toBe("browser-1");
    const request = control.attaches[0]!;
    expect(request.name).toBe("browser");
    expect(request.environment?.language).toBe("browser");
    // Every dataset with the harness's fingerprint of its schema, or control gives the page no task.
    expect(request.datasets.map((d) => [d.id, d.message, d.fingerprint])).toEqual(Object.entries(fingerprints()).map(([id, d]) => [id, d.message, d.fingerprint]));
    // Every codec the catalogue gives the browser, with its modes, in the catalogue's order.
    expect(request.codecs.map((c) => [c.id, c.decodeModes])).toEqual(browserCodecs.map((e) => [e.id, e.modes.get("browser")]));
    expect(request.codecs.map((c) => c.id)).toContain("msgpack/msgpackr");
    // Every codec declares what each of its timed regions holds: encode and every decode mode.
    const vocabulary = new Set(["serialize", "parse", "utf8", "model-conversion", "validation", "copy", "field-lookup"]);
    for (const codec of request.codecs) {
      expect(codec.timedRegions.map((r) => r.operation), codec.id).toEqual(["encode", ...codec.decodeModes]);
      for (const region of codec.timedRegions) {
        expect(region.contains.length, `${codec.id} ${region.operation}`).toBeGreaterThan(0);
        expect(region.contains.filter((word) => !vocabulary.has(word)), `${codec.id} ${region.operation}`).toEqual([]);
        expect(region.note, `${codec.id} ${region.operation}`).not.toBe("");
      }
    }
    expect(request.codecs.find((c) => c.id === "json")!.timedRegions[0]!.contains).toContain("utf8");
    expect(request.codecs.find((c) => c.id === "protobuf")!.timedRegions.map((r) => r.contains.includes("model-conversion"))).toEqual([true, true]);
    expect(request.codecs.find((c) => c.id === "bson")!.timedRegions.find((r) => r.operation === "lazy")!.contains).toEqual(["field-lookup"]);
    // Library versions are the installed packages' (read at build time), never hand-typed.
    const versions = Object.fromEntries(request.codecs.map((c) => [c.library, c.libraryVersion]));
    const installed = (name: string) => (JSON.parse(readFileSync(`${repoRoot}web/node_modules/${name}/package.json`, "utf8")) as { version: string }).version;
    expect(versions["@bufbuild/protobuf"]).toBe(installed("@bufbuild/protobuf"));
    expect(versions["codecbench ubjson (project-owned, Draft 12)"]).toBe((JSON.parse(readFileSync(`${repoRoot}web/package.json`, "utf8")) as { version: string }).version);
    expect(versions["@msgpack/msgpack"]).toBe(installed("@msgpack/msgpack"));
    expect(versions["cbor-x"]).toBe(installed("cbor-x"));
    expect(versions["fast-xml-parser"]).toBe(installed("fast-xml-parser"));
    expect(versions["flatbuffers"]).toBe(installed("flatbuffers"));
    expect(versions["bson (js-bson)"]).toBe(installed("bson"));
  });

  it("encodes, verifies, times to a steady state and stores the payload", async () => {
    const control = new FakeControl();
    control.enqueue(task({ operation: Operation.ENCODE, dataset: "owners", codec: "bson", recordCount: 3, canonical: withCanonical(control, "owners") }));
    start(control);
    const [report] = await control.waitForReports(1);
    expect(report!.failure).toBe("");
    expect(report!.workerId).toBe("browser-1");
    expect(report!.reportSecret).toBe("secret-of-browser-1"); // the attachment's secret, as control requires
    // The stored payload is byte for byte the Rust one (BSON is deterministic).
    expect(report!.payloadBlobId).toBe(sha256(vector("owners", "bson")));
    expect(Number(report!.payloadBlobSize)).toBe(vector("owners", "bson").length);
    const [m] = report!.measurements;
    expect(m!.operation).toBe(Operation.ENCODE);
    expect(m!.verified).toBe(true);
    expect(m!.language).toBe("browser");
    expect(m!.roundNsPerOp).toHaveLength(3);
    expect(Math.log2(Number(m!.opsPerRound)) % 1).toBe(0);
    expect(m!.extras["warmup_ms"]).toBeGreaterThanOrEqual(5);
    // Either a measured steady state (>= 10 warm-up rounds) or the cap, marked.
    expect(m!.steady ? m!.extras["warmup_rounds"]! >= 10 : m!.extras["warmup_ms"]! >= 300).toBe(true);
    expect(m!.cellId).toBe("cell-owners-bson-");
    expect(m!.allocBytesPerOp).toBeUndefined();
    expect(m!.extras["peak_heap_bytes"]).toBeUndefined(); // a page has no heap meter
  });

  it("uploads only when store_payload, and times the upload when measure_transfer", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "dummy");
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical, storePayload: false, trial: 1 }),
      task({ operation: Operation.ENCODE, dataset: "dummy", codec: "msgpack", recordCount: 3, canonical, storePayload: true, measureTransfer: true }),
    );
    start(control);
    const [later, first] = await control.waitForReports(2);
    expect(later!.failure).toBe("");
    expect([later!.payloadBlobId, later!.payloadBlobSize]).toEqual(["", 0n]);
    expect(later!.measurements.map((m) => [Operation[m.operation], m.trial])).toEqual([["ENCODE", 1]]);
    expect(control.blobs.has(sha256(vector("dummy", "json", "browser")))).toBe(false);
    expect(first!.failure).toBe("");
    expect(first!.payloadBlobId).toBe(sha256(vector("dummy", "msgpack", "browser")));
    expect(first!.measurements.map((m) => [Operation[m.operation], Number(m.payloadBytes)])).toEqual([
      ["ENCODE", vector("dummy", "msgpack", "browser").length],
      ["UPLOAD", vector("dummy", "msgpack", "browser").length],
    ]);
    expect(first!.measurements[1]!.roundNsPerOp).toHaveLength(3);
  });

  it("prepares: encodes, verifies and stores the payload, times nothing and reports no measurement", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "owners");
    // A warm-up of a minute: a prepare task that timed anything would not answer in time.
    const slow = { warmupMs: 60_000, maxWarmupMs: 120_000 };
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "owners", codec: "bson", recordCount: 3, canonical, prepare: true, measureTransfer: true, sampling: slow }),
      task({ operation: Operation.ENCODE, dataset: "owners", codec: "json", recordCount: 3, canonical, prepare: true, storePayload: false }),
      task({ operation: Operation.DECODE, dataset: "owners", codec: "bson", recordCount: 3, canonical, payload: blobOf(control, vector("owners", "json")), prepare: true }),
    );
    const bsonId = sha256(vector("owners", "bson"));
    control.blobs.delete(bsonId);
    start(control);
    const [prepared] = await control.waitForReports(1, 10_000);
    expect(prepared!.failure).toBe("");
    expect(prepared!.measurements).toEqual([]);
    expect(prepared!.payloadBlobId).toBe(bsonId);
    expect(Number(prepared!.payloadBlobSize)).toBe(vector("owners", "bson").length);
    expect(control.blobs.get(bsonId)).toEqual(vector("owners", "bson"));
    // Nothing timed: no warmup, rounds or transfer in its phases.
    expect(Object.keys(prepared!.phaseMs).sort()).toEqual(["fetch", "load", "other", "process", "total", "verify"]);
    const reports = await control.waitForReports(3, 10_000);
    expect(reports.slice(1).map((r) => [r.failure, r.measurements.length, r.payloadBlobId])).toEqual([
      ["task failed: a prepare task must store its payload (store_payload is false)", 0, ""],
      ["task failed: only encode tasks can be prepare tasks", 0, ""],
    ]);
    // Refused before anything ran: total only.
    expect(reports.slice(1).map((r) => Object.keys(r.phaseMs))).toEqual([["total"], ["total"]]);
  });

  it("hands a lane's cpus to the trial with a launch key of that lane, and reports where the trial ran (trial_cpus)", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "dummy");
    const pinned = task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical, trial: 2 });
    pinned.cpus = [1, 3];
    control.enqueue(pinned);
    control.enqueue(task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical, trial: 2 }));
    const inputs: TrialInput[] = [];
    // Stands in for the driver, which reads the trial Chromium's CPUs from /proc.
    start(control, {}, async (input, timeoutMs, signal) => {
      inputs.push(input);
      const run = await inProcessTrials(input, timeoutMs, signal);
      return input.cpus ? { ...run, result: { ...run.result, trialCpus: "1,3" } } : run;
    });
    const reports = await control.waitForReports(2);
    expect(inputs.map((i) => [i.launchKey, i.cpus])).toEqual([["run-1/trial-2/cpus-1,3", [1, 3]], ["run-1/trial-2", undefined]]);
    expect(reports.map((r) => [r.failure, r.trialCpus])).toEqual([["", "1,3"], ["", ""]]);
  });

  it("times the download, verifies and times decode of a Rust payload", async () => {
    const control = new FakeControl();
    const payload = blobOf(control, vector("numeric", "json"));
    control.enqueue(task({ operation: Operation.DECODE, dataset: "numeric", codec: "json", recordCount: 3, canonical: withCanonical(control, "numeric"), payload, measureTransfer: true }));
    start(control);
    const [report] = await control.waitForReports(1);
    expect(report!.failure).toBe("");
    expect(report!.measurements.map((m) => [Operation[m.operation], m.verified, Number(m.payloadBytes)])).toEqual([
      ["DOWNLOAD", true, payload.size],
      ["DECODE", true, payload.size],
    ]);
  });

  it("reports where the task's time went (phase_ms): its fetch, transfer and process, the trial's load, verify, warmup, rounds and other, and total", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "owners");
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "owners", codec: "bson", recordCount: 3, canonical, measureTransfer: true }),
      task({ operation: Operation.DECODE, dataset: "owners", codec: "json", recordCount: 3, canonical, payload: blobOf(control, vector("owners", "json")), measureTransfer: true }),
    );
    start(control);
    const reports = await control.waitForReports(2);
    for (const report of reports) {
      // As control stored it (the request went through the protobuf encoding of the router transport).
      const phases = report.phaseMs;
      const what = `${report.taskId}: ${JSON.stringify(phases)}`;
      expect(report.failure, what).toBe("");
      expect(Object.keys(phases).sort(), what).toEqual(["fetch", "load", "other", "process", "rounds", "total", "transfer", "verify", "warmup"]);
      for (const ms of Object.values(phases)) expect(Number.isFinite(ms) && ms >= 0, what).toBe(true);
      for (const phase of ["total", "process", "load", "verify", "warmup", "rounds", "transfer"]) expect(phases[phase], `${phase} of ${what}`).toBeGreaterThan(0);
      const timed = report.measurements.find((m) => m.operation === Operation.ENCODE || m.operation === Operation.DECODE)!;
      // The sample's own figures: calibration and warm-up are `warmup`, the timed rounds `rounds`.
      expect(phases["warmup"], what).toBeCloseTo(timed.extras["calibration_ms"]! + timed.extras["warmup_ms"]!, 6);
      expect(phases["rounds"], what).toBeCloseTo(timed.extras["rounds_ms"]!, 6);
      // The trial's own phases happen inside the page's `process` (the trial run, TrialRun.totalMs
      // and the await around it), and the page's phases inside `total`.
      const trial = phases["load"]! + phases["verify"]! + phases["warmup"]! + phases["rounds"]! + phases["other"]!;
      expect(trial, what).toBeLessThanOrEqual(phases["process"]! + 1e-6);
      expect(phases["process"], what).toBeGreaterThanOrEqual(timed.extras["trial_ms"]!);
      expect(phases["fetch"]! + phases["transfer"]! + phases["process"]!, what).toBeLessThanOrEqual(phases["total"]! + 1e-6);
    }
    const round = (phases: Record<string, number>) => Object.fromEntries(Object.entries(phases).sort().map(([k, v]) => [k, Number(v.toFixed(2))]));
    console.log(`phase_ms of an encode (owners bson, transfer timed): ${JSON.stringify(round(reports[0]!.phaseMs))}`);
    console.log(`phase_ms of a decode (owners json, transfer timed): ${JSON.stringify(round(reports[1]!.phaseMs))}`);
  });

  it("decodes lazily (bson, the task's two fields) and as a tree", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "docs");
    control.enqueue(
      task({ operation: Operation.DECODE, dataset: "docs", codec: "bson", decodeMode: "lazy", lazyFields: ["name", "delivery.company"], recordCount: 3, canonical, payload: blobOf(control, vector("docs", "bson")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "json", decodeMode: "tree", recordCount: 3, canonical, payload: blobOf(control, vector("docs", "json")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "json", decodeMode: "lazy", lazyFields: ["name"], recordCount: 3, canonical, payload: blobOf(control, vector("docs", "json")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "bson", decodeMode: "lazy", lazyFields: ["delivery.nope"], recordCount: 3, canonical, payload: blobOf(control, vector("docs", "bson")) }),
    );
    start(control);
    const reports = await control.waitForReports(4);
    expect(reports.map((r) => r.failure)).toEqual([
      "",
      "",
      `decode failed: codec json has no decode mode "lazy" (it has typed, tree)`,
      `decode failed: record 0 has no field "delivery.nope"`,
    ]);
    expect(reports.slice(0, 2).map((r) => r.measurements[0]!.decodeMode)).toEqual(["lazy", "tree"]);
  });

  it("reports a verification failure with record and field, and no timing", async () => {
    const control = new FakeControl();
    const text = new TextDecoder().decode(vector("dummy", "json"));
    const email = /"email":"([^"]+)"/.exec(text)![1]!;
    const wrong = new TextEncoder().encode(text.replace(email, `x${email}`));
    control.enqueue(task({ operation: Operation.DECODE, dataset: "dummy", codec: "json", recordCount: 3, canonical: withCanonical(control, "dummy"), payload: blobOf(control, wrong) }));
    start(control);
    const [report] = await control.waitForReports(1);
    expect(report!.failure).toBe(`verification failed: record 0 field email: expected "${email}", got "x${email}"`);
    expect(report!.measurements).toEqual([]);
  });

  it("offers no transfer compression and fails a leg that asks for one, naming it", async () => {
    const control = new FakeControl();
    const payload = blobOf(control, vector("numeric", "json"));
    const canonical = withCanonical(control, "numeric");
    control.enqueue(
      task({ operation: Operation.DECODE, dataset: "numeric", codec: "json", recordCount: 3, canonical, payload, measureTransfer: true, compressions: ["identity"] }),
      task({ operation: Operation.DECODE, dataset: "numeric", codec: "json", recordCount: 3, canonical, payload, measureTransfer: true, compressions: ["identity", "gzip"] }),
    );
    start(control);
    const [plain, gzip] = await control.waitForReports(2);
    expect(control.attaches[0]!.compressions).toEqual([]);
    expect(plain!.failure).toBe("");
    expect(plain!.measurements.map((m) => [Operation[m.operation], m.compression])).toEqual([["DOWNLOAD", ""], ["DECODE", ""]]);
    expect(gzip!.failure).toBe(`download failed: the browser worker offers no compression "gzip" (it offers identity only: connect-web's gRPC-web transport does not compress)`);
  });

  it("reports corrupt payloads as decode failures, keeping the transfer measurement", async () => {
    const control = new FakeControl();
    const corrupt = vector("beers", "bson").slice(0, 100);
    control.enqueue(task({ operation: Operation.DECODE, dataset: "beers", codec: "bson", recordCount: 3, canonical: withCanonical(control, "beers"), payload: blobOf(control, corrupt), measureTransfer: true }));
    start(control);
    const [report] = await control.waitForReports(1);
    expect(report!.failure).toMatch(/^decode failed: /);
    expect(report!.measurements.map((m) => m.operation)).toEqual([Operation.DOWNLOAD]);
    // What it measured before the decode failed; the failed step's time is the trial's `other`.
    expect(Object.keys(report!.phaseMs).sort()).toEqual(["fetch", "load", "other", "process", "total", "transfer"]);
  });

  it("names the step for unknown codecs, missing blobs and wrong record counts", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "docs");
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "docs", codec: "yaml", recordCount: 3, canonical }),
      task({ operation: Operation.ENCODE, dataset: "docs", codec: "json", recordCount: 3, canonical: { id: "0".repeat(64), size: 10 } }),
      task({ operation: Operation.ENCODE, dataset: "docs", codec: "json", recordCount: 4, canonical }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "bson", decodeMode: "eager", recordCount: 3, canonical, payload: canonical }),
    );
    start(control);
    const reports = await control.waitForReports(4);
    expect(reports.map((r) => r.failure)).toEqual([
      `encode failed: unknown codec "yaml" (this worker offers ${browserCodecs.map((e) => e.id).join(", ")})`,
      expect.stringMatching(/^canonical records failed: .*no blob 0{64}/),
      "canonical records failed: the canonical blob has 3 records, the task says 4",
      `decode failed: codec bson has no decode mode "eager" (it has typed, tree, lazy)`,
    ]);
  });

  it("moves blobs larger than 1 MiB in chunks, both ways", async () => {
    const control = new FakeControl();
    const rows = Array.from({ length: 4000 }, (_, r) => ({ cells: Array.from({ length: 40 }, (_, c) => `${r}.${String(c).padStart(10, "0")}`) }));
    const pb = toBinary(MatrixDatasetSchema, create(MatrixDatasetSchema, { records: rows }));
    const canonical = blobOf(control, pb);
    expect(canonical.size).toBeGreaterThan(2 << 20);
    control.enqueue(task({ operation: Operation.ENCODE, dataset: "matrix", codec: "json", recordCount: rows.length, canonical }));
    start(control);
    const [encoded] = await control.waitForReports(1);
    expect(encoded!.failure).toBe("");
    const payload = { id: encoded!.payloadBlobId, size: Number(encoded!.payloadBlobSize) };
    expect(payload.size).toBeGreaterThan(2 << 20);
    control.enqueue(task({ operation: Operation.DECODE, dataset: "matrix", codec: "json", recordCount: rows.length, canonical, payload, measureTransfer: true }));
    const [, decoded] = await control.waitForReports(2);
    expect(decoded!.failure).toBe("");
    expect(decoded!.measurements.every((m) => m.verified)).toBe(true);
  });

  it("attaches again when the stream drops and goes on with the next task", async () => {
    const control = new FakeControl();
    control.dropAfterTasks = 1;
    const canonical = withCanonical(control, "beers");
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "beers", codec: "json", recordCount: 3, canonical }),
      task({ operation: Operation.ENCODE, dataset: "beers", codec: "bson", recordCount: 3, canonical }),
    );
    const detached: string[] = [];
    start(control, { detached: (reason) => detached.push(reason) });
    const reports = await control.waitForReports(2);
    expect(reports.map((r) => [r.workerId, r.failure])).toEqual([
      ["browser-1", ""],
      ["browser-2", ""],
    ]);
    expect(detached[0]).toBe("control closed the stream");
  });

  it("names itself on every blob call with its attachment's secret, the new one after attaching again", async () => {
    const control = new FakeControl();
    control.dropAfterTasks = 1;
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "beers", codec: "json", recordCount: 3, canonical: withCanonical(control, "beers"), prepare: true }),
      task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical: withCanonical(control, "dummy"), prepare: true }),
    );
    start(control);
    const reports = await control.waitForReports(2);
    expect(reports.map((r) => [r.workerId, r.failure])).toEqual([
      ["browser-1", ""],
      ["browser-2", ""],
    ]);
    // Control keys the upload allowance by it (clients.rs); a report carries it in its body instead.
    expect(control.secrets).toEqual([
      "GetBlob secret-of-browser-1",
      "PutBlob secret-of-browser-1",
      "ReportResult ",
      "GetBlob secret-of-browser-2",
      "PutBlob secret-of-browser-2",
      "ReportResult ",
    ]);
  });

  it("reports a result again while control answers UNAVAILABLE, and once stored goes on", async () => {
    const control = new FakeControl();
    control.unavailableReports = 2;
    const canonical = withCanonical(control, "beers");
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "beers", codec: "json", recordCount: 3, canonical }),
      task({ operation: Operation.ENCODE, dataset: "beers", codec: "bson", recordCount: 3, canonical }),
    );
    const errors: string[] = [];
    start(control, { error: (message) => errors.push(message) });
    const reports = await control.waitForReports(2);
    expect(control.refusedReports).toBe(2);
    expect(reports.map((r) => [r.workerId, r.failure, r.measurements.length > 0])).toEqual([
      ["browser-1", "", true],
      ["browser-1", "", true],
    ]);
    expect(errors.filter((e) => e.includes("retrying"))).toHaveLength(2);
  });

  it("stops a task control abandons, reports nothing for it, and takes the next", async () => {
    const control = new FakeControl();
    const canonical = withCanonical(control, "beers");
    const hung = task({ operation: Operation.ENCODE, dataset: "beers", codec: "json", recordCount: 3, canonical });
    const next = task({ operation: Operation.ENCODE, dataset: "beers", codec: "bson", recordCount: 3, canonical });
    control.enqueue(hung, next);
    // The first trial never ends by itself; it ends only when its signal says abandon.
    let calls = 0;
    let stopped = false;
    const trials: TrialRunner = (input, timeoutMs, signal) => {
      if (calls++ > 0) return inProcessTrials(input, timeoutMs, signal);
      return new Promise((resolve) =>
        signal?.addEventListener("abort", () => {
          stopped = true;
          resolve({ result: { failure: ABANDONED, payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 });
        }),
      );
    };
    const errors: string[] = [];
    const finished: [string, boolean][] = [];
    start(control, { error: (m) => errors.push(m), taskFinished: (t, _, reported) => finished.push([t.id, reported]) }, trials);
    await expect.poll(() => calls).toBe(1);
    control.abandon(hung.id, "its run was cancelled (CancelRun)");
    const [report] = await control.waitForReports(1);
    expect(stopped).toBe(true);
    expect(report!.taskId).toBe(next.id);
    expect(report!.failure).toBe("");
    expect(control.reports.map((r) => r.taskId)).toEqual([next.id]);
    expect(finished).toEqual([[hung.id, false], [next.id, true]]);
    expect(errors.some((e) => e.includes(`task ${hung.id} abandoned: its run was cancelled`))).toBe(true);
  });
});
