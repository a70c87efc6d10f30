package dev.codecbench.worker.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Whether the JIT is still at work: its total compilation time (which grows only when a
 * compilation finishes) and, on HotSpot, its compile queues (what {@code jcmd PID Compiler.queue}
 * shows), which also see compilations still waiting or in progress.
 */
final class JitActivity {
  private final CompilationMXBean compilation;
  private final MBeanServer server;
  private final ObjectName diagnostics;

  JitActivity() {
    CompilationMXBean c = ManagementFactory.getCompilationMXBean();
    this.compilation = c != null && c.isCompilationTimeMonitoringSupported() ? c : null;
    MBeanServer s = ManagementFactory.getPlatformMBeanServer();
    ObjectName n = null;
    try {
      n = new ObjectName("com.sun.management:type=DiagnosticCommand");
      if (!s.isRegistered(n)) {
        n = null;
      }
    } catch (JMException e) {
      n = null;
    }
    this.server = s;
    this.diagnostics = n;
  }

  /** Total compilation time so far in ms, or -1 where the JVM does not report it. */
  long compileTimeMs() {
    return compilation == null ? -1 : compilation.getTotalCompilationTime();
  }

  /**
   * Compilations running or queued right now (each listed as {@code Class::method}); {@link
   * SteadyState#QUEUE_UNKNOWN} where the JVM has no compile-queue command, so that only {@link
   * #compileTimeMs()} decides there.
   */
  int pendingCompiles() {
    if (diagnostics == null) {
      return SteadyState.QUEUE_UNKNOWN;
    }
    try {
      Object out = server.invoke(diagnostics, "compilerQueue", new Object[] {null},
          new String[] {String[].class.getName()});
      return out == null ? 0 : count(out.toString());
    } catch (JMException | RuntimeException e) {
      return SteadyState.QUEUE_UNKNOWN;
    }
  }

  static int count(String queue) {
    int n = 0;
    for (String line : queue.split("\n")) {
      if (line.contains("::")) {
        n++;
      }
    }
    return n;
  }
}
