package dev.codecbench.worker.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * When warm-up ends (proto/README.md "Timing: one trial", step 2), as a pure function of what the
 * warm-up rounds measured: at least the minimum time, at least {@link #MIN_ROUNDS} rounds, no JIT
 * compilation finished during the last {@link #WINDOW} rounds, and the median of the last {@link
 * #WINDOW} rounds within {@link #TOLERANCE} of the median of the {@link #WINDOW} before; or the cap.
 */
public final class SteadyState {
  public static final int MIN_ROUNDS = 10;
  public static final int WINDOW = 5;
  public static final double TOLERANCE = 0.05;

  public enum Verdict {
    /** Not steady yet and the cap is not reached: another round. */
    CONTINUE,
    /** Every rule holds. */
    STEADY,
    /** The cap was reached first: measure anyway, marked unsteady. */
    CAPPED
  }

  private SteadyState() {}

  /**
   * @param roundNs ns per op of every warm-up round so far, in order
   * @param compileMsAfter the JIT's total compilation time (ms) read after each of those rounds,
   *     -1 where the JVM does not report it (the JIT rule is then skipped)
   * @param elapsedMs time since the trial's warm-up (calibration included) began
   */
  public static Verdict decide(List<Double> roundNs, List<Long> compileMsAfter, double elapsedMs,
      long warmupMs, long maxWarmupMs) {
    if (isSteady(roundNs, compileMsAfter, elapsedMs, warmupMs)) {
      return Verdict.STEADY;
    }
    return elapsedMs >= maxWarmupMs ? Verdict.CAPPED : Verdict.CONTINUE;
  }

  private static boolean isSteady(List<Double> roundNs, List<Long> compileMsAfter, double elapsedMs,
      long warmupMs) {
    int n = roundNs.size();
    if (compileMsAfter.size() != n) {
      throw new IllegalArgumentException(n + " rounds but " + compileMsAfter.size() + " compile-time readings");
    }
    if (elapsedMs < warmupMs || n < Math.max(MIN_ROUNDS, 2 * WINDOW)) {
      return false;
    }
    // The reading after round n-WINDOW-1 is the one before the last WINDOW rounds began.
    long before = compileMsAfter.get(n - WINDOW - 1);
    long now = compileMsAfter.get(n - 1);
    if (before >= 0 && now != before) {
      return false;
    }
    double recent = median(roundNs.subList(n - WINDOW, n));
    double previous = median(roundNs.subList(n - 2 * WINDOW, n - WINDOW));
    return Math.abs(recent - previous) <= TOLERANCE * previous;
  }

  static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int m = s.size() / 2;
    return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
  }
}
