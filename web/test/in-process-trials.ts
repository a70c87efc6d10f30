import { runTrial } from "../src/trial/trial";
import type { TrialRunner } from "../src/worker/trials";

/** Runs the trial in this JavaScript context (protocol tests in Node, without a browser). */
export const inProcessTrials: TrialRunner = async (input) => {
  const start = performance.now();
  const result = await runTrial(input);
  return { result, startMs: 0, totalMs: performance.now() - start };
};
