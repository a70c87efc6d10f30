import { describe, expect, it } from "vitest";
import { Laps } from "../src/worker/laps";

// The stopwatch of phase_ms (proto/README.md "Where the time goes"), as rust/worker/src/phases.rs.

/** A clock that moves only when told. */
function fakeClock(start = 1000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe("phase stopwatch (Laps)", () => {
  it("adds the time since the previous lap to each lap's phase, and a phase's laps add up", () => {
    const clock = fakeClock();
    const laps = new Laps(clock.now);
    clock.advance(20);
    laps.lap("load");
    clock.advance(5);
    laps.lap("verify");
    clock.advance(7);
    laps.lap("load");
    expect(laps.phases()).toEqual({ load: 27, verify: 5 });
  });

  it("splits a measured lap into warmup (calibration + warm-up), rounds and the rest as other", () => {
    const clock = fakeClock();
    const laps = new Laps(clock.now);
    clock.advance(30);
    laps.measured({ calibrationMs: 2, warmupMs: 10, roundsMs: 15 });
    expect(laps.phases()).toEqual({ warmup: 12, rounds: 15, other: 3 });
    // A lap shorter than its sample's parts (clock grain) gives no negative rest.
    clock.advance(1);
    laps.measured({ calibrationMs: 0, warmupMs: 1, roundsMs: 1 });
    expect(laps.phases()).toEqual({ warmup: 13, rounds: 16, other: 3 });
    // The next lap starts where the measured one ended.
    clock.advance(4);
    laps.lap("other");
    expect(laps.phases()["other"]).toBe(7);
  });

  it("merges phases measured elsewhere, skipping absent and non-finite ones", () => {
    const laps = new Laps(fakeClock().now);
    laps.add("process", 40);
    laps.merge({ load: 1, process: 2, bad: Number.NaN });
    laps.merge(undefined);
    expect(laps.phases()).toEqual({ process: 42, load: 1 });
  });

  it("answers a copy, so later laps do not change a report already taken", () => {
    const clock = fakeClock();
    const laps = new Laps(clock.now);
    clock.advance(3);
    laps.lap("fetch");
    const taken = laps.phases();
    clock.advance(3);
    laps.lap("fetch");
    expect(taken).toEqual({ fetch: 3 });
    expect(laps.phases()).toEqual({ fetch: 6 });
  });

  it("runs on performance.now() by default", async () => {
    const laps = new Laps();
    await new Promise((resolve) => setTimeout(resolve, 20));
    laps.lap("load");
    // setTimeout may fire a hair early by performance.now()'s clock.
    expect(laps.phases()["load"]).toBeGreaterThanOrEqual(19);
  });
});
