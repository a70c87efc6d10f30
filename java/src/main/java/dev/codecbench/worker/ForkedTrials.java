package dev.codecbench.worker;

import codecbench.v1.Results.Measurement;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.userdata.UserDataException;
import dev.codecbench.worker.userdata.UserDatasets;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every trial in a fresh JVM, as JMH forks: the same java binary, classpath and JVM flags as this
 * one (agent and debugger flags left out), main class {@link TrialMain}. Task, canonical blob and
 * payload go through a temporary directory; the child writes its outcome there and exits. A child
 * that crashes, exits non-zero or outlives the task timeout fails the trial with the tail of its
 * stderr.
 */
public final class ForkedTrials implements Trials {
  static final long DEFAULT_TIMEOUT_S = 300;
  private static final int STDERR_TAIL_CHARS = 1500;

  private final List<String> jvmFlags;
  private final long jvmMinWarmupMs;

  public ForkedTrials(long jvmMinWarmupMs) {
    this(jvmMinWarmupMs, withSharedArchive(inheritedJvmFlags(), System.getProperty("java.class.path")));
  }

  /**
   * {@code flags} plus {@code -XX:SharedArchiveFile=} the class-data-sharing archive beside the
   * worker's jar ({@code codecbench-java-worker.jsa}, written by {@link CdsTraining} at build
   * time), when one is there, is not older than the jar, and a JVM with this class path maps it
   * ({@code -Xshare:on} refuses an archive of another jar or JDK). Otherwise the flags unchanged: a
   * trial JVM then loads every class from the jar, as before. The trial flags are recorded in the
   * environment, so a run says which way its trials started.
   */
  static List<String> withSharedArchive(List<String> flags, String classPath) {
    if (flags.stream().anyMatch(f -> f.startsWith("-XX:SharedArchiveFile") || f.startsWith("-Xshare"))) {
      return flags; // The user chose.
    }
    Path jar = Path.of(classPath).toAbsolutePath();
    String name = jar.getFileName().toString();
    if (classPath.contains(java.io.File.pathSeparator) || !name.endsWith(".jar")) {
      return flags; // Not the packaged worker (tests run from classes directories).
    }
    Path archive = jar.resolveSibling(name.substring(0, name.length() - 4) + ".jsa");
    try {
      if (!Files.isRegularFile(archive)
          || Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) < 0) {
        return flags;
      }
      String flag = "-XX:SharedArchiveFile=" + archive;
      Process probe = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xshare:on", flag, "-cp", classPath, "-version").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0) {
        List<String> out = new ArrayList<>(flags);
        out.add(flag);
        return out;
      }
      probe.destroyForcibly();
      WorkerLoop.log("warning: " + archive + " does not map with this JVM and jar; trial JVMs start without it");
    } catch (IOException e) {
      WorkerLoop.log("warning: checking " + archive + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return flags;
  }

  ForkedTrials(long jvmMinWarmupMs, List<String> jvmFlags) {
    this.jvmMinWarmupMs = jvmMinWarmupMs;
    this.jvmFlags = List.copyOf(jvmFlags);
  }

  /** This JVM's flags without agents and debuggers (a child must not open the same debug port). */
  public static List<String> inheritedJvmFlags() {
    List<String> out = new ArrayList<>();
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!(a.startsWith("-agentlib:") || a.startsWith("-agentpath:") || a.startsWith("-javaagent:")
          || a.equals("-Xdebug") || a.startsWith("-Xrunjdwp"))) {
        out.add(a);
      }
    }
    return out;
  }

  public List<String> jvmFlags() {
    return jvmFlags;
  }

  /** The child JVM's command line; with the task's cpus (its lane) behind {@code taskset -c}. */
  List<String> command(Path dir, Task task) throws TaskFailure {
    List<String> cmd = new ArrayList<>();
    if (task.getCpusCount() > 0) {
      // The JVM has no API to set its own affinity, so the trial JVM is started pinned by taskset
      // (util-linux), which sets it and execs java: the JVM and every thread it starts stay on
      // the lane's CPUs. A JVM that sees one CPU picks its own ergonomics for one CPU (Serial GC,
      // fewer compiler threads); they are left as the JVM chooses, and each measurement says which
      // GC the trial JVM ran (environment detail trial_gc, extras trial_processors).
      String cpus = cpuList(task);
      Path taskset = onPath("taskset").orElseThrow(() -> TaskFailure.at("trial", "the task asks for cpus " + cpus
          + " but taskset (util-linux) is not on PATH, so the trial JVM cannot be pinned to them"));
      cmd.addAll(List.of(taskset.toString(), "-c", cpus));
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags);
    Optional<Path> manifest = UserDatasets.manifestOf(task.getDataset());
    if (manifest.isPresent()) {
      try {
        cmd.add(UserDatasets.childJvmFlag());
      } catch (UserDataException e) {
        throw TaskFailure.at("trial", e.getMessage());
      }
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(TrialMain.class.getName());
    cmd.add(dir.toString());
    cmd.add(Long.toString(jvmMinWarmupMs));
    // A user's dataset: the child loads its models from the cache the worker built at start-up.
    manifest.ifPresent(m -> cmd.add(m.toString()));
    return cmd;
  }

  /** Task.cpus as taskset reads them: "0,1". */
  static String cpuList(Task task) {
    return task.getCpusList().stream().map(Integer::toUnsignedString).collect(Collectors.joining(","));
  }

  /** An executable {@code name} in a directory of PATH. */
  static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    return Stream.of(path.split(java.io.File.pathSeparator)).filter(d -> !d.isEmpty()).map(d -> Path.of(d, name))
        .filter(Files::isExecutable).findFirst();
  }

  @Override
  public Trial.Outcome run(Task task, byte[] canonicalBlob, byte[] payload) throws TaskFailure {
    Path dir;
    try {
      dir = Files.createTempDirectory("codecbench-trial-");
    } catch (IOException e) {
      throw TaskFailure.at("trial", "cannot create a directory for the child JVM: " + e.getMessage());
    }
    try {
      return runIn(dir, task, canonicalBlob, payload);
    } finally {
      deleteRecursively(dir);
    }
  }

  private Trial.Outcome runIn(Path dir, Task task, byte[] canonicalBlob, byte[] payload) throws TaskFailure {
    // Both streams: HotSpot prints start-up errors ("Too small maximum heap") to stdout.
    Path stderr = dir.resolve("child.log");
    Process child;
    long start = System.nanoTime();
    try {
      Files.write(dir.resolve(TrialMain.TASK), task.toByteArray());
      Files.write(dir.resolve(TrialMain.CANONICAL), canonicalBlob);
      if (payload != null) {
        Files.write(dir.resolve(TrialMain.PAYLOAD_IN), payload);
      }
      child = new ProcessBuilder(command(dir, task))
          .redirectErrorStream(true)
          .redirectOutput(stderr.toFile())
          .start();
    } catch (IOException e) {
      throw TaskFailure.at("trial", "cannot start the child JVM: " + e.getMessage());
    }
    long timeoutS = task.getSampling().getTaskTimeoutS() == 0 ? DEFAULT_TIMEOUT_S : task.getSampling().getTaskTimeoutS();
    try {
      if (!child.waitFor(timeoutS, TimeUnit.SECONDS)) {
        child.destroyForcibly();
        child.waitFor(5, TimeUnit.SECONDS);
        throw TaskFailure.at("trial", "the child JVM did not finish within " + timeoutS
            + " s (task_timeout_s); stderr: " + tail(stderr));
      }
    } catch (InterruptedException e) {
      child.destroyForcibly();
      Thread.currentThread().interrupt();
      throw TaskFailure.at("trial", "interrupted while the child JVM ran");
    }
    double wallMs = (System.nanoTime() - start) / 1e6;
    int exit = child.exitValue();
    Path result = dir.resolve(TrialMain.RESULT);
    if (exit != 0 || !Files.isRegularFile(result)) {
      String signal = exit > 128 ? " (signal " + (exit - 128) + ")" : "";
      // Pinned, a non-zero exit may be taskset's own ("failed to set pid ...'s affinity"), in the stderr.
      String pinned = task.getCpusCount() > 0 ? " (started by taskset -c " + cpuList(task) + ")" : "";
      throw TaskFailure.at("trial", "the child JVM" + pinned + " exited with code " + exit + signal
          + (exit == 0 ? " without a result" : "") + "; stderr: " + tail(stderr));
    }
    try {
      ReportResultRequest r = ReportResultRequest.parseFrom(Files.readAllBytes(result));
      Path out = dir.resolve(TrialMain.PAYLOAD_OUT);
      byte[] encoded = Files.exists(out) ? Files.readAllBytes(out) : null;
      List<Measurement> ms = new ArrayList<>();
      for (Measurement m : r.getMeasurementsList()) {
        ms.add(m.toBuilder().putExtras("forked", 1).putExtras("trial_jvm_ms", wallMs).build());
      }
      return new Trial.Outcome(ms, r.getFailure(), encoded, r.getPhaseMsMap(), r.getTrialCpus());
    } catch (IOException e) {
      throw TaskFailure.at("trial", "cannot read the child JVM's result: " + e.getMessage());
    }
  }

  /** The end of the child's stderr on one line, or "(empty)". */
  static String tail(Path stderr) {
    String text;
    try {
      text = Files.readString(stderr, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
    if (text.isEmpty()) {
      return "(empty)";
    }
    if (text.length() > STDERR_TAIL_CHARS) {
      text = "..." + text.substring(text.length() - STDERR_TAIL_CHARS);
    }
    return text.replaceAll("\\s*\\R\\s*", " | ");
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temp directory is not worth failing a measured task over.
    }
  }
}
