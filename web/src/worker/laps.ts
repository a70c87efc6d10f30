import type { Sample } from "./timing";

// Where a task's time goes (proto/README.md "Where the time goes"): ms by phase, carried in
// ReportResultRequest.phase_ms. A stopwatch of laps, as the Rust worker's (rust/worker/src/phases.rs):
// each lap adds the time since the previous one (or the start) to a named phase. No imports
// beyond a type: the attached page (task.ts) and the trial worker (trial/trial.ts, trial/entry.ts)
// both use it, and it must not pull trial code or codecs into the page bundle.

/** ms by phase: total, fetch, transfer, process (the attached page); load, verify, warmup, rounds, other (the trial). */
export type PhaseMs = Record<string, number>;

export class Laps {
  private last: number;
  private readonly ms: PhaseMs = {};

  /** Starts now; `now` is the clock (performance.now(), or a fake one in tests). */
  constructor(private readonly now: () => number = () => performance.now()) {
    this.last = now();
  }

  /** Adds the time since the last lap (or the start) to `phase`. */
  lap(phase: string): void {
    const now = this.now();
    this.add(phase, now - this.last);
    this.last = now;
  }

  add(phase: string, ms: number): void {
    this.ms[phase] = (this.ms[phase] ?? 0) + ms;
  }

  /**
   * Ends a lap that measured `sample`: its calibration and warm-up go to `warmup`, its timed
   * rounds to `rounds`, the rest of the lap (the sampler's own work) to `other`.
   */
  measured(sample: Pick<Sample, "calibrationMs" | "warmupMs" | "roundsMs">): void {
    const now = this.now();
    const lap = now - this.last;
    this.last = now;
    const warmup = sample.calibrationMs + sample.warmupMs;
    this.add("warmup", warmup);
    this.add("rounds", sample.roundsMs);
    this.add("other", Math.max(0, lap - warmup - sample.roundsMs));
  }

  /** Folds in phases measured elsewhere (a trial's own); absent or non-finite values are skipped. */
  merge(other: Readonly<PhaseMs> | undefined): void {
    for (const [phase, ms] of Object.entries(other ?? {})) if (Number.isFinite(ms)) this.add(phase, ms);
  }

  /** The phases so far (a copy). */
  phases(): PhaseMs {
    return { ...this.ms };
  }
}
