import { describe, expect, it } from "vitest";
import type { TrialInput } from "../src/trial/trial";
import { workerTrials, type WorkerLike } from "../src/worker/trials";
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
