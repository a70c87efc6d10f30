import { describe, expect, it } from "vitest";
import type { TrialInput } from "../src/trial/trial";
import { createRouterTransport } from "@connectrpc/connect";
import { WorkerSecret, withWorkerSecret, workerClient } from "../src/worker/client";
import { browserTrials, MAX_BROWSER_TRIAL_BYTES, fetchWireInput, fromBase64, fromWireInput, toBase64, toWireInput, workerTrials, type WireTrialInput, type WorkerLike } from "../src/worker/trials";
import { FakeControl } from "./fake-control";
import { canonicalPb } from "./vectors";

// The page's trial runner against stand-in workers (the real Web Worker path runs in Chromium in
// page.test.ts): whatever the worker does, the runner answers with a precise failure and
// terminates it.

class FakeWorker extends EventTarget implements WorkerLike {
  terminated = 0;
  received: unknown[] = [];
  constructor(private readonly behaviour: (worker: FakeWorker) => void) {
    super();
    queueMicrotask(() => behaviour(this));
  }
  postMessage(message: unknown): void {
    this.received.push(message);
  }
  terminate(): void {
    this.terminated++;
  }
  emit(type: string, fields: Record<string, unknown>): void {
    this.dispatchEvent(Object.assign(new Event(type), fields));
  }
}

