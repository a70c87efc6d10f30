package dev.codecbench.worker.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Warm-up, calibration and rounds (proto/README.md, "Timing"). Only {@code op} runs between the
 * clock reads; every result goes to the {@link Sink}.
 */
public final class Sampler {
  /** One operation; its result is consumed so it cannot be optimised away. */
  @FunctionalInterface
  public interface Op {
    Object run() throws Exception;
  }

  // Calibration stops doubling here: a single op that fast is below any clock's meaning anyway.
  private static final long MAX_OPS_PER_ROUND = 1L << 30;

  private final com.sun.management.ThreadMXBean threads;
  private final List<GarbageCollectorMXBean> collectors;

  public Sampler() {
    this.threads = allocationCounter();
    this.collectors = ManagementFactory.getGarbageCollectorMXBeans();
  }

  private static com.sun.management.ThreadMXBean allocationCounter() {
    if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
        && t.isThreadAllocatedMemorySupported()) {
      t.setThreadAllocatedMemoryEnabled(true);
      return t;
    }
    return null;
  }

  /**
   * Measures {@code op}. With {@code countAllocations} false (or a JVM without the counter) no
   * allocation figure is given: only this thread's allocations are counted, which is wrong for
   * operations whose work happens on other threads.
   */
  public Sample measure(Op op, Sampling s, boolean countAllocations) throws Exception {
    long warmStart = System.nanoTime();
    long warmDeadline = warmStart + s.warmupMs() * 1_000_000L;
    do {
      Sink.consume(op.run());
    } while (System.nanoTime() < warmDeadline);
    double warmupMs = (System.nanoTime() - warmStart) / 1e6;

    long minRoundNs = s.minRoundMs() * 1_000_000L;
    long ops = 1;
    while (timeOps(op, ops) < minRoundNs && ops < MAX_OPS_PER_ROUND) {
      ops *= 2;
    }

    boolean counting = countAllocations && threads != null;
    List<Double> rounds = new ArrayList<>(s.rounds());
    long gcMsBefore = gcTimeMs();
    long gcCountBefore = gcCount();
    long allocBefore = counting ? threads.getCurrentThreadAllocatedBytes() : 0;
    for (int r = 0; r < s.rounds(); r++) {
      rounds.add((double) timeOps(op, ops) / ops);
    }
    long allocAfter = counting ? threads.getCurrentThreadAllocatedBytes() : 0;
    long gcMs = gcTimeMs() - gcMsBefore;
    long gcCount = gcCount() - gcCountBefore;

    OptionalDouble alloc =
        counting
            // The list above grows by one Double per round; that is noise next to a codec op.
            ? OptionalDouble.of((double) (allocAfter - allocBefore) / ((double) ops * s.rounds()))
            : OptionalDouble.empty();
    return new Sample(List.copyOf(rounds), ops, alloc, warmupMs, gcMs, gcCount);
  }

  private static long timeOps(Op op, long ops) throws Exception {
    long start = System.nanoTime();
    for (long i = 0; i < ops; i++) {
      Sink.consume(op.run());
    }
    return System.nanoTime() - start;
  }

  private long gcTimeMs() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : collectors) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

  private long gcCount() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : collectors) {
      sum += Math.max(0, gc.getCollectionCount());
    }
    return sum;
  }
}
