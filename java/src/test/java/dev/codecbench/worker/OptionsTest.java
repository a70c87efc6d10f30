package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionsTest {
  @Test
  void flagsWinOverTheEnvironmentWhichWinsOverTheDefault() throws Exception {
    assertEquals("127.0.0.1:7600", Options.parse(new String[0], Map.of()).target());
    // A restarting control has an hour to come back before the worker gives up.
    assertEquals(3_600_000, Options.parse(new String[0], Map.of()).reconnectTimeoutMs());
    assertEquals("10.0.0.5:9000",
        Options.parse(new String[0], Map.of("CODECBENCH_CONTROL", "http://10.0.0.5:9000")).target());
    Options o = Options.parse(new String[] {"--control", "http://h:1", "--name", "jvm", "--min-warmup-ms", "5",
        "--reconnect-timeout-s", "2"}, Map.of("CODECBENCH_CONTROL", "http://10.0.0.5:9000"));
    assertEquals("h:1", o.target());
    assertEquals("jvm", o.name());
    assertEquals(5, o.minWarmupMs());
    assertEquals(2000, o.reconnectTimeoutMs());
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--control"}, Map.of())).getMessage().contains("--control needs a value"));
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--control", "http://h"}, Map.of())).getMessage().contains("port"));
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--control", "https://h:1"}, Map.of())).getMessage().contains("http://"));
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--min-warmup-ms", "-1"}, Map.of())).getMessage().contains("non-negative"));
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--frobnicate"}, Map.of())).getMessage().contains("'--frobnicate'"));
  }
}
