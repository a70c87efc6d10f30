package dev.codecbench.worker.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The packaged worker with no control to reach: it retries for its window, then says so and exits 1. */
@Tag("e2e")
class UnreachableControlIT {
  @Test
  void exitsNonZeroWithAClearMessage() throws Exception {
    String jar = Cluster.workerJar().toString();
    assumeTrue(Files.isRegularFile(Cluster.workerJar()), "skipped: " + jar + " is not built (mvn package)");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    long start = System.nanoTime();
    Process p = new ProcessBuilder(java, "-jar", jar, "--control", "http://127.0.0.1:" + port,
        "--reconnect-timeout-s", "2").redirectErrorStream(true).start();
    try {
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "worker exited");
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(1, p.exitValue(), out);
      assertTrue(out.contains("cannot attach to control at http://127.0.0.1:" + port + ": UNAVAILABLE"), out);
      assertTrue(System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(2), "kept retrying for its window");
    } finally {
      p.destroyForcibly();
    }
  }
}
