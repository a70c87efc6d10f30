package dev.codecbench.worker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SamplerTest {
  private final Sampler sampler = new Sampler();

  @Test
  void warmsUpCalibratesAndKeepsEveryRound() throws Exception {
    AtomicLong calls = new AtomicLong();
    // Each op spins for at least 20 us, so calibration's outcome is bounded whatever the machine does.
    Sample s = sampler.measure(() -> {
      calls.incrementAndGet();
      long until = System.nanoTime() + 20_000;
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      return new byte[1024];
    }, new Sampling(50, 4, 5), true);

    assertEquals(4, s.roundNsPerOp().size());
    assertTrue(s.warmupMs() >= 50, "warm-up lasted its minimum: " + s.warmupMs());
    assertTrue(s.roundNsPerOp().stream().allMatch(ns -> ns >= 20_000), "rounds: " + s.roundNsPerOp());
    // The smallest doubling reaching 5 ms: half of it took less, so it is at most 2 * 5 ms / 20 us.
    assertEquals(1, Long.bitCount(s.opsPerRound()), "ops per round is a doubling: " + s.opsPerRound());
    assertTrue(s.opsPerRound() <= 512, "ops per round: " + s.opsPerRound());
    assertTrue(calls.get() > 4 * s.opsPerRound(), "warm-up and calibration ran the op too");
    // A 1 KiB array per op: the thread allocation counter sees at least that.
    assertTrue(s.allocBytesPerOp().orElseThrow() >= 1024, "alloc per op: " + s.allocBytesPerOp());
    assertTrue(s.gcMs() >= 0 && s.gcCount() >= 0);
  }

  @Test
  void slowOpRunsOncePerRoundAndWarmsUpAtLeastOnce() throws Exception {
    AtomicLong calls = new AtomicLong();
    Sample s = sampler.measure(() -> {
      calls.incrementAndGet();
      Thread.sleep(3);
      return null;
    }, new Sampling(0, 2, 1), false);
    assertEquals(1, s.opsPerRound());
    assertEquals(2, s.roundNsPerOp().size());
    assertTrue(s.roundNsPerOp().get(0) >= 3_000_000);
    assertFalse(s.allocBytesPerOp().isPresent(), "not counted when not asked");
    assertEquals(1 + 1 + 2, calls.get(), "one warm-up, one calibration, two rounds");
  }

  @Test
  void jvmMinimumRaisesTheTaskWarmUp() {
    var task = codecbench.v1.ScenarioOuterClass.Sampling.newBuilder()
        .setWarmupMs(20).setRounds(3).setMinRoundMs(2).build();
    assertEquals(1000, Sampling.of(task, 1000).warmupMs());
    assertEquals(20, Sampling.of(task, 5).warmupMs());
    assertThrows(IllegalArgumentException.class, () -> new Sampling(0, 0, 1));
  }

  @Test
  void failureInsideTheOpPropagates() {
    assertThrows(IllegalStateException.class, () -> sampler.measure(() -> {
      throw new IllegalStateException("boom");
    }, new Sampling(0, 1, 1), true));
  }
}
