import { consume } from "./sink";

// One trial's timing (proto/README.md "Timing: one trial"): calibrate ops_per_round to the
// smallest power of two whose run takes >= min_round_ms; warm up in rounds of that size until a
// steady state (warmupVerdict) or the max_warmup_ms cap; then time `rounds` rounds with
// performance.now(), consuming every result. The browser exposes no JIT compilation counter, so
// the steady-state test is the round medians alone (said in the environment details).

export interface Sampling {
  readonly warmupMs: number;
  /** Cap on warm-up; reaching it without a steady state marks the sample unsteady. */
  readonly maxWarmupMs: number;
  readonly rounds: number;
  readonly minRoundMs: number;
}

export interface Sample {
  /** Each round's elapsed ns divided by opsPerRound, in order. */
  readonly roundNsPerOp: number[];
  readonly opsPerRound: number;
  /** How long calibration and warm-up ran, and how many warm-up rounds. */
  readonly calibrationMs: number;
  readonly warmupMs: number;
  readonly warmupRounds: number;
  /** True when warm-up ended at a steady state, false when it hit the cap. */
  readonly steady: boolean;
}

/** Runs `n` operations and returns the elapsed milliseconds. */
type TimeOps = (n: number) => number | Promise<number>;

// Steady state (proto/README.md): at least this many warm-up rounds, and the median of the last
// WINDOW rounds within TOLERANCE of the median of the WINDOW before.
export const MIN_WARMUP_ROUNDS = 10;
export const WINDOW = 5;
export const TOLERANCE = 0.05;
// Used when a task carries no cap (control always sends one).
export const DEFAULT_MAX_WARMUP_MS = 10_000;
// Doubling stops here even if the clock never advanced (a broken clock, not a fast codec).
const MAX_OPS_PER_ROUND = 2 ** 40;

export type WarmupVerdict = "continue" | "steady" | "cap";

/**
 * Whether warm-up may end, after `rounds` (ns/op of each warm-up round, in order) and `elapsedMs`
 * of warm-up: "steady" when it ran >= warmupMs and >= 10 rounds and the median of the last 5
 * rounds is within 5 % of the median of the 5 before; otherwise "cap" once elapsedMs reaches the
 * cap (max_warmup_ms, never below warmup_ms); otherwise "continue".
 */
export function warmupVerdict(rounds: readonly number[], elapsedMs: number, sampling: Pick<Sampling, "warmupMs" | "maxWarmupMs">): WarmupVerdict {
  if (elapsedMs >= sampling.warmupMs && rounds.length >= Math.max(MIN_WARMUP_ROUNDS, 2 * WINDOW)) {
    const last = median(rounds.slice(-WINDOW));
    const before = median(rounds.slice(-2 * WINDOW, -WINDOW));
    if (Math.abs(last - before) <= TOLERANCE * before) return "steady";
  }
  const cap = Math.max(sampling.maxWarmupMs || DEFAULT_MAX_WARMUP_MS, sampling.warmupMs);
  return elapsedMs >= cap ? "cap" : "continue";
}

async function sample(timeOps: TimeOps, sampling: Sampling): Promise<Sample> {
  // As the Rust reference does: at least one round, and rounds of at least 1 ms.
  const rounds = Math.max(1, sampling.rounds);
  const minRoundMs = Math.max(1, sampling.minRoundMs);

  const calibrationStart = performance.now();
  let opsPerRound = 1;
  while ((await timeOps(opsPerRound)) < minRoundMs) {
    if (opsPerRound >= MAX_OPS_PER_ROUND) throw new Error(`${opsPerRound} operations took no measurable time; the clock does not advance`);
    opsPerRound *= 2;
  }
  const calibrationMs = performance.now() - calibrationStart;

  const warmupStart = performance.now();
  const warmup: number[] = [];
  let verdict: WarmupVerdict;
  do {
    warmup.push(((await timeOps(opsPerRound)) * 1e6) / opsPerRound);
    verdict = warmupVerdict(warmup, performance.now() - warmupStart, sampling);
  } while (verdict === "continue");
  const warmupMs = performance.now() - warmupStart;

  const roundNsPerOp: number[] = [];
  for (let round = 0; round < rounds; round++) roundNsPerOp.push(((await timeOps(opsPerRound)) * 1e6) / opsPerRound);
  return { roundNsPerOp, opsPerRound, calibrationMs, warmupMs, warmupRounds: warmup.length, steady: verdict === "steady" };
}

/** Times a synchronous operation (a codec call): no await inside the timed loop. */
export function measureSync(operation: () => unknown, sampling: Sampling): Promise<Sample> {
  return sample((n) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) consume(operation());
    return performance.now() - start;
  }, sampling);
}

/** Times an asynchronous operation (a blob upload or download), one awaited call after another. */
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
