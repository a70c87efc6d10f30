package dev.codecbench.worker.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * Where a task's time goes (proto/README.md "Where the time goes"): ms by phase, carried in
 * {@code ReportResultRequest.phase_ms}. A stopwatch of laps: each lap adds the time since the
 * previous one (or the start) to a named phase. As Rust's rust/worker/src/phases.rs. Not
 * thread-safe: one per task, or per trial JVM.
 */
public final class Laps {
  private long last = System.nanoTime();
  private final Map<String, Double> ms = new HashMap<>();

  /** Adds the time since the last lap (or the start) to {@code phase}. */
  public void lap(String phase) {
    long now = System.nanoTime();
    add(phase, (now - last) / 1e6);
    last = now;
  }

  public void add(String phase, double millis) {
    ms.merge(phase, millis, Double::sum);
  }

  /**
   * Ends a lap that measured {@code sample}: its warm-up (calibration included) and timed rounds go
   * to {@code warmup} and {@code rounds}, the rest of the lap (the peak-heap probe and its GC, the
   * sampler's own work) to {@code other}.
   */
  public void measured(Sample sample) {
    long now = System.nanoTime();
    double lap = (now - last) / 1e6;
    last = now;
    add("warmup", sample.warmupMs());
    add("rounds", sample.roundsMs());
    add("other", Math.max(0, lap - sample.warmupMs() - sample.roundsMs()));
  }

  /** Folds in phases measured elsewhere (a trial JVM's own). */
  public void merge(Map<String, Double> other) {
    other.forEach(this::add);
  }

  /** The phases so far. */
  public Map<String, Double> ms() {
    return Map.copyOf(ms);
  }
}