/** Byte-for-byte equality of two buffers (Node's Buffer.equals: a memcmp). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

function input(): TrialInput {
  return {
    taskId: "t",
    operation: "encode",
    dataset: "dummy",
    codec: "json",
    decodeMode: "",
    recordCount: 3,
    lazyFields: [],
    sampling: { warmupMs: 1, maxWarmupMs: 10, rounds: 1, minRoundMs: 1 },
    canonical: canonicalPb("dummy").slice(),
  };
}

async function trial(behaviour: (worker: FakeWorker) => void, timeoutMs = 5000) {
  let worker: FakeWorker | undefined;
  const runner = workerTrials(() => (worker = new FakeWorker(behaviour)));
  const run = await runner(input(), timeoutMs);
  return { run, worker: worker! };
}

describe("trial runner", () => {
  it("posts the task once the worker is ready, returns its result and terminates it", async () => {
    const { run, worker } = await trial((w) => {
      w.emit("message", { data: { kind: "ready" } });
      w.emit("message", { data: { kind: "result", result: { failure: "", payloadBytes: 7, extras: { x: 1 } } } });
    });
    expect(run.result).toEqual({ failure: "", payloadBytes: 7, extras: { x: 1 } });
    expect((worker.received[0] as TrialInput).dataset).toBe("dummy");
    expect(worker.terminated).toBe(1);
  });

  it("fails precisely when the worker crashes", async () => {
    const { run, worker } = await trial((w) => {
      w.emit("message", { data: { kind: "ready" } });
      w.emit("error", { message: "Uncaught RangeError: Maximum call stack size exceeded", filename: "entry.js", lineno: 3 });
    });
    expect(run.result.failure).toBe("trial failed: the trial worker crashed: Uncaught RangeError: Maximum call stack size exceeded (entry.js:3)");
    expect(worker.terminated).toBe(1);
  });

  it("fails precisely when the worker script does not load", async () => {
    const { run } = await trial((w) => w.emit("error", {}));
    expect(run.result.failure).toBe("trial failed: the trial worker crashed: it failed to load or ran out of memory");
  });

  it("fails and terminates a worker that never answers", async () => {
    const { run, worker } = await trial((w) => w.emit("message", { data: { kind: "ready" } }), 50);
    expect(run.result.failure).toBe("trial failed: the trial worker gave no answer within 0.05 s; it was terminated");
    expect(worker.terminated).toBe(1);
  });

  it("fails when a worker cannot be created", async () => {
    const run = await workerTrials(() => {
      throw new Error("SecurityError: denied");
    })(input(), 1000);
    expect(run.result.failure).toBe("trial failed: could not start a trial worker: SecurityError: denied");
  });
});

describe("fresh-browser trial runner (the driver's host, stood in for)", () => {
  it("hands the trial over as base64 and back byte for byte, payload included", async () => {
    const payload = new Uint8Array(200_000).map((_, i) => (i * 7) & 0xff);
    const sent: WireTrialInput[] = [];
    const runner = browserTrials(async (wire, timeoutMs) => {
      sent.push(wire);
      expect(timeoutMs).toBe(5000);
      const back = fromWireInput(wire);
      return { result: { failure: "", payloadBytes: back.canonical.length, extras: { browser_launch_ms: 3 }, payload: toBase64(back.payload!), phaseMs: { load: 1.5, rounds: 6 } }, startMs: 12, totalMs: 20 };
    });
    const run = await runner({ ...input(), operation: "decode", decodeMode: "typed", payload }, 5000);
    expect(JSON.parse(JSON.stringify(sent[0]))).toEqual(sent[0]); // plain JSON: what crosses the DevTools protocol
    expect(run.result.failure).toBe("");
    expect(run.result.payloadBytes).toBe(canonicalPb("dummy").length);
    expect(run.result.payload).toEqual(payload);
    expect(run.result.extras).toEqual({ browser_launch_ms: 3 });
    // The trial's own phases come back with its result (the page merges them into phase_ms).
    expect(run.result.phaseMs).toEqual({ load: 1.5, rounds: 6 });
    expect(run.startMs).toBe(12);
  });

  // Megabytes are compared as bytes (sameBytes): toEqual walks a typed array element by element
  // through its generic equality and took most of this test's 28-36 s.
  it("sends a trial too large to carry inline by reference, and fetches an encode's stored payload back", async () => {
    const control = new FakeControl();
    const client = workerClient(createRouterTransport(control.routes));
    const canonical = canonicalPb("dummy").slice();
    const limit = 1 << 20; // the bound, lowered for the test (64 MiB in the page)
    const big = new Uint8Array(limit).map((_, i) => (i * 13) & 0xff);
    const blobs = { canonical: { id: control.putBlob(canonical), size: canonical.length }, payload: { id: control.putBlob(big), size: big.length } };
    const sent: WireTrialInput[] = [];
    const stored = new Uint8Array(3_000_000).map((_, i) => (i * 5) & 0xff);
    const runner = browserTrials(async (wire) => {
      sent.push(wire);
      // The trial page's side: the bytes come from control.
      const back = await fetchWireInput(wire, () => client);
      expect(sameBytes(back.canonical!, canonical)).toBe(true);
      expect(sameBytes(back.payload!, big)).toBe(true);
      return { result: { failure: "", payloadBytes: back.payload!.length, extras: {}, payloadBlob: { id: control.putBlob(stored), size: stored.length } }, startMs: 1, totalMs: 2 };
    }, undefined, undefined, client, limit);
    const run = await runner({ ...input(), operation: "decode", decodeMode: "typed", canonical, payload: big, blobs }, 5000);
    expect(run.result.failure).toBe("");
    expect(sent[0]!.byReference).toBe(true);
    expect(sent[0]!.canonical).toBeUndefined();
    expect(sent[0]!.payload).toBeUndefined();
    expect(JSON.stringify(sent[0]).length).toBeLessThan(10_000);
    expect(sameBytes(run.result.payload!, stored)).toBe(true);
    // Just under the bound, the bytes go inline.
    await runner({ ...input(), operation: "decode", decodeMode: "typed", canonical, payload: big.subarray(0, limit - canonical.length), blobs }, 5000);
    expect(sent[1]!.byReference).toBeUndefined();
    expect(typeof sent[1]!.payload).toBe("string");
  });

  it("gives a trial sent by reference the worker's report secret, so that every blob call of it names the worker", async () => {
    const control = new FakeControl();
    const client = workerClient(createRouterTransport(control.routes));
    const secret = new WorkerSecret();
    secret.value = "secret-of-browser-1";
    const canonical = canonicalPb("dummy").slice();
    const limit = 4096;
    const big = new Uint8Array(limit).map((_, i) => (i * 13) & 0xff);
    const blobs = { canonical: { id: control.putBlob(canonical), size: canonical.length }, payload: { id: control.putBlob(big), size: big.length } };
    const stored = new Uint8Array(5000).map((_, i) => (i * 5) & 0xff);
    const sent: WireTrialInput[] = [];
    const runner = browserTrials(async (wire) => {
      sent.push(wire);
      // The trial page's side (src/trial/host.ts): its client names the worker by the wire's secret.
      const pageSecret = new WorkerSecret();
      pageSecret.value = wire.reportSecret ?? "";
      const back = await fetchWireInput(wire, () => withWorkerSecret(client, pageSecret));
      expect(back).not.toHaveProperty("reportSecret");
      return { result: { failure: "", payloadBytes: back.payload!.length, extras: {}, payloadBlob: { id: control.putBlob(stored), size: stored.length } }, startMs: 1, totalMs: 2 };
    }, undefined, undefined, withWorkerSecret(client, secret), limit, secret);
    const run = await runner({ ...input(), operation: "decode", decodeMode: "typed", canonical, payload: big, blobs }, 5000);
    expect(run.result.failure).toBe("");
    expect(sent[0]!.reportSecret).toBe("secret-of-browser-1");
    // The trial page's two fetches, then the worker page's fetch of the stored payload.
    expect(control.secrets).toEqual(Array(3).fill("GetBlob secret-of-browser-1"));
    // Inline, nothing to fetch: the secret stays in the worker page.
    await runner({ ...input(), operation: "decode", decodeMode: "typed", canonical, payload: big.subarray(0, 10), blobs }, 5000);
    expect(sent[1]).not.toHaveProperty("reportSecret");
  });

  it("refuses a trial too large to carry inline that names no blobs, without launching a browser", async () => {
    let launched = 0;
    const runner = browserTrials(async () => {
      launched += 1;
      return { result: { failure: "", payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 };
    });
    const payload = new Uint8Array(MAX_BROWSER_TRIAL_BYTES);
    const run = await runner({ ...input(), operation: "decode", decodeMode: "typed", payload }, 5000);
    expect(launched).toBe(0);
    expect(run.result.failure).toMatch(/^trial refused: its canonical records and payload \(64\.\d MiB\) exceed the 64\.0 MiB a browser trial can carry inline .* names no blobs in control/);
  });

  it("fails a by-reference trial whose stored payload does not match its id", async () => {
    const control = new FakeControl();
    const client = workerClient(createRouterTransport(control.routes));
    const canonical = canonicalPb("dummy").slice();
    const blobs = { canonical: { id: control.putBlob(canonical), size: canonical.length } };
    const runner = browserTrials(async () => ({ result: { failure: "", payloadBytes: 1, extras: {}, payloadBlob: { id: control.putBlob(new Uint8Array([1, 2, 3])), size: 4 } }, startMs: 0, totalMs: 0 }), undefined, undefined, client, 1000);
    const run = await runner({ ...input(), canonical: new Uint8Array(1001), blobs }, 5000);
    expect(run.result.failure).toMatch(/^trial failed: the payload the trial browser stored in control could not be fetched back: blob [0-9a-f]{64} has 3 bytes, 4 were expected/);
  });

  it("round-trips every byte value and the empty buffer through base64", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(fromBase64(toBase64(all))).toEqual(all);
    expect(fromBase64(toBase64(new Uint8Array(0)))).toEqual(new Uint8Array(0));
    const wire = toWireInput({ ...input(), payload: all });
    expect(fromWireInput(wire).payload).toEqual(all);
    expect(fromWireInput(wire).canonical).toEqual(input().canonical);
  });

  it("fails precisely when the driver throws, answers garbage or never answers", async () => {
    const thrown = await browserTrials(async () => {
      throw new Error("Chromium exited");
    })(input(), 1000);
    expect(thrown.result.failure).toBe("trial failed: the driver could not run the trial in a fresh browser: Chromium exited");
    const garbage = await browserTrials(async () => ({ result: { failure: "", payloadBytes: 1, extras: {}, payload: "%%%", phaseMs: { load: 2 } }, startMs: 0, totalMs: 0 }))(input(), 1000);
    expect(garbage.result.failure).toBe("trial failed: the fresh browser's payload is not valid base64");
    expect(garbage.result.phaseMs).toEqual({ load: 2 }); // what the trial measured, kept
    const silent = await browserTrials(() => new Promise(() => {}), 20)(input(), 30);
    expect(silent.result.failure).toBe("trial failed: the driver could not run the trial in a fresh browser: no answer within 0.05 s");
  });

  it("passes the fresh browser's own failure through unchanged", async () => {
    const run = await browserTrials(async () => ({ result: { failure: "decode failed: bad bytes", payloadBytes: 0, extras: {} }, startMs: 1, totalMs: 2 }))(input(), 1000);
    expect(run.result.failure).toBe("decode failed: bad bytes");
  });
});
