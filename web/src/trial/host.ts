import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { putBlob } from "../worker/blobs";
import { WorkerSecret, withWorkerSecret, workerClient, type WorkerClient } from "../worker/client";
import { fetchWireInput, toWireRun, webWorkerTrials, type WireTrialInput, type WireTrialRun } from "../worker/trials";

// The page of a fresh Chromium that codecbench's driver launches for one trial (see
// src/worker/trials.ts). It runs the trial exactly as a page opened by hand would, in a fresh
// dedicated Web Worker, so the timed code and its thread are the same; only the process tree
// around it is new. The driver calls codecbenchTrial once, then closes this page. A trial too
// large to carry inline comes by reference: this page fetches its blobs from control and stores
// an encode's payload there.

declare global {
  interface Window {
    codecbenchTrial?: (input: WireTrialInput, timeoutMs: number) => Promise<WireTrialRun>;
  }
}

// Control, for a trial sent by reference (created on first use; the page is served by control).
// Its blob calls carry the worker page's report secret, as the worker page's own do.
let client: WorkerClient | undefined;
const secret = new WorkerSecret();

window.codecbenchTrial = async (wire, timeoutMs) => {
  const status = document.getElementById("status");
  if (!crossOriginIsolated) {
    // The trial worker would refuse too; saying so here names the cause (headers, not the codec).
    const failure = "trial failed: the fresh browser's trial page is not cross-origin isolated (control must serve it with COOP/COEP), so it cannot time";
    return { result: { failure, payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 };
  }
  if (status) status.textContent = `Running ${wire.operation} ${wire.dataset} ${wire.codec} ${wire.decodeMode}`.trim();
  let input;
  secret.value = wire.reportSecret ?? "";
  try {
    input = await fetchWireInput(wire, () => (client ??= withWorkerSecret(workerClient(createGrpcWebTransport({ baseUrl: location.origin })), secret)));
  } catch (error) {
    const failure = `trial failed: the trial page could not fetch its blobs from control: ${error instanceof Error ? error.message : String(error)}`;
    return { result: { failure, payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 };
  }
  const run = await webWorkerTrials(input, timeoutMs);
  if (status) status.textContent = run.result.failure || "Done.";
  if (wire.byReference && run.result.payload && !run.result.failure) {
    // Too large to send back inline: stored in control, where the worker page fetches it.
    const { payload, ...result } = run.result;
    try {
      const stored = await putBlob(client!, payload);
      return { result: { ...result, payloadBlob: { id: stored.blobId, size: stored.size } }, startMs: run.startMs, totalMs: run.totalMs };
    } catch (error) {
      const failure = `trial failed: the trial page could not store its payload in control: ${error instanceof Error ? error.message : String(error)}`;
      return { result: { failure, payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 };
    }
  }
  return toWireRun(run);
};
