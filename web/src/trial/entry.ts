import { Laps } from "../worker/laps";
import { timerResolutionUs } from "../worker/timing";
import { runTrial, type TrialInput, type TrialResult } from "./trial";

// The dedicated Web Worker of one trial (a fresh V8 isolate and heap: no JIT profile, no heap
// from other trials). It says "ready" once loaded, runs the one trial it is given, posts the
// result (transferring the payload) and is terminated by the page.

export type TrialMessage = { kind: "ready" } | { kind: "result"; result: TrialResult };

// Measured here because the clock a worker sees is its own (isolation coarsens it when missing).
const TIMER_BUDGET_MS = 5;

function post(message: TrialMessage, transfer: Transferable[] = []): void {
  postMessage(message, { transfer });
}

addEventListener("message", (event: MessageEvent<TrialInput>) => {
  // The trial's own start of work: its phases (proto/README.md "Where the time goes") count from
  // here; the worker's start, the input's transfer and the result's way back are the page's `process`.
  const laps = new Laps();
  void (async () => {
    const isolated = globalThis.crossOriginIsolated === true;
    const resolutionUs = timerResolutionUs(TIMER_BUDGET_MS);
    // The clock probe is the trial's own overhead, not loading the dataset or the codec.
    laps.lap("other");
    const result: TrialResult = isolated
      ? await runTrial(event.data, laps)
      : { failure: `trial failed: the trial worker is not cross-origin isolated, so performance.now() is coarse (${resolutionUs.toFixed(1)} µs); refusing to time`, payloadBytes: 0, extras: {}, phaseMs: laps.phases() };
    result.extras.timer_resolution_us = resolutionUs;
    result.extras.cross_origin_isolated = isolated ? 1 : 0;
    // There is no JIT compilation counter in a browser: steady state is judged by round medians only.
    result.extras.jit_observable = 0;
    post({ kind: "result", result }, result.payload ? [result.payload.buffer as ArrayBuffer] : []);
  })();
});

post({ kind: "ready" });
