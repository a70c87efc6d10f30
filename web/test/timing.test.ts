import { describe, expect, it } from "vitest";
import { measureAsync, measureSync, median, spread, warmupVerdict, windowRounds } from "../src/worker/timing";
import { sink } from "../src/worker/sink";

const sampling = { warmupMs: 100, maxWarmupMs: 1000 };
const flat = (n: number, value = 100) => Array<number>(n).fill(value);
// Ops per round making a 100 ns/op round last 100 ms: the windows of 5 rounds last >= 300 ms.
const LONG = 1e6;

describe("steady-state decision", () => {
  it("is steady once warm-up time, 10 rounds and two agreeing windows of 5 are there", () => {
    expect(warmupVerdict(flat(10), LONG, 100, sampling)).toBe("steady");
    // Last five's median 104.9 vs 100 before: within 5 %.
    expect(warmupVerdict([...flat(5), ...flat(5, 104.9)], LONG, 150, sampling)).toBe("steady");
    expect(warmupVerdict([...flat(5), ...flat(5, 95.1)], LONG, 150, sampling)).toBe("steady");
  });

  it("goes on before warmup_ms, before 10 rounds, or while the medians still move", () => {
    expect(warmupVerdict(flat(50), LONG, 99, sampling)).toBe("continue");
    expect(warmupVerdict(flat(9), LONG, 500, sampling)).toBe("continue");
    expect(warmupVerdict([...flat(5, 200), ...flat(5, 100)], LONG, 500, sampling)).toBe("continue");
    expect(warmupVerdict([...flat(5), ...flat(5, 105.1)], LONG, 500, sampling)).toBe("continue");
    // Only the last two windows count: an old slow phase does not hold warm-up back.
    expect(warmupVerdict([...flat(5, 900), ...flat(10)], LONG, 500, sampling)).toBe("steady");
    // Medians, not means: one outlier round per window does not move them.
    expect(warmupVerdict([100, 100, 5000, 100, 100, 100, 100, 100, 9000, 100], LONG, 500, sampling)).toBe("steady");
  });

  it("widens the windows until both together last 300 ms (V8 tiers up over hundreds of ms)", () => {
    // Rounds of 6 ms (one op of 6e6 ns): 2 x 5 rounds last 60 ms, so windows grow to 25 rounds.
    const ms6 = (n: number, value = 6e6) => Array<number>(n).fill(value);
    expect(windowRounds(ms6(49), 1)).toBe(0);
    expect(windowRounds(ms6(50), 1)).toBe(25);
    expect(windowRounds(flat(10), LONG)).toBe(5);
    expect(warmupVerdict(ms6(10), 1, 500, sampling)).toBe("continue");
    expect(warmupVerdict(ms6(49), 1, 500, sampling)).toBe("continue");
    expect(warmupVerdict(ms6(50), 1, 500, sampling)).toBe("steady");
    // A 60 ms plateau of slower code (an earlier tier) before the last tier is not a steady state,
    // though its last two windows of 5 rounds agree...
    const plateau = [...ms6(20, 20e6), ...ms6(10, 9e6)];
    expect(median(plateau.slice(-5))).toBe(median(plateau.slice(-10, -5)));
    expect(warmupVerdict(plateau, 1, 500, sampling)).toBe("continue");
    // ...and the fast code counts once it has lasted as long.
    expect(warmupVerdict([...plateau, ...ms6(50)], 1, 800, sampling)).toBe("steady");
    expect(warmupVerdict([...plateau, ...ms6(20)], 1, 800, sampling)).toBe("continue");
  });

  it("stops at max_warmup_ms without a steady state (the caller marks it unsteady)", () => {
    expect(warmupVerdict([...flat(5, 200), ...flat(5, 100)], LONG, 1000, sampling)).toBe("cap");
    expect(warmupVerdict(flat(3), LONG, 1000, sampling)).toBe("cap");
    // The cap is never below warmup_ms.
    expect(warmupVerdict(flat(3), LONG, 150, { warmupMs: 200, maxWarmupMs: 100 })).toBe("continue");
    expect(warmupVerdict(flat(3), LONG, 200, { warmupMs: 200, maxWarmupMs: 100 })).toBe("cap");
  });
});

