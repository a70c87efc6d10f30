import type { TrialMessage } from "../trial/entry";
import { runTrial, type TrialInput, type TrialResult } from "../trial/trial";
import { Laps } from "../worker/laps";
import { timerResolutionUs } from "../worker/timing";
import { allowedCpus, laneMismatch } from "./cpus";
import { FrameReader, frame } from "./frames";
import { heapMeter } from "./memory";

// One trial in a fresh Node process (proto/README.md "Trials"): the Node worker starts this
// script per trial (src/node/trials.ts; under `taskset -c` for a lane), so no trial inherits JIT
// profiles, heap or allocator state from another. It is the Web Worker of src/trial/entry.ts in a
// process of its own: "ready" once loaded, then the one trial it is given (src/trial/trial.ts:
// canonical → model, verification, warm-up to a steady state, the rounds), its result, and exit.
// Messages go as frames on stdout (src/node/frames.ts), so nothing else may write there.

console.log = console.info = console.debug = console.error;

// The clock probe, as in the browser's trial worker (performance.now() is Node's monotonic clock).
const TIMER_BUDGET_MS = 5;

function post(message: TrialMessage): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(frame(message), (error) => (error ? reject(error) : resolve())));
}

async function trial(input: TrialInput): Promise<TrialResult> {
  // The trial's own start of work: its phases count from here (the process's start, the input's
  // way in and the result's way out are the worker's `process`).
  const laps = new Laps();
  const resolutionUs = timerResolutionUs(TIMER_BUDGET_MS);
  const cpus = allowedCpus();
  laps.lap("other");
  const mismatch = input.cpus?.length ? laneMismatch(cpus, input.cpus) : null;
  const result: TrialResult = mismatch ? { failure: `trial failed: ${mismatch}`, payloadBytes: 0, extras: {}, phaseMs: laps.phases() } : await runTrial(input, laps, heapMeter());
  result.extras.timer_resolution_us = resolutionUs;
  // V8 in Node exposes no JIT compilation counter to a script: steady state is judged by round medians only.
  result.extras.jit_observable = 0;
  if (cpus) result.trialCpus = cpus;
  return result;
}

const reader = new FrameReader();
let started = false;
process.stdin.on("data", (chunk: Buffer) => {
  for (const value of reader.push(chunk)) {
    if (started) continue;
    started = true;
    void trial(value as TrialInput)
      .then((result) => post({ kind: "result", result }))
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        process.stderr.write(`codecbench node trial: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      });
  }
});
void post({ kind: "ready" });
