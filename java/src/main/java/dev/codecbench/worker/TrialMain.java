package dev.codecbench.worker;

import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.bench.Laps;
import dev.codecbench.worker.userdata.UserDataException;
import dev.codecbench.worker.userdata.UserDatasets;
import codecbench.v1.Results.Measurement;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The child JVM of one trial (like a JMH fork): {@code TrialMain DIR MIN_WARMUP_MS [DATASET_JSON]}
 * reads the task, the canonical blob and the payload that {@link ForkedTrials} wrote to DIR (and
 * loads a user's dataset from its cache), runs {@link Trial} once, writes the outcome back (with
 * this JVM's phases in phase_ms, its CPU affinity in trial_cpus and its GC in each measurement)
 * and exits. Exit 0 means {@code result.pb} was written (it may carry a failure); anything else is
 * a crash the parent reports with this process's stderr.
 */
public final class TrialMain {
  static final String TASK = "task.pb";
  static final String CANONICAL = "canonical.pb";
  static final String PAYLOAD_IN = "payload.in";
  static final String RESULT = "result.pb";
  static final String PAYLOAD_OUT = "payload.out";

  private TrialMain() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2 && args.length != 3) {
      System.err.println("usage: TrialMain DIR MIN_WARMUP_MS [DATASET_JSON] (started by the Java worker, one per trial)");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    long minWarmupMs = Long.parseLong(args[1]);
    Task task = Task.parseFrom(Files.readAllBytes(dir.resolve(TASK)));
    byte[] canonical = Files.readAllBytes(dir.resolve(CANONICAL));
    Path in = dir.resolve(PAYLOAD_IN);
    byte[] payload = Files.exists(in) ? Files.readAllBytes(in) : null;

    // This JVM's phases, from here (its input read): a user's dataset's models count as load.
    Laps laps = new Laps();
    Trial.Outcome outcome;
    try {
      if (args.length == 3) {
        UserDatasets.load(Path.of(args[2]));
      }
      outcome = Trial.run(task, canonical, payload, minWarmupMs, laps);
    } catch (UserDataException e) {
      laps.lap("load");
      outcome = new Trial.Outcome(java.util.List.of(), "setup failed: " + e.getMessage(), null, laps.ms());
    }

    if (outcome.payload() != null) {
      Files.write(dir.resolve(PAYLOAD_OUT), outcome.payload());
    }
    laps.lap("other");
    ReportResultRequest.Builder result =
        ReportResultRequest.newBuilder().setTaskId(task.getId()).addAllMeasurements(withThisJvm(outcome.measurements()))
            .setFailure(outcome.failure()).putAllPhaseMs(laps.ms()).setTrialCpus(cpusAllowed());
    // Written whole, then renamed: the parent never reads half a result.
    Path tmp = dir.resolve(RESULT + ".tmp");
    Files.write(tmp, result.build().toByteArray());
    Files.move(tmp, dir.resolve(RESULT), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    System.exit(0);
  }

  /**
   * The measurements with what this JVM chose for itself: its GC (environment detail trial_gc;
   * the attached JVM's environment says its own) and the CPUs it sees (extras trial_processors).
   * A trial JVM pinned to fewer CPUs than the worker's may run another GC than the worker's.
   */
  static List<Measurement> withThisJvm(List<Measurement> measurements) {
    String gc = ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
        .collect(Collectors.joining(", "));
    int processors = Runtime.getRuntime().availableProcessors();
    return measurements.stream().map(m -> m.toBuilder()
        .setEnvironment(m.getEnvironment().toBuilder().putDetails("trial_gc", gc))
        .putExtras("trial_processors", processors).build()).toList();
  }

  /** This process's CPU affinity as Linux lists it (/proc/self/status Cpus_allowed_list, e.g. "0-1"); "" elsewhere. */
  static String cpusAllowed() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Cpus_allowed_list:")) {
          return line.substring("Cpus_allowed_list:".length()).strip();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: the OS does not say.
    }
    return "";
  }
}
