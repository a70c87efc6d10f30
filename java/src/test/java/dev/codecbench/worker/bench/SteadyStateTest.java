package dev.codecbench.worker.bench;

import static dev.codecbench.worker.bench.SteadyState.Verdict.CAPPED;
import static dev.codecbench.worker.bench.SteadyState.Verdict.CONTINUE;
import static dev.codecbench.worker.bench.SteadyState.Verdict.STEADY;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.codecbench.worker.bench.SteadyState.Round;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The warm-up decision of proto/README.md "Timing: one trial", step 2, as a pure function. */
class SteadyStateTest {
  private static final List<Double> FLAT = Collections.nCopies(10, 100.0);
  private static final IntSupplier EMPTY_QUEUE = () -> 0;
  /** Ops per round: enough that the quiet window's op minimum never decides but where tested. */
  private static final long OPS = 1_000;

  /** Rounds of {@code roundMs} each with the given ns/op and compile-time readings. */
  private static List<Round> rounds(List<Double> ns, double roundMs, List<Long> compileMs) {
    List<Round> out = new ArrayList<>();
    for (int i = 0; i < ns.size(); i++) {
      out.add(new Round(ns.get(i), (i + 1) * roundMs, compileMs.get(i)));
    }
    return out;
  }

  /** Rounds of 40 ms (ten of them: 400 ms, the quiet window fits) with no compilation finishing. */
  private static List<Round> quiet(List<Double> ns) {
    return rounds(ns, 40, Collections.nCopies(ns.size(), 40L));
  }

  private static List<Long> compiles(long... ms) {
    List<Long> out = new ArrayList<>();
    for (long m : ms) {
      out.add(m);
    }
    return out;
  }

  /** The decision with no compilation finishing since the last round's reading. */
  private static SteadyState.Verdict decide(List<Round> rounds, long ops, IntSupplier queue, double elapsedMs,
      long warmupMs, long maxWarmupMs) {
    LongSupplier unchanged = () -> rounds.isEmpty() ? -1 : rounds.get(rounds.size() - 1).compileMs();
    return SteadyState.decide(rounds, ops, queue, unchanged, elapsedMs, warmupMs, maxWarmupMs);
  }

  @Test
  void aFlatSeriesWithAnEmptyQueueSettles() {
    assertEquals(STEADY, decide(quiet(FLAT), OPS, EMPTY_QUEUE, 400, 200, 10_000));
  }

  @Test
  void notBeforeTheMinimumTimeNorBeforeTenRounds() {
    assertEquals(CONTINUE, decide(quiet(FLAT), OPS, EMPTY_QUEUE, 150, 200, 10_000));
    List<Double> nine = Collections.nCopies(9, 100.0);
    assertEquals(CONTINUE, decide(quiet(nine), OPS, EMPTY_QUEUE, 5_000, 200, 10_000));
  }

  @Test
  void aLongCompilationInProgressKeepsItWarming() {
    // The first A/A run's failure: flat rounds, compile time unchanged for long (nothing finished),
    // but C2 is still compiling the decoder. Its code would land in the timed rounds.
    IntSupplier compiling = () -> 1;
    assertEquals(CONTINUE, decide(quiet(FLAT), OPS, compiling, 400, 200, 10_000));
    List<Double> long60 = Collections.nCopies(60, 100.0);
    assertEquals(CONTINUE, decide(quiet(long60), OPS, compiling, 2_400, 200, 10_000));
    // Still compiling at the cap: measured, marked unsteady.
    assertEquals(CAPPED, decide(quiet(FLAT), OPS, compiling, 10_000, 200, 10_000));
    // A JVM that cannot show its queue: only the finished-compilation rule decides.
    assertEquals(STEADY, decide(quiet(FLAT), OPS, () -> SteadyState.QUEUE_UNKNOWN, 400, 200, 10_000));
  }

  @Test
  void aCompilationFinishingAfterTheLastRoundIsSeenAtTheDecision() {
    // The decision's own code (called once per round) reached a compile threshold; C1 finished it
    // before the queue was read, after the last round's reading.
    assertEquals(CONTINUE, SteadyState.decide(quiet(FLAT), OPS, EMPTY_QUEUE, () -> 41L, 400, 200, 10_000));
    assertEquals(STEADY, SteadyState.decide(quiet(FLAT), OPS, EMPTY_QUEUE, () -> 40L, 400, 200, 10_000));
  }

  @Test
  void theQueueIsReadOnlyWhenEveryOtherRuleHolds() {
    AtomicInteger reads = new AtomicInteger();
    IntSupplier counted = () -> {
      reads.incrementAndGet();
      return 0;
    };
    List<Double> apart = List.of(100.0, 100.0, 100.0, 100.0, 100.0, 200.0, 200.0, 200.0, 200.0, 200.0);
    assertEquals(CONTINUE, decide(quiet(apart), OPS, counted, 400, 200, 10_000));
    assertEquals(CONTINUE, decide(quiet(FLAT), OPS, counted, 100, 200, 10_000));
    assertEquals(0, reads.get());
    assertEquals(STEADY, decide(quiet(FLAT), OPS, counted, 400, 200, 10_000));
    assertEquals(1, reads.get());
  }

