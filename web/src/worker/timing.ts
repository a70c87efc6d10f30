import { consume } from "./sink";
import { yieldToEventLoop } from "./yield";

// The timing loop of proto/README.md: warm up for warmup_ms (at least one operation), calibrate
// ops_per_round by doubling until a round takes min_round_ms, then time `rounds` rounds with
// performance.now(), consuming every result. Only the operation is inside the timed loop; the
// loop yields to the event loop between rounds so the page stays responsive.

export interface Sampling {
  readonly warmupMs: number;
  readonly rounds: number;
  readonly minRoundMs: number;
}

export interface Sample {
  /** Each round's elapsed ns divided by opsPerRound, in order. */
  readonly roundNsPerOp: number[];
  readonly opsPerRound: number;
  /** How long the warm-up actually ran, and how many operations it did. */
  readonly warmupMs: number;
  readonly warmupOps: number;
}

/** Runs `n` operations and returns the elapsed milliseconds. */
type TimeOps = (n: number) => number | Promise<number>;

// A long warm-up or calibration also gives the event loop a turn this often.
const YIELD_EVERY_MS = 50;
// Doubling stops here even if the clock never advanced (a broken clock, not a fast codec).
const MAX_OPS_PER_ROUND = 2 ** 40;

async function sample(timeOps: TimeOps, sampling: Sampling): Promise<Sample> {
  // As the Rust reference does: at least one round, and rounds of at least 1 ms.
  const rounds = Math.max(1, sampling.rounds);
  const minRoundMs = Math.max(1, sampling.minRoundMs);
  const warmupStart = performance.now();
  let lastYield = warmupStart;
  let warmupOps = 0;
  do {
    await timeOps(1);
    warmupOps++;
    const now = performance.now();
    if (now - lastYield >= YIELD_EVERY_MS) {
      await yieldToEventLoop();
      lastYield = performance.now();
    }
  } while (performance.now() - warmupStart < sampling.warmupMs);
  const warmupMs = performance.now() - warmupStart;

  let opsPerRound = 1;
  for (;;) {
    await yieldToEventLoop();
    if ((await timeOps(opsPerRound)) >= minRoundMs) break;
    if (opsPerRound >= MAX_OPS_PER_ROUND) throw new Error(`${opsPerRound} operations took no measurable time; the clock does not advance`);
    opsPerRound *= 2;
  }

  const roundNsPerOp: number[] = [];
  for (let round = 0; round < rounds; round++) {
    await yieldToEventLoop();
    roundNsPerOp.push(((await timeOps(opsPerRound)) * 1e6) / opsPerRound);
  }
  return { roundNsPerOp, opsPerRound, warmupMs, warmupOps };
}

/** Times a synchronous operation (a codec call): no await inside the timed loop. */
export function measureSync(operation: () => unknown, sampling: Sampling): Promise<Sample> {
  return sample((n) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) consume(operation());
    return performance.now() - start;
  }, sampling);
}

/** Times an asynchronous operation (a blob transfer), one awaited call after another. */
export function measureAsync(operation: () => Promise<unknown>, sampling: Sampling): Promise<Sample> {
  return sample(async (n) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) consume(await operation());
    return performance.now() - start;
  }, sampling);
}

/** The smallest step performance.now() takes here, in microseconds (5 when isolated in Chromium). */
export function timerResolutionUs(budgetMs = 20): number {
  let smallest = Infinity;
  const end = performance.now() + budgetMs;
  let previous = performance.now();
  while (previous < end) {
    const now = performance.now();
    if (now > previous) {
      smallest = Math.min(smallest, now - previous);
      previous = now;
    }
  }
  return smallest * 1000;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** (max - min) / median: how far apart the rounds are, as a fraction of the median. */
export function spread(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  return (Math.max(...values) - Math.min(...values)) / median(values);
}
