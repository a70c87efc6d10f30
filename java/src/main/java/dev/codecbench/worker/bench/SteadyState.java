package dev.codecbench.worker.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * When warm-up ends (proto/README.md "Timing: one trial", step 2), as a pure function of what the
 * warm-up rounds measured: at least the minimum time, at least {@link #MIN_ROUNDS} rounds, the
 * median of the last {@link #WINDOW} rounds within {@link #TOLERANCE} of the median of the {@link
 * #WINDOW} before, no JIT compilation finished during the quiet window (the last {@link #WINDOW}
 * rounds, extended over more rounds until it lasts at least {@link #QUIET_MS} and {@link
 * #QUIET_OPS} ops), and no compilation queued or in progress at the decision; or the cap.
 *
 * <p>The queue matters because the compilation time only grows when a compilation finishes: a
 * long C2 compilation of the hot method that is still running looks exactly like a quiet JIT, and
 * its code is installed during the timed rounds (the 3-8x slower trials of the first A/A run).
 */
public final class SteadyState {
  public static final int MIN_ROUNDS = 10;
  public static final int WINDOW = 5;
  public static final double TOLERANCE = 0.05;
  /** Shortest quiet window: 5 rounds of 10 ms are shorter than one C2 compilation of a decoder. */
  public static final double QUIET_MS = 300;
  /**
   * Fewest ops in the quiet window. HotSpot's interpreter offers a method to the compile policy
   * only every 2^Tier0InvokeNotifyFreqLog (128) calls, and refuses while the C1 queue is busy
   * (Tier3LoadFeedback), so methods called once per op (a parser's set-up) compile in small
   * batches 128 ops apart: with slow ops (JSON, 3 ms) that is longer than {@link #QUIET_MS}, and a
   * shorter window ended between two batches, the next one landing in the timed rounds.
   */
  public static final long QUIET_OPS = 128;

  /** The queue reading of a JVM that has no compile-queue command: that rule is skipped. */
  public static final int QUEUE_UNKNOWN = -1;

  public enum Verdict {
    /** Not steady yet and the cap is not reached: another round. */
    CONTINUE,
    /** Every rule holds. */
    STEADY,
    /** The cap was reached first: measure anyway, marked unsteady. */
    CAPPED
  }

  /**
   * One warm-up round.
   *
   * @param nsPerOp its time per op
   * @param endMs when it ended, ms since warm-up began
   * @param compileMs the JIT's total compilation time (ms) read right after it, -1 where the JVM
   *     does not report it (the finished-compilation rule is then skipped)
   */
  public record Round(double nsPerOp, double endMs, long compileMs) {}

  private SteadyState() {}

  /**
   * @param rounds every warm-up round since the last recalibration, in order
   * @param opsPerRound ops each of those rounds ran
   * @param queuedCompiles reads the compilations queued or in progress now ({@link #QUEUE_UNKNOWN}
   *     where the JVM cannot tell). Read only when every other rule holds: reading it is not free
   *     (a JMX command whose own code the JIT may compile).
   * @param compileMsNow reads the total compilation time now, after the queue: the window runs up
   *     to the decision, so a compilation that the decision's own code set off and that finished
   *     since the last round's reading is seen too.
   * @param elapsedMs time since the trial's warm-up (calibration included) began
   */
  public static Verdict decide(List<Round> rounds, long opsPerRound, IntSupplier queuedCompiles,
      LongSupplier compileMsNow, double elapsedMs, long warmupMs, long maxWarmupMs) {
    if (isSteady(rounds, opsPerRound, queuedCompiles, compileMsNow, elapsedMs, warmupMs)) {
      return Verdict.STEADY;
    }
    return elapsedMs >= maxWarmupMs ? Verdict.CAPPED : Verdict.CONTINUE;
  }

  private static boolean isSteady(List<Round> rounds, long opsPerRound, IntSupplier queuedCompiles,
      LongSupplier compileMsNow, double elapsedMs, long warmupMs) {
    int n = rounds.size();
    if (elapsedMs < warmupMs || n < Math.max(MIN_ROUNDS, 2 * WINDOW)) {
      return false;
    }
    double recent = medianNs(rounds.subList(n - WINDOW, n));
    double previous = medianNs(rounds.subList(n - 2 * WINDOW, n - WINDOW));
    if (Math.abs(recent - previous) > TOLERANCE * previous) {
      return false;
    }
    // The quiet window: the last k >= WINDOW rounds lasting at least QUIET_MS and QUIET_OPS,
    // measured from the end of the round before them, whose compile-time reading the window starts from.
    Round last = rounds.get(n - 1);
    int start = n - WINDOW - 1;
    while (start >= 0 && (last.endMs() - rounds.get(start).endMs() < QUIET_MS
        || (long) (n - 1 - start) * opsPerRound < QUIET_OPS)) {
      start--;
    }
    if (start < 0) {
      return false;
    }
    long before = rounds.get(start).compileMs();
    if (before >= 0 && last.compileMs() != before) {
      return false;
    }
    int queued = queuedCompiles.getAsInt();
    if (queued != QUEUE_UNKNOWN && queued != 0) {
      return false;
    }
    return before < 0 || compileMsNow.getAsLong() == before;
  }

  private static double medianNs(List<Round> rounds) {
    List<Double> s = new ArrayList<>(rounds.size());
    for (Round r : rounds) {
      s.add(r.nsPerOp());
    }
    Collections.sort(s);
    int m = s.size() / 2;
    return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
  }
}