  @Test
  void aCompilationFinishingInTheLastFiveRoundsIsNotSteady() {
    // Rounds of 100 ms: the window is the last five (500 ms). Compile time grew after round 7
    // (index 6): inside it.
    List<Long> late = compiles(10, 12, 20, 30, 40, 40, 41, 41, 41, 41);
    assertEquals(CONTINUE, decide(rounds(FLAT, 100, late), OPS, EMPTY_QUEUE, 1_000, 200, 10_000));
    // Grew only up to round 5 (index 4), the reading before the last five began: steady.
    List<Long> early = compiles(10, 12, 20, 30, 40, 40, 40, 40, 40, 40);
    assertEquals(STEADY, decide(rounds(FLAT, 100, early), OPS, EMPTY_QUEUE, 1_000, 200, 10_000));
    // A JVM without the counter (-1): the rule is skipped.
    assertEquals(STEADY, decide(rounds(FLAT, 100, Collections.nCopies(10, -1L)), OPS, EMPTY_QUEUE, 1_000,
        200, 10_000));
  }

  @Test
  void shortRoundsStretchTheQuietWindowToThreeHundredMs() {
    // 40 rounds of 10 ms. A compilation finished 20 rounds (200 ms) before the end: five rounds
    // would not see it, the 300 ms window does.
    List<Double> flat40 = Collections.nCopies(40, 100.0);
    List<Long> at20 = new ArrayList<>(Collections.nCopies(20, 5L));
    at20.addAll(Collections.nCopies(20, 9L));
    assertEquals(CONTINUE, decide(rounds(flat40, 10, at20), OPS, EMPTY_QUEUE, 400, 200, 10_000));
    // The same compilation 31 rounds (310 ms) before the end: outside the window, steady.
    List<Long> at9 = new ArrayList<>(Collections.nCopies(9, 5L));
    at9.addAll(Collections.nCopies(31, 9L));
    assertEquals(STEADY, decide(rounds(flat40, 10, at9), OPS, EMPTY_QUEUE, 400, 200, 10_000));
    // Too few rounds to span 300 ms since the first reading: not yet, however quiet.
    List<Double> flat12 = Collections.nCopies(12, 100.0);
    assertEquals(CONTINUE, decide(rounds(flat12, 10, Collections.nCopies(12, 5L)), OPS, EMPTY_QUEUE, 400,
        200, 10_000));
  }

  @Test
  void slowOpsStretchTheQuietWindowTo128Ops() {
    // 4 ops of 3 ms per round (JSON decode): 128 ops are 32 rounds, 384 ms. A compilation 31
    // rounds before the end is inside the window; 33 rounds before, outside.
    List<Double> flat40 = Collections.nCopies(40, 3e6);
    List<Long> at31 = new ArrayList<>(Collections.nCopies(9, 5L));
    at31.addAll(Collections.nCopies(31, 9L));
    assertEquals(CONTINUE, decide(rounds(flat40, 12, at31), 4, EMPTY_QUEUE, 500, 200, 10_000));
    List<Long> at33 = new ArrayList<>(Collections.nCopies(7, 5L));
    at33.addAll(Collections.nCopies(33, 9L));
    assertEquals(STEADY, decide(rounds(flat40, 12, at33), 4, EMPTY_QUEUE, 500, 200, 10_000));
    // The same series at 1,000 ops per round: 300 ms (25 rounds) is the longer bound, and at31 is
    // outside it.
    assertEquals(STEADY, decide(rounds(flat40, 12, at31), OPS, EMPTY_QUEUE, 500, 200, 10_000));
  }

  @Test
  void recentMedianMustBeWithinFivePercentOfThePreviousFive() {
    // A JSON decode still getting faster (1,006,957 -> 337,131 -> 171,656 ns/op), queue empty.
    List<Double> falling = List.of(1_006_957.0, 900_000.0, 700_000.0, 500_000.0, 337_131.0,
        300_000.0, 250_000.0, 200_000.0, 180_000.0, 171_656.0);
    assertEquals(CONTINUE, decide(quiet(falling), OPS, EMPTY_QUEUE, 5_000, 200, 10_000));
    // 4.9 % apart: steady; 5.1 %: not. One outlier per window does not move a median.
    List<Double> close = List.of(100.0, 100.0, 999.0, 100.0, 100.0, 104.9, 104.9, 104.9, 1.0, 104.9);
    assertEquals(STEADY, decide(quiet(close), OPS, EMPTY_QUEUE, 500, 200, 10_000));
    List<Double> apart = List.of(100.0, 100.0, 100.0, 100.0, 100.0, 105.1, 105.1, 105.1, 105.1, 105.1);
    assertEquals(CONTINUE, decide(quiet(apart), OPS, EMPTY_QUEUE, 500, 200, 10_000));
  }

  @Test
  void onlyTheLastTenRoundsCountForTheMedians() {
    List<Double> ns = new ArrayList<>(List.of(5_000.0, 3_000.0, 1_000.0));
    ns.addAll(FLAT);
    assertEquals(STEADY, decide(quiet(ns), OPS, EMPTY_QUEUE, 600, 200, 10_000));
  }

  @Test
  void theCapEndsAnUnsteadyWarmUp() {
    List<Double> apart = List.of(100.0, 100.0, 100.0, 100.0, 100.0, 200.0, 200.0, 200.0, 200.0, 200.0);
    assertEquals(CAPPED, decide(quiet(apart), OPS, EMPTY_QUEUE, 10_000, 200, 10_000));
    // At the cap with every rule holding, it is steady.
    assertEquals(STEADY, decide(quiet(FLAT), OPS, EMPTY_QUEUE, 10_000, 200, 10_000));
    assertEquals(CAPPED, decide(List.of(), OPS, EMPTY_QUEUE, 10_001, 200, 10_000));
  }
}
