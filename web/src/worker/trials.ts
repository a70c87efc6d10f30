import type { TrialMessage } from "../trial/entry";
import { runTrial, type TrialInput, type TrialResult } from "../trial/trial";

// How the page runs a trial. In the page: a fresh dedicated Web Worker per trial (the browser's
// fresh process), terminated afterwards whatever happened. In Node tests of the protocol: in
// process (the Chromium tests cover the Web Worker path).

export interface TrialRun {
  result: TrialResult;
  /** From creating the worker to its "ready" (module loaded and evaluated); 0 in process. */
  startMs: number;
  /** From creating the worker (or starting in process) to the result. */
  totalMs: number;
}

export type TrialRunner = (input: TrialInput, timeoutMs: number) => Promise<TrialRun>;

/** Runs the trial in this JavaScript context (tests without a browser). */
export const inProcessTrials: TrialRunner = async (input) => {
  const start = performance.now();
  const result = await runTrial(input);
  return { result, startMs: 0, totalMs: performance.now() - start };
};

/** What the runner needs of a Worker (a fake one in unit tests). */
export type WorkerLike = Pick<Worker, "postMessage" | "terminate" | "addEventListener">;

function failed(failure: string): TrialResult {
  return { failure, payloadBytes: 0, extras: {} };
}

/** A runner starting a fresh dedicated worker from `create` per trial. */
export function workerTrials(create: () => WorkerLike): TrialRunner {
  return (input, timeoutMs) =>
    new Promise<TrialRun>((resolve) => {
      const start = performance.now();
      let startMs = 0;
      let worker: WorkerLike | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (result: TrialResult) => {
        clearTimeout(timer);
        worker?.terminate();
        worker = undefined;
        resolve({ result, startMs, totalMs: performance.now() - start });
      };
      try {
        worker = create();
      } catch (error) {
        finish(failed(`trial failed: could not start a trial worker: ${error instanceof Error ? error.message : String(error)}`));
        return;
      }
      timer = setTimeout(() => finish(failed(`trial failed: the trial worker gave no answer within ${timeoutMs / 1000} s; it was terminated`)), timeoutMs);
      worker.addEventListener("message", (event: MessageEvent<TrialMessage>) => {
        if (!worker) return;
        const message = event.data;
        if (message.kind === "ready") {
          startMs = performance.now() - start;
          // The payload and canonical copies move to the worker (transferred, not copied).
          const transfer = [input.canonical.buffer, input.payload?.buffer].filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer);
          worker.postMessage(input, { transfer });
        } else if (message.kind === "result") {
          finish(message.result);
        } else {
          finish(failed(`trial failed: the trial worker sent an unknown message ${JSON.stringify(message)}`));
        }
      });
      worker.addEventListener("messageerror", () => finish(failed("trial failed: the trial worker's message could not be deserialised")));
      worker.addEventListener("error", (event: ErrorEvent) => {
        event.preventDefault?.();
        // A script that fails to load gives an error event without a message.
        const where = event.filename ? ` (${event.filename}:${event.lineno})` : "";
        finish(failed(`trial failed: the trial worker crashed: ${event.message || "it failed to load or ran out of memory"}${where}`));
      });
    });
}

/** The page's runner: a module worker built by Vite from src/trial/entry.ts. */
export const webWorkerTrials: TrialRunner = workerTrials(() => new Worker(new URL("../trial/entry.ts", import.meta.url), { type: "module", name: "codecbench-trial" }));
