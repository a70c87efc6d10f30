import { describe, expect, it } from "vitest";
import { measureAsync, measureSync, median, spread, warmupVerdict } from "../src/worker/timing";
import { sink } from "../src/worker/sink";

const sampling = { warmupMs: 100, maxWarmupMs: 1000 };
const flat = (n: number, value = 100) => Array<number>(n).fill(value);

describe("steady-state decision", () => {
  it("is steady once warm-up time, 10 rounds and two agreeing windows of 5 are there", () => {
    expect(warmupVerdict(flat(10), 100, sampling)).toBe("steady");
    // Last five's median 104.9 vs 100 before: within 5 %.
    expect(warmupVerdict([...flat(5), ...flat(5, 104.9)], 150, sampling)).toBe("steady");
    expect(warmupVerdict([...flat(5), ...flat(5, 95.1)], 150, sampling)).toBe("steady");
  });

  it("goes on before warmup_ms, before 10 rounds, or while the medians still move", () => {
    expect(warmupVerdict(flat(50), 99, sampling)).toBe("continue");
    expect(warmupVerdict(flat(9), 500, sampling)).toBe("continue");
    expect(warmupVerdict([...flat(5, 200), ...flat(5, 100)], 500, sampling)).toBe("continue");
    expect(warmupVerdict([...flat(5), ...flat(5, 105.1)], 500, sampling)).toBe("continue");
    // Only the last two windows count: an old slow phase does not hold warm-up back.
    expect(warmupVerdict([...flat(5, 900), ...flat(10)], 500, sampling)).toBe("steady");
    // Medians, not means: one outlier round per window does not move them.
    expect(warmupVerdict([100, 100, 5000, 100, 100, 100, 100, 100, 9000, 100], 500, sampling)).toBe("steady");
  });

  it("stops at max_warmup_ms without a steady state (the caller marks it unsteady)", () => {
    expect(warmupVerdict([...flat(5, 200), ...flat(5, 100)], 1000, sampling)).toBe("cap");
    expect(warmupVerdict(flat(3), 1000, sampling)).toBe("cap");
    // The cap is never below warmup_ms.
    expect(warmupVerdict(flat(3), 150, { warmupMs: 200, maxWarmupMs: 100 })).toBe("continue");
    expect(warmupVerdict(flat(3), 200, { warmupMs: 200, maxWarmupMs: 100 })).toBe("cap");
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
