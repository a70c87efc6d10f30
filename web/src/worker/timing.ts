import { consume } from "./sink";

// One trial's timing (proto/README.md "Timing: one trial"): calibrate ops_per_round to the
// smallest power of two whose run takes >= min_round_ms; warm up in rounds of that size until a
// steady state (warmupVerdict: two agreeing windows lasting >= 300 ms) or the max_warmup_ms cap;
// then time `rounds` rounds with performance.now(), consuming every result. The browser exposes no JIT compilation counter, so
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
  /** How long the timed rounds ran, wall time (their rounds plus the loop between them). */
  readonly roundsMs: number;
  /** True when warm-up ended at a steady state, false when it hit the cap. */
  readonly steady: boolean;
  /** Heap bytes allocated per operation during the timed rounds, where a meter counted them. */
  readonly allocBytesPerOp?: number;
  /** The heap one operation needs at once, where a meter counts: what one operation allocates, run
   *  once after the rounds, outside timing (an upper bound of its live heap's peak growth, as the
   *  Java worker counts it when no collection runs). */
  readonly peakHeapBytes?: number;
}

/**
 * Counts the heap bytes allocated between start() and stop() (the timed rounds), where the
 * runtime can: the Node worker's v8.GCProfiler meter (src/node/memory.ts). A page has none.
 */
export interface AllocationMeter {
  start(): void;
  /** Bytes allocated since start(). */
  stop(): number;
}

/** Runs `n` operations and returns the elapsed milliseconds. */
type TimeOps = (n: number) => number | Promise<number>;

// Steady state (proto/README.md): at least this many warm-up rounds, and the median of the last
// window of rounds within TOLERANCE of the median of the window before. A window holds at least
// WINDOW rounds, and more until the two windows together last QUIET_MS: V8 tiers a hot function up
// (Sparkplug, Maglev, TurboFan on a background thread) over hundreds of ms, and two windows of 5
// rounds of 10 ms fit inside one tier's plateau, so warm-up ended before the last tier arrived and
// the timed rounds ran older code (the 30-90 % slower browser trials of the first A/A run). The
// Java worker holds its quiet window to the same length.
export const MIN_WARMUP_ROUNDS = 10;
export const WINDOW = 5;
export const TOLERANCE = 0.05;
export const QUIET_MS = 300;
// Used when a task carries no cap (control always sends one).
export const DEFAULT_MAX_WARMUP_MS = 10_000;
// Doubling stops here even if the clock never advanced (a broken clock, not a fast codec).
const MAX_OPS_PER_ROUND = 2 ** 40;

export type WarmupVerdict = "continue" | "steady" | "cap";

/**
 * The rounds per window: the smallest k >= WINDOW whose last 2k rounds (ns/op × opsPerRound) last
 * at least QUIET_MS; 0 while the rounds so far are too few or too short.
 */
export function windowRounds(rounds: readonly number[], opsPerRound: number): number {
  let ms = 0;
  for (let n = 1; n <= rounds.length; n++) {
    ms += (rounds[rounds.length - n]! * opsPerRound) / 1e6;
    if (n % 2 === 0 && n >= 2 * WINDOW && ms >= QUIET_MS) return n / 2;
  }
  return 0;
}

/**
 * Whether warm-up may end, after `rounds` (ns/op of each warm-up round of `opsPerRound` ops, in
 * order) and `elapsedMs` of warm-up: "steady" when it ran >= warmupMs and >= 10 rounds and the
 * median of the last window is within 5 % of the median of the window before (windowRounds);
 * otherwise "cap" once elapsedMs reaches the cap (max_warmup_ms, never below warmup_ms);
 * otherwise "continue".
 */
export function warmupVerdict(rounds: readonly number[], opsPerRound: number, elapsedMs: number, sampling: Pick<Sampling, "warmupMs" | "maxWarmupMs">): WarmupVerdict {
  const k = windowRounds(rounds, opsPerRound);
  if (elapsedMs >= sampling.warmupMs && rounds.length >= MIN_WARMUP_ROUNDS && k > 0) {
    const last = median(rounds.slice(-k));
    const before = median(rounds.slice(-2 * k, -k));
    if (Math.abs(last - before) <= TOLERANCE * before) return "steady";
  }
  const cap = Math.max(sampling.maxWarmupMs || DEFAULT_MAX_WARMUP_MS, sampling.warmupMs);
  return elapsedMs >= cap ? "cap" : "continue";
}

async function sample(timeOps: TimeOps, sampling: Sampling, meter?: AllocationMeter): Promise<Sample> {
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
  let warmup: number[] = [];
  let warmupRounds = 0;
  let verdict: WarmupVerdict = "continue";
  while (verdict === "continue") {
    const tookMs = await timeOps(opsPerRound);
    warmup.push((tookMs * 1e6) / opsPerRound);
    warmupRounds++;
    // Calibration ran on cold code; once warm, a round may no longer fill minRoundMs: double the
    // ops and judge the warm-up again from there (as the Rust and Java workers do).
    const capMs = Math.max(sampling.maxWarmupMs || DEFAULT_MAX_WARMUP_MS, sampling.warmupMs);
    if (tookMs < minRoundMs && warmup.length >= 5 && opsPerRound < MAX_OPS_PER_ROUND && performance.now() - warmupStart < capMs) {
      opsPerRound *= 2;
      warmup = [];
      continue;
    }
    verdict = warmupVerdict(warmup, opsPerRound, performance.now() - warmupStart, sampling);
  }
  const warmupMs = performance.now() - warmupStart;

  // Allocated before the meter starts, so that only the operations are counted (as Rust does).
  const perRound = new Float64Array(rounds);
  meter?.start();
  const roundsStart = performance.now();
  for (let round = 0; round < rounds; round++) perRound[round] = ((await timeOps(opsPerRound)) * 1e6) / opsPerRound;
  const roundsMs = performance.now() - roundsStart;
  const allocated = meter?.stop();
  // After the rounds and their counters: outside timing.
  let peakHeapBytes: number | undefined;
  if (meter) {
    meter.start();
    await timeOps(1);
    peakHeapBytes = meter.stop();
  }
  const roundNsPerOp = Array.from(perRound);
  const counted = allocated === undefined ? {} : { allocBytesPerOp: allocated / (opsPerRound * rounds), peakHeapBytes };
  return { roundNsPerOp, opsPerRound, calibrationMs, warmupMs, warmupRounds, roundsMs, steady: verdict === "steady", ...counted };
}

/** Times a synchronous operation (a codec call): no await inside the timed loop; `meter` counts the rounds' allocation. */
export function measureSync(operation: () => unknown, sampling: Sampling, meter?: AllocationMeter): Promise<Sample> {
  return sample((n) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) consume(operation());
    return performance.now() - start;
  }, sampling, meter);
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
