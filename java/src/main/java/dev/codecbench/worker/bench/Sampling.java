package dev.codecbench.worker.bench;

/**
 * Effective sampling of one trial. {@code warmupMs} is the minimum warm-up (already raised to the
 * worker's JVM minimum); warm-up goes on to a steady state, at most {@code maxWarmupMs}.
 */
public record Sampling(long warmupMs, long maxWarmupMs, int rounds, long minRoundMs) {
  /** scenario.proto's default cap, for a task that does not carry one. */
  public static final long DEFAULT_MAX_WARMUP_MS = 10_000;

  public Sampling {
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
    }
    if (maxWarmupMs < warmupMs) {
      throw new IllegalArgumentException("maximum warm-up " + maxWarmupMs + " ms is below the minimum " + warmupMs);
    }
  }

  public static Sampling of(codecbench.v1.ScenarioOuterClass.Sampling task, long jvmMinWarmupMs) {
    long warmup = Math.max(Integer.toUnsignedLong(task.getWarmupMs()), jvmMinWarmupMs);
    long max = task.getMaxWarmupMs() == 0 ? DEFAULT_MAX_WARMUP_MS : Integer.toUnsignedLong(task.getMaxWarmupMs());
    return new Sampling(warmup, Math.max(max, warmup), task.getRounds(), Integer.toUnsignedLong(task.getMinRoundMs()));
  }
}
