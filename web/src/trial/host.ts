import { fromWireInput, toWireRun, webWorkerTrials, type WireTrialInput, type WireTrialRun } from "../worker/trials";

// The page of a fresh Chromium that codecbench's driver launches for one trial (see
// src/worker/trials.ts). It runs the trial exactly as a page opened by hand would, in a fresh
// dedicated Web Worker, so the timed code and its thread are the same; only the process tree
// around it is new. The driver calls codecbenchTrial once, then closes this browser.

declare global {
  interface Window {
    codecbenchTrial?: (input: WireTrialInput, timeoutMs: number) => Promise<WireTrialRun>;
  }
}

window.codecbenchTrial = async (wire, timeoutMs) => {
  const status = document.getElementById("status");
  if (!crossOriginIsolated) {
    // The trial worker would refuse too; saying so here names the cause (headers, not the codec).
    const failure = "trial failed: the fresh browser's trial page is not cross-origin isolated (control must serve it with COOP/COEP), so it cannot time";
    return { result: { failure, payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 };
  }
  if (status) status.textContent = `Running ${wire.operation} ${wire.dataset} ${wire.codec} ${wire.decodeMode}`.trim();
  const run = await webWorkerTrials(fromWireInput(wire), timeoutMs);
  if (status) status.textContent = run.result.failure || "Done.";
  return toWireRun(run);
};
