package dev.codecbench.worker;

import codecbench.v1.Results.Environment;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** What ran (docs/DESIGN.md rule 8): the JVM, its flags and GC, the machine, the libraries. */
public final class EnvironmentProbe {
  private EnvironmentProbe() {}

  /** {@code trialJvmFlags}: the flags of the fresh JVM every trial runs in (ForkedTrials). */
  public static Environment probe(long jvmMinWarmupMs, java.util.List<String> trialJvmFlags) {
    return probe(jvmMinWarmupMs, trialJvmFlags, false);
  }

  /** {@code inProcess}: trials run in this JVM (--trials in-process), which the environment says. */
  public static Environment probe(long jvmMinWarmupMs, java.util.List<String> trialJvmFlags, boolean inProcess) {
    Runtime rt = Runtime.getRuntime();
    Environment.Builder env =
        Environment.newBuilder()
            .setLanguage("java")
            .setRuntime(System.getProperty("java.vm.name", "unknown JVM"))
            .setRuntimeVersion(System.getProperty("java.runtime.version", Runtime.version().toString()))
            .setBuildProfile("jit")
            .setCpuModel(cpuModel())
            .setCores(rt.availableProcessors())
            .setHostname(hostname())
            .setOs(System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
    env.putDetails("jvm_vendor", System.getProperty("java.vm.vendor", ""));
    env.putDetails("java_version", System.getProperty("java.version", ""));
    env.putDetails("max_heap_bytes", Long.toString(rt.maxMemory()));
    env.putDetails("gc", ManagementFactory.getGarbageCollectorMXBeans().stream()
        .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", ")));
    env.putDetails("jvm_flags", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    env.putDetails("jvm_min_warmup_ms", Long.toString(jvmMinWarmupMs));
    if (inProcess) {
      env.putDetails("trial_process", "in the worker's own JVM (--trials in-process): every trial inherits the "
          + "JIT profile, heap and allocator state of the ones before; for soak and smoke runs, not for measurements");
    } else {
      env.putDetails("trial_process", "forked JVM per trial (same java, classpath and flags; main class "
          + TrialMain.class.getName() + ")");
      env.putDetails("trial_jvm_flags", String.join(" ", trialJvmFlags));
    }
    LibraryVersions.all().forEach((lib, v) -> env.putDetails("lib_" + lib, v));
    return env.build();
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or not readable: say so rather than guess.
    }
    return "unknown (" + System.getProperty("os.arch") + ")";
  }

  private static String hostname() {
    // The kernel's name first: InetAddress.getLocalHost() may wait on a resolver.
    try {
      String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: ask the JDK.
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
