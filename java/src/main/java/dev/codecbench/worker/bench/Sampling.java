package dev.codecbench.worker.bench;

/**
 * Effective sampling of one operation. {@code warmupMs} is already raised to the JVM minimum:
 * the JIT needs time before the rounds mean anything.
 */
public record Sampling(long warmupMs, int rounds, long minRoundMs) {
  public Sampling {
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
    }
  }

  public static Sampling of(codecbench.v1.ScenarioOuterClass.Sampling task, long jvmMinWarmupMs) {
    return new Sampling(
        Math.max(Integer.toUnsignedLong(task.getWarmupMs()), jvmMinWarmupMs),
        task.getRounds(),
        Integer.toUnsignedLong(task.getMinRoundMs()));
  }
}