describe("timing loop", () => {
  it("calibrates, warms up to a steady state, keeps every round and sinks every result", async () => {
    let calls = 0;
    const before = sink.count;
    const sample = await measureSync(() => {
      calls++;
      return JSON.parse('{"a":[1,2,3]}');
    }, { warmupMs: 10, maxWarmupMs: 5000, rounds: 4, minRoundMs: 1 });
    expect(sample.roundNsPerOp).toHaveLength(4);
    expect(sample.warmupMs).toBeGreaterThanOrEqual(10);
    expect(sample.warmupRounds).toBeGreaterThanOrEqual(10);
    expect(sample.steady).toBe(true);
    expect(Math.log2(sample.opsPerRound) % 1).toBe(0);
    expect(sink.count - before).toBe(calls);
  });

  it("marks a trial unsteady when warm-up hits its cap", async () => {
    // An operation's cost grows with time (0.02 ms × (1 + t / 10 ms)): windows of 5 rounds of
    // >= 1 ms apart differ by > 5 % until well after the 60 ms cap.
    const start = performance.now();
    const sample = await measureSync(() => {
      const now = performance.now();
      const end = now + 0.02 * (1 + (now - start) / 10);
      while (performance.now() < end);
      return end;
    }, { warmupMs: 1, maxWarmupMs: 60, rounds: 2, minRoundMs: 1 });
    expect(sample.steady).toBe(false);
    expect(sample.warmupMs).toBeGreaterThanOrEqual(60);
  });

  it("calibrates ops_per_round to the smallest doubling that fills min_round_ms", async () => {
    // Each operation waits 0.3 ms on the clock: 8 of them fill 2 ms, 4 do not (a hiccup during
    // calibration on a busy machine can only make the count smaller, never larger: a 2 ms
    // preemption lets even a single operation fill the round, so the lower bound is 1).
    const busy = () => {
      const end = performance.now() + 0.3;
      while (performance.now() < end);
      return end;
    };
    const sample = await measureSync(busy, { warmupMs: 1, maxWarmupMs: 200, rounds: 3, minRoundMs: 2 });
    expect(sample.opsPerRound).toBeLessThanOrEqual(8);
    expect(Math.log2(sample.opsPerRound) % 1).toBe(0);
    for (const ns of sample.roundNsPerOp) expect(ns).toBeGreaterThanOrEqual(300_000);
  });

  it("re-calibrates once warm, so timed rounds still fill min_round_ms", async () => {
    // Cold: 1 ms per op for the first 10 ops (calibration settles on 2 ops); warm: 0.1 ms.
    let calls = 0;
    const op = () => {
      const end = performance.now() + (++calls <= 10 ? 1 : 0.1);
      while (performance.now() < end);
      return end;
    };
    const sample = await measureSync(op, { warmupMs: 1, maxWarmupMs: 5000, rounds: 3, minRoundMs: 2 });
    expect(sample.opsPerRound).toBeGreaterThanOrEqual(16);
    const sorted = [...sample.roundNsPerOp].sort((a, b) => a - b);
    expect(((sorted[1] ?? 0) * sample.opsPerRound) / 1e6).toBeGreaterThanOrEqual(1.8);
  });

  it("times async operations with the same sampler", async () => {
    let calls = 0;
    const sample = await measureAsync(async () => ++calls, { warmupMs: 0, maxWarmupMs: 200, rounds: 2, minRoundMs: 1 });
    expect(sample.warmupRounds).toBeGreaterThanOrEqual(1);
    expect(sample.roundNsPerOp).toHaveLength(2);
  });

  it("summarises rounds as median and spread", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(spread([90, 100, 110])).toBeCloseTo(0.2);
  });
});
