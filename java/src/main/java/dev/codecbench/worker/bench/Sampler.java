package dev.codecbench.worker.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Warm-up, calibration and rounds (proto/README.md, "Timing"), with the JIT in mind: only {@code
 * op} runs between the clock reads, every result goes to the {@link Sink}, and rounds during which
 * the JIT was still compiling are done again (up to the warm-up cap), because they timed code that
 * was being replaced under them.
 */
public final class Sampler {
  /** One operation; its result is consumed so it cannot be optimised away. */
  @FunctionalInterface
  public interface Op {
    Object run() throws Exception;
  }

  // Calibration stops doubling here: a single op that fast is below any clock's meaning anyway.
  private static final long MAX_OPS_PER_ROUND = 1L << 30;
  // Warm-up is checked for JIT activity in windows of this length.
  private static final long WARMUP_WINDOW_NS = 100_000_000L;

  private final com.sun.management.ThreadMXBean threads;
  private final List<GarbageCollectorMXBean> collectors;
  private final JitActivity jit = new JitActivity();

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
    long start = System.nanoTime();
    long capEnd = start + s.maxWarmupMs() * 1_000_000L;
    boolean jitQuiet = warmUp(op, s, start, capEnd);
    boolean counting = countAllocations && threads != null;
    int repeated = 0;
    while (true) {
      long roundsStart = System.nanoTime();
      long ops = calibrate(op, s.minRoundMs() * 1_000_000L);
      Rounds r = rounds(op, ops, s.rounds(), counting);
      // JIT time only grows when a compilation finishes, so a quiet warm-up window can still be
      // followed by a compile; rounds that saw one are warm-up too, while the cap allows.
      if (r.jitMs > 0 && System.nanoTime() < capEnd) {
        repeated++;
        continue;
      }
      OptionalDouble alloc =
          counting
              ? OptionalDouble.of((double) r.allocBytes / ((double) ops * s.rounds()))
              : OptionalDouble.empty();
      return new Sample(r.nsPerOp, ops, alloc, (roundsStart - start) / 1e6, jitQuiet && r.jitMs <= 0,
          repeated, r.gcMs, r.gcCount, r.jitMs);
    }
  }

  /**
   * Runs {@code op} for at least the warm-up time, then on while the JIT is still compiling (a
   * compilation finished during the last window, or some are queued or running), up to the cap.
   * On a busy machine the compiler threads get little CPU, and a fixed warm-up would time
   * interpreted code. Returns whether the JIT was quiet when the warm-up ended.
   */
  private boolean warmUp(Op op, Sampling s, long start, long capEnd) throws Exception {
    long minEnd = start + s.warmupMs() * 1_000_000L;
    long windowNs = Math.min(WARMUP_WINDOW_NS, s.warmupMs() * 1_000_000L);
    while (true) {
      long jitBefore = jitTimeMs();
      long windowStart = System.nanoTime();
      do {
        Sink.consume(op.run());
      } while (System.nanoTime() - windowStart < windowNs);
      long now = System.nanoTime();
      boolean quiet = jitTimeMs() == jitBefore && jit.pendingCompiles() == 0;
      if (now >= capEnd || (now >= minEnd && quiet)) {
        return quiet;
      }
    }
  }

  /** The smallest doubling of the op count whose run lasts at least one round. */
  private static long calibrate(Op op, long minRoundNs) throws Exception {
    long ops = 1;
    while (timeOps(op, ops) < minRoundNs && ops < MAX_OPS_PER_ROUND) {
      ops *= 2;
    }
    return ops;
  }

  private record Rounds(List<Double> nsPerOp, long allocBytes, long gcMs, long gcCount, long jitMs) {}

  private Rounds rounds(Op op, long ops, int count, boolean counting) throws Exception {
    List<Double> nsPerOp = new ArrayList<>(count);
    long gcMsBefore = gcTimeMs();
    long gcCountBefore = gcCount();
    long jitBefore = jitTimeMs();
    long allocBefore = counting ? threads.getCurrentThreadAllocatedBytes() : 0;
    for (int r = 0; r < count; r++) {
      // The list grows by one Double per round: noise next to a codec op.
      nsPerOp.add((double) timeOps(op, ops) / ops);
    }
    long allocBytes = counting ? threads.getCurrentThreadAllocatedBytes() - allocBefore : 0;
    long jitMs = jitBefore < 0 ? -1 : jitTimeMs() - jitBefore;
    return new Rounds(List.copyOf(nsPerOp), allocBytes, gcTimeMs() - gcMsBefore, gcCount() - gcCountBefore, jitMs);
  }

  private static long timeOps(Op op, long ops) throws Exception {
    long start = System.nanoTime();
    for (long i = 0; i < ops; i++) {
      Sink.consume(op.run());
    }
    return System.nanoTime() - start;
  }

  private long jitTimeMs() {
    return jit.compileTimeMs();
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
