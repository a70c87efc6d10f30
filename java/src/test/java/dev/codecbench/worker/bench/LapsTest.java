package dev.codecbench.worker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LapsTest {
  private static Sample sample(double warmupMs, double roundsMs) {
    return new Sample(List.of(1.0), 1, OptionalDouble.empty(), warmupMs, 10, roundsMs, true, 0, 0, 0,
        OptionalLong.empty());
  }

  @Test
  void lapsAddUpByPhaseAndASampleIsSplitIntoWarmupRoundsAndOther() throws Exception {
    Laps laps = new Laps();
    Thread.sleep(20);
    laps.lap("load");
    Thread.sleep(10);
    laps.lap("verify");
    Thread.sleep(5);
    laps.lap("load");
    Thread.sleep(30);
    laps.measured(sample(10, 15));
    laps.merge(Map.of("load", 1.0, "process", 2.0));
    Map<String, Double> ms = laps.ms();

    assertTrue(ms.get("load") >= 20 + 5 + 1, "both load laps and the merged ms: " + ms);
    assertTrue(ms.get("verify") >= 10, ms.toString());
    assertEquals(10.0, ms.get("warmup"));
    assertEquals(15.0, ms.get("rounds"));
    assertTrue(ms.get("other") >= 5 - 0.01, "the rest of the 30 ms lap: " + ms);
    assertEquals(2.0, ms.get("process"));
    assertFalse(ms.containsKey("fetch"), "a phase that did not happen is absent: " + ms);
  }

  @Test
  void aSampleLongerThanItsLapLeavesNoNegativeOther() {
    Laps laps = new Laps();
    laps.measured(sample(1_000, 1_000));
    assertEquals(0.0, laps.ms().get("other"));
  }
}
