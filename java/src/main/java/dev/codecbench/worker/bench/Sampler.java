package dev.codecbench.worker.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * One trial's timing (proto/README.md "Timing: one trial"): calibrate, warm up in rounds to a
 * measured steady state ({@link SteadyState}) or the cap, then the timed rounds. Only {@code op}
 * runs between the clock reads and every result goes to the {@link Sink}.
 */
public final class Sampler {
  /** One operation; its result is consumed so it cannot be optimised away. */
  @FunctionalInterface
  public interface Op {
    Object run() throws Exception;
  }

  // Calibration stops doubling here: a single op that fast is below any clock's meaning anyway.
  private static final long MAX_OPS_PER_ROUND = 1L << 30;
  private static final int TIME_OPS_PRIMING_CALLS = 1024;

  private final com.sun.management.ThreadMXBean threads;
  private final List<GarbageCollectorMXBean> collectors;
  private final List<MemoryPoolMXBean> heapPools;
  private final JitActivity jit;

  public Sampler() {
    this.threads = allocationCounter();
    this.collectors = ManagementFactory.getGarbageCollectorMXBeans();
    this.heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP && p.isValid()).toList();
    this.jit = new JitActivity();
    // First calls (class loading, lazy set-up) of what the timed rounds' edges read: here, before
    // any timing, not at the start of the timed rounds. The first queue reading loads JMX.
    jit.pendingCompiles();
    jit.compileTimeMs();
    gcTimeMs();
    gcCount();
    if (threads != null) {
      threads.getCurrentThreadAllocatedBytes();
    }
    // timeOps runs once per round, so HotSpot compiled it (C1) at its 256th call or a later
    // 128-call policy check (refused while the C1 queue is busy): in slow trials (~250 warm-up
    // rounds) that landed in the timed rounds as jit_ms. Called here past eight such checks, it is
    // compiled before the trial starts. Costs ~1 ms (the op does nothing).
    try {
      for (int i = 0; i < TIME_OPS_PRIMING_CALLS; i++) {
        timeOps(() -> null, 1);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
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
   * allocation figure and no peak heap is given: the counter sees this thread's allocations only
   * (every byte of them, a grown array's whole new block included), which is wrong for work done
   * on other threads.
   */
  public Sample measure(Op op, Sampling s, boolean countAllocations) throws Exception {
    long start = System.nanoTime();
    long minRoundNs = s.minRoundMs() * 1_000_000L;
    long ops = calibrate(op, minRoundNs);

    // Made once: a method reference built every round is one more allocation and call site.
    IntSupplier pendingCompiles = jit::pendingCompiles;
    LongSupplier compileTimeMs = jit::compileTimeMs;
    List<SteadyState.Round> warm = new ArrayList<>();
    int warmupRounds = 0;
    SteadyState.Verdict verdict;
    while (true) {
      long ns = timeOps(op, ops);
      warmupRounds++;
      if (ns < minRoundNs && ops < MAX_OPS_PER_ROUND) {
        // Calibrated on cold code: the warm op no longer fills a round. Recalibrate by doubling,
        // and start the steady-state windows again with the new round length.
        ops *= 2;
        warm.clear();
      } else {
        warm.add(new SteadyState.Round((double) ns / ops, (System.nanoTime() - start) / 1e6, jit.compileTimeMs()));
      }
      verdict = SteadyState.decide(warm, ops, pendingCompiles, compileTimeMs, (System.nanoTime() - start) / 1e6, s.warmupMs(),
          s.maxWarmupMs());
      if (verdict != SteadyState.Verdict.CONTINUE) {
        break;
      }
    }
    double warmupMs = (System.nanoTime() - start) / 1e6;

    boolean counting = countAllocations && threads != null;
    List<Double> nsPerOp = new ArrayList<>(s.rounds());
    long gcMsBefore = gcTimeMs();
    long gcCountBefore = gcCount();
    long jitBefore = jit.compileTimeMs();
    long allocBefore = counting ? threads.getCurrentThreadAllocatedBytes() : 0;
    long roundsStart = System.nanoTime();
    for (int r = 0; r < s.rounds(); r++) {
      // Sized up front: the list does not grow inside the rounds.
      nsPerOp.add((double) timeOps(op, ops) / ops);
    }
    double roundsMs = (System.nanoTime() - roundsStart) / 1e6;
    long allocBytes = counting ? threads.getCurrentThreadAllocatedBytes() - allocBefore : 0;
    long jitMs = jitBefore < 0 ? -1 : jit.compileTimeMs() - jitBefore;
    OptionalDouble alloc =
        counting ? OptionalDouble.of((double) allocBytes / ((double) ops * s.rounds())) : OptionalDouble.empty();
    boolean steady = verdict == SteadyState.Verdict.STEADY && jitMs <= 0;
    double gcMs = gcTimeMs() - gcMsBefore;
    long gcs = gcCount() - gcCountBefore;
    // After the rounds and their counters: outside timing.
    OptionalLong peak = counting ? OptionalLong.of(peakHeapGrowth(op)) : OptionalLong.empty();
    return new Sample(List.copyOf(nsPerOp), ops, alloc, warmupMs, warmupRounds, roundsMs, steady, gcMs, gcs, jitMs,
        peak);
  }

  /**
   * The heap one operation needs at once, measured after the rounds, outside timing (Rust: the
   * counting allocator's peak growth of the live heap, rust/worker/src/alloc.rs). The JVM keeps no
   * live-heap high-water mark; this is its nearest upper bound. A full collection (System.gc())
   * first, so that the heap holds only what is live; every heap pool's peak reset to its current
   * use; then one operation, its result kept reachable until the end. What it counts:
   * <ul>
   *   <li>no collection ran during the operation (the usual case for small payloads): nothing was
   *       freed, so the heap grew by exactly what this thread allocated (its allocation counter),
   *       garbage included;
   *   <li>collections ran: the heap pools' summed peak use minus their use before (HotSpot records
   *       a pool's peak at each collection and when it is read), which counts the garbage present
   *       at the fullest moment (up to a whole young generation) and, under G1, whole regions, as
   *       G1 updates its eden use when a region fills (so it lags by up to one region); capped by
   *       what the thread allocated, since the live heap cannot grow by more.
   * </ul>
   * Either way an upper bound of the live peak's growth (to within one G1 region in the second
   * case), not the live peak itself: a decode that makes and drops more records than fit in the
   * young generation reports about the young generation's size.
   */
  long peakHeapGrowth(Op op) throws Exception {
    System.gc();
    for (MemoryPoolMXBean p : heapPools) {
      p.resetPeakUsage();
    }
    long before = 0;
    for (MemoryPoolMXBean p : heapPools) {
      before += p.getUsage().getUsed();
    }
    long gcsBefore = gcCount();
    long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
    Object result = op.run();
    long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
    boolean collected = gcCount() != gcsBefore;
    long peak = 0;
    for (MemoryPoolMXBean p : heapPools) {
      peak += p.getPeakUsage().getUsed();
    }
    Sink.consume(result);
    return collected ? Math.max(0, Math.min(peak - before, allocated)) : allocated;
  }

  /** The smallest power of two of the op count whose run lasts at least one round. */
  private static long calibrate(Op op, long minRoundNs) throws Exception {
    long ops = 1;
    while (timeOps(op, ops) < minRoundNs && ops < MAX_OPS_PER_ROUND) {
      ops *= 2;
    }
    return ops;
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
