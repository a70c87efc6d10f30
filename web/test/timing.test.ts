import { describe, expect, it } from "vitest";
import { measureAsync, measureSync, median, spread } from "../src/worker/timing";
import { sink } from "../src/worker/sink";

describe("timing loop", () => {
  it("warms up, calibrates rounds to min_round_ms and keeps every round", async () => {
    let calls = 0;
    const before = sink.count;
    const sample = await measureSync(() => {
      calls++;
      return JSON.parse('{"a":[1,2,3]}');
    }, { warmupMs: 10, rounds: 4, minRoundMs: 3 });
    expect(sample.roundNsPerOp).toHaveLength(4);
    expect(sample.warmupMs).toBeGreaterThanOrEqual(10);
    expect(sample.warmupOps).toBeGreaterThan(0);
    expect(Math.log2(sample.opsPerRound) % 1).toBe(0);
    // Every result went to the sink.
    expect(sink.count - before).toBe(calls);
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
    const sample = await measureSync(busy, { warmupMs: 1, rounds: 3, minRoundMs: 2 });
    expect(sample.opsPerRound).toBeLessThanOrEqual(8);
    expect(Math.log2(sample.opsPerRound) % 1).toBe(0);
    for (const ns of sample.roundNsPerOp) expect(ns).toBeGreaterThanOrEqual(300_000);
  });

  it("runs at least once even with no warm-up, and times async operations", async () => {
    let calls = 0;
    const sample = await measureAsync(async () => ++calls, { warmupMs: 0, rounds: 2, minRoundMs: 1 });
    expect(sample.warmupOps).toBe(1);
    expect(sample.roundNsPerOp).toHaveLength(2);
  });

  it("summarises rounds as median and spread", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(spread([90, 100, 110])).toBeCloseTo(0.2);
  });
});
