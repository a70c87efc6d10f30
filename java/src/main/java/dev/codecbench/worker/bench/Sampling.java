package dev.codecbench.worker.bench;

/**
 * Effective sampling of one operation. {@code warmupMs} is already raised to the JVM minimum (the
 * JIT needs time before the rounds mean anything); the warm-up goes on past it while the JIT is
 * still compiling, up to {@code maxWarmupMs}.
 */
public record Sampling(long warmupMs, long maxWarmupMs, int rounds, long minRoundMs) {
  /** How far past its minimum a warm-up may run while the JIT is still busy: this factor... */
  public static final int MAX_WARMUP_FACTOR = 5;
  /** ...or this long, whichever is more (a short minimum still leaves the JIT time to finish). */
  public static final long MAX_WARMUP_FLOOR_MS = 3000;

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
    return new Sampling(warmup, Math.max(warmup * MAX_WARMUP_FACTOR, MAX_WARMUP_FLOOR_MS), task.getRounds(),
        Integer.toUnsignedLong(task.getMinRoundMs()));
  }
}
