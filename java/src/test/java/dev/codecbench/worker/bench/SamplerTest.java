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
    }, new Sampling(50, 250, 4, 5), true);

    assertEquals(4, s.roundNsPerOp().size());
    assertTrue(s.warmupMs() >= 50, "warm-up lasted its minimum: " + s.warmupMs());
    // Capped at 250 ms, plus at most one 50 ms window and one op.
    assertTrue(s.warmupMs() < 250 + 50 + 10, "warm-up stopped at its cap: " + s.warmupMs());
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
    }, new Sampling(0, 0, 2, 1), false);
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
    assertEquals(1000 * Sampling.MAX_WARMUP_FACTOR, Sampling.of(task, 1000).maxWarmupMs());
    assertEquals(20, Sampling.of(task, 5).warmupMs());
    assertEquals(Sampling.MAX_WARMUP_FLOOR_MS, Sampling.of(task, 5).maxWarmupMs());
    assertThrows(IllegalArgumentException.class, () -> new Sampling(0, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new Sampling(10, 5, 1, 1));
  }

  @Test
  void warmUpOutlastsItsMinimumWhileTheJitCompiles() throws Exception {
    // A fresh lambda over a new method body gives the JIT work; the minimum is one short window.
    Sample s = sampler.measure(() -> {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        b.append(Integer.toHexString(i * 31)).append(',');
      }
      return b.toString().hashCode();
    }, new Sampling(1, 2_000, 2, 1), true);
    assertTrue(s.warmupMs() >= 1 && s.warmupMs() < 2_000 + 110, "warm-up: " + s.warmupMs());
    // Quiet unless the cap was reached; a capped warm-up says it was not.
    assertTrue(s.jitQuiet() || s.warmupMs() >= 2_000, "quiet or capped: " + s);
    assertTrue(s.jitQuiet() == (s.jitMs() <= 0) || !s.jitQuiet(), "kept rounds saw no compile: " + s);
    assertTrue(s.jitMs() >= -1);
  }

  @Test
  void failureInsideTheOpPropagates() {
    assertThrows(IllegalStateException.class, () -> sampler.measure(() -> {
      throw new IllegalStateException("boom");
    }, new Sampling(0, 0, 1, 1), true));
  }
}
