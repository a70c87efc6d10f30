package dev.codecbench.worker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JitActivityTest {
  @Test
  void countsRunningAndQueuedCompilesOfCompilerQueueOutput() {
    String busy = """
        Current compiles:\s
        C2 CompilerThread0  1167   !   4       com.example.Reader::read (497 bytes)

        C1 compile queue:
        Empty

        C2 compile queue:
        1173       4       com.example.Reader::next (24 bytes)
        1176       4       com.example.Names::fromUtf (174 bytes)
        """;
    assertEquals(3, JitActivity.count(busy));
    assertEquals(0, JitActivity.count("Current compiles: \n\nC1 compile queue:\nEmpty\n\nC2 compile queue:\nEmpty\n"));
  }

  @Test
  void readsThisHotSpotJvm() {
    JitActivity jit = new JitActivity();
    assertTrue(jit.compileTimeMs() >= 0, "HotSpot reports compilation time");
    // HotSpot has the Compiler.queue command: a count, never the unknown marker.
    assertTrue(jit.pendingCompiles() >= 0, "compile queue readable");
  }
}
