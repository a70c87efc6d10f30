package dev.codecbench.worker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SamplerTest {
  private final Sampler sampler = new Sampler();

  private static Object spin(long ns) {
    long until = System.nanoTime() + ns;
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    return new byte[1024];
  }

  @Test
  void calibratesWarmsUpToASteadyStateAndKeepsEveryRound() throws Exception {
    AtomicLong calls = new AtomicLong();
    // Each op spins for 20 us: the same cost every round, so a steady state comes quickly.
    Sample s = sampler.measure(() -> {
      calls.incrementAndGet();
      return spin(20_000);
    }, new Sampling(50, 5_000, 4, 5), true);

    assertEquals(4, s.roundNsPerOp().size());
    assertTrue(s.warmupMs() >= 50, "warm-up lasted its minimum: " + s.warmupMs());
    assertTrue(s.warmupRounds() >= SteadyState.MIN_ROUNDS, "at least ten warm-up rounds: " + s.warmupRounds());
    assertTrue(s.roundNsPerOp().stream().allMatch(ns -> ns >= 20_000), "rounds: " + s.roundNsPerOp());
    double timed = s.roundNsPerOp().stream().mapToDouble(ns -> ns * s.opsPerRound()).sum() / 1e6;
    assertTrue(s.roundsMs() >= timed, "the rounds' wall time holds their timed ops: " + s.roundsMs() + " < " + timed);
    // The smallest doubling reaching 5 ms: half of it took less, so it is at most 2 * 5 ms / 20 us.
    assertEquals(1, Long.bitCount(s.opsPerRound()), "ops per round is a doubling: " + s.opsPerRound());
    assertTrue(s.opsPerRound() <= 512, "ops per round: " + s.opsPerRound());
    assertTrue(calls.get() >= (SteadyState.MIN_ROUNDS + 4) * s.opsPerRound(), "warm-up rounds ran the op too");
    // A 1 KiB array per op: the thread allocation counter sees at least that.
    assertTrue(s.allocBytesPerOp().orElseThrow() >= 1024, "alloc per op: " + s.allocBytesPerOp());
    assertTrue(s.gcMs() >= 0 && s.gcCount() >= 0);
    assertTrue(s.jitMs() >= -1);
  }

  @Test
  void anOpThatKeepsChangingHitsTheCapAndIsMarkedUnsteady() throws Exception {
    AtomicLong calls = new AtomicLong();
    // One op per round (no minimum round length), each 1.5 x slower than the last: no two windows
    // of five rounds come near 5 %, however noisy the machine.
    Sample s = sampler.measure(() -> spin((long) Math.min(1_000 * Math.pow(1.5, calls.incrementAndGet()), 1e9)),
        new Sampling(10, 300, 2, 0), false);
    assertFalse(s.steady(), "capped warm-up: " + s);
    assertTrue(s.warmupMs() >= 300, "ran to its cap: " + s.warmupMs());
    assertEquals(2, s.roundNsPerOp().size());
    assertFalse(s.allocBytesPerOp().isPresent(), "not counted when not asked");
    assertFalse(s.peakHeapBytes().isPresent(), "no peak heap either (the work may be on other threads)");
  }

  @Test
  void peakHeapIsWhatOneOperationHoldsAtOnce() throws Exception {
    Sampling once = new Sampling(0, 0, 1, 0);
    int size = 20 << 20;
    // An op that builds a 20 MB result holds at least that (a grown buffer: more).
    Sample big = sampler.measure(() -> {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      byte[] chunk = new byte[4096];
      for (int i = 0; i < size / chunk.length; i++) {
        out.write(chunk, 0, chunk.length);
      }
      return out.toByteArray();
    }, once, true);
    assertTrue(big.peakHeapBytes().orElseThrow() >= size, "peak " + big.peakHeapBytes());
    // A tiny op: far less.
    Sample tiny = sampler.measure(() -> new byte[1024], once, true);
    assertTrue(tiny.peakHeapBytes().orElseThrow() < 64 * 1024, "peak " + tiny.peakHeapBytes());
    // An op that holds 30 MB, drops it, and returns 1 KiB after a collection freed the 30 MB: its
    // peak is still the 30 MB it held at once (read from the heap pools' peaks), not what is left.
    Sample held = sampler.measure(() -> {
      List<byte[]> hold = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        hold.add(new byte[1 << 20]);
      }
      Sink.consume(hold);
      hold = null;
      Sink.consume(null);
      System.gc();
      return new byte[1024];
    }, once, true);
    assertTrue(held.peakHeapBytes().orElseThrow() >= 30L << 20, "peak " + held.peakHeapBytes());
    assertTrue(held.peakHeapBytes().orElseThrow() < 40L << 20, "peak " + held.peakHeapBytes());
  }

  @Test
  void slowOpRunsOncePerRound() throws Exception {
    Sample s = sampler.measure(() -> {
      Thread.sleep(3);
      return null;
    }, new Sampling(0, 2_000, 2, 1), false);
    assertEquals(1, s.opsPerRound());
    assertEquals(2, s.roundNsPerOp().size());
    assertTrue(s.roundNsPerOp().get(0) >= 3_000_000);
  }

  @Test
  void taskSamplingWithTheJvmMinimumAndTheCap() {
    var task = codecbench.v1.ScenarioOuterClass.Sampling.newBuilder()
        .setWarmupMs(20).setRounds(3).setMinRoundMs(2).setMaxWarmupMs(4_000).build();
    assertEquals(1000, Sampling.of(task, 1000).warmupMs());
    assertEquals(4_000, Sampling.of(task, 1000).maxWarmupMs());
    assertEquals(20, Sampling.of(task, 5).warmupMs());
    // No cap sent: scenario.proto's default. A cap below the minimum is raised to it.
    assertEquals(Sampling.DEFAULT_MAX_WARMUP_MS, Sampling.of(task.toBuilder().clearMaxWarmupMs().build(), 5).maxWarmupMs());
    assertEquals(6_000, Sampling.of(task, 6_000).maxWarmupMs());
    assertThrows(IllegalArgumentException.class, () -> new Sampling(0, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new Sampling(10, 5, 1, 1));
  }

  @Test
  void failureInsideTheOpPropagates() {
    assertThrows(IllegalStateException.class, () -> sampler.measure(() -> {
      throw new IllegalStateException("boom");
    }, new Sampling(0, 0, 1, 1), true));
  }
}
