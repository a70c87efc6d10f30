package dev.codecbench.worker.bench;

import static dev.codecbench.worker.bench.SteadyState.Verdict.CAPPED;
import static dev.codecbench.worker.bench.SteadyState.Verdict.CONTINUE;
import static dev.codecbench.worker.bench.SteadyState.Verdict.STEADY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The warm-up decision of proto/README.md "Timing: one trial", step 2, as a pure function. */
class SteadyStateTest {
  private static final List<Double> FLAT = Collections.nCopies(10, 100.0);

  private static List<Long> compiles(long... ms) {
    List<Long> out = new ArrayList<>();
    for (long m : ms) {
      out.add(m);
    }
    return out;
  }

  private static List<Long> quiet(int n) {
    return new ArrayList<>(Collections.nCopies(n, 40L));
  }

  @Test
  void steadyWhenEveryRuleHolds() {
    assertEquals(STEADY, SteadyState.decide(FLAT, quiet(10), 250, 200, 10_000));
  }

  @Test
  void notBeforeTheMinimumTimeNorBeforeTenRounds() {
    assertEquals(CONTINUE, SteadyState.decide(FLAT, quiet(10), 150, 200, 10_000));
    List<Double> nine = Collections.nCopies(9, 100.0);
    assertEquals(CONTINUE, SteadyState.decide(nine, quiet(9), 5_000, 200, 10_000));
  }

  @Test
  void aCompilationFinishingInTheLastFiveRoundsIsNotSteady() {
    // Compile time grew after round 7 (index 6): within the last five rounds.
    List<Long> late = compiles(10, 12, 20, 30, 40, 40, 41, 41, 41, 41);
    assertEquals(CONTINUE, SteadyState.decide(FLAT, late, 500, 200, 10_000));
    // Grew only up to round 5 (index 4), the reading before the last five began: steady.
    List<Long> early = compiles(10, 12, 20, 30, 40, 40, 40, 40, 40, 40);
    assertEquals(STEADY, SteadyState.decide(FLAT, early, 500, 200, 10_000));
    // A JVM without the counter (-1): the rule is skipped.
    assertEquals(STEADY, SteadyState.decide(FLAT, new ArrayList<>(Collections.nCopies(10, -1L)), 500, 200, 10_000));
  }

  @Test
  void recentMedianMustBeWithinFivePercentOfThePreviousFive() {
    // The bug this replaces: a JSON decode still getting faster (1,006,957 -> 337,131 -> 171,656 ns/op).
    List<Double> falling = List.of(1_006_957.0, 900_000.0, 700_000.0, 500_000.0, 337_131.0,
        300_000.0, 250_000.0, 200_000.0, 180_000.0, 171_656.0);
    assertEquals(CONTINUE, SteadyState.decide(falling, quiet(10), 5_000, 200, 10_000));
    // 4.9 % apart: steady; 5.1 %: not. One outlier per window does not move a median.
    List<Double> close = List.of(100.0, 100.0, 999.0, 100.0, 100.0, 104.9, 104.9, 104.9, 1.0, 104.9);
    assertEquals(STEADY, SteadyState.decide(close, quiet(10), 500, 200, 10_000));
    List<Double> apart = List.of(100.0, 100.0, 100.0, 100.0, 100.0, 105.1, 105.1, 105.1, 105.1, 105.1);
    assertEquals(CONTINUE, SteadyState.decide(apart, quiet(10), 500, 200, 10_000));
  }

  @Test
  void onlyTheLastTenRoundsCount() {
    List<Double> rounds = new ArrayList<>(List.of(5_000.0, 3_000.0, 1_000.0));
    rounds.addAll(FLAT);
    assertEquals(STEADY, SteadyState.decide(rounds, quiet(13), 500, 200, 10_000));
  }

  @Test
  void theCapEndsAnUnsteadyWarmUp() {
    List<Double> apart = List.of(100.0, 100.0, 100.0, 100.0, 100.0, 200.0, 200.0, 200.0, 200.0, 200.0);
    assertEquals(CAPPED, SteadyState.decide(apart, quiet(10), 10_000, 200, 10_000));
    // At the cap with every rule holding, it is steady.
    assertEquals(STEADY, SteadyState.decide(FLAT, quiet(10), 10_000, 200, 10_000));
    assertEquals(CAPPED, SteadyState.decide(List.of(), List.of(), 10_001, 200, 10_000));
  }

  @Test
  void readingsMustMatchRounds() {
    assertThrows(IllegalArgumentException.class, () -> SteadyState.decide(FLAT, quiet(9), 500, 200, 10_000));
  }
}
