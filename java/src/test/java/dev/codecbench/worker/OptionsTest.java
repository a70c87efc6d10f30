package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    assertEquals("", o.token(), "no token unless one is given");
    assertFalse(o.inProcessTrials(), "a fresh JVM per trial unless asked");
    assertTrue(Options.parse(new String[] {"--trials", "in-process"}, Map.of()).inProcessTrials());
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--trials", "threads"}, Map.of())).getMessage().contains("fork or in-process"));
  }

  @Test
  void theTokenComesFromTheFileElseTheEnvironmentAndIsNeverPrinted(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = dir.resolve("token");
    java.nio.file.Files.writeString(file, "  0123456789abcdef\n");
    assertEquals("0123456789abcdef", Options.parse(new String[] {"--token-file", file.toString()},
        Map.of("CODECBENCH_TOKEN", "other-token-from-env")).token());
    assertEquals("0123456789abcdef", Options.parse(new String[0], Map.of("CODECBENCH_TOKEN_FILE", file.toString())).token());
    Options fromEnv = Options.parse(new String[0], Map.of("CODECBENCH_TOKEN", "from-the-environment"));
    assertEquals("from-the-environment", fromEnv.token());
    assertTrue(!fromEnv.toString().contains("from-the-environment"), fromEnv.toString());
    assertTrue(assertThrows(Options.UsageException.class,
        () -> Options.parse(new String[] {"--token-file", dir.resolve("missing").toString()}, Map.of()))
        .getMessage().contains("cannot read the token file"));
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
