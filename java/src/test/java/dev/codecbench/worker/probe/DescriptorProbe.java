package dev.codecbench.worker.probe;

import codecbench.v1.Datasets;
import codecbench.v1.Datasets.NumericDataset;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.codecbench.worker.dataset.Dataset;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Not a test: a probe of the measurement artifact TrialChildInitTest guards against.
 * Parses a 1,000-record NumericDataset (the canonical vector's records, cycled) 200 times per
 * round, 30 rounds, and prints the median ns and heap bytes per record, in a fresh JVM per mode:
 * {@code plain} (parse only), {@code registry} (the worker's dataset registry loaded first, as a
 * trial does), {@code descriptors} (datasets.proto's descriptors built and walked first: what the
 * registry did before its options became generated constants).
 *
 * <pre>
 * cd java && mvn -o -q test-compile && java -cp "target/test-classes:$(cat target/probe.cp)" \
 *   dev.codecbench.worker.probe.DescriptorProbe all
 * </pre>
 * (target/probe.cp: {@code mvn -o -q dependency:build-classpath -Dmdep.outputFile=target/probe.cp}
 * with target/classes prepended.) Run it on a quiet machine: it measures nothing else.
 */
public final class DescriptorProbe {
  private static final int RECORDS = 1_000;
  private static final int PARSES_PER_ROUND = 200;
  private static final int ROUNDS = 30;
  private static final List<String> MODES = List.of("plain", "registry", "descriptors");

  private DescriptorProbe() {}

  public static void main(String[] args) throws Exception {
    String mode = args.length == 1 ? args[0] : "all";
    if (mode.equals("all")) {
      for (String m : MODES) {
        fork(m);
      }
      return;
    }
    byte[] payload = payload();
    switch (mode) {
      case "plain" -> { }
      case "registry" -> Dataset.byId("numeric").orElseThrow();
      case "descriptors" -> walk(Datasets.getDescriptor().getMessageTypes());
      default -> throw new IllegalArgumentException("mode " + mode + " is not one of " + MODES + " or all");
    }
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    double[] ns = new double[ROUNDS];
    double[] bytes = new double[ROUNDS];
    long sink = 0;
    for (int r = 0; r < ROUNDS; r++) {
      long a0 = threads.getThreadAllocatedBytes(tid);
      long t0 = System.nanoTime();
      for (int i = 0; i < PARSES_PER_ROUND; i++) {
        sink += NumericDataset.parseFrom(payload).getRecordsCount();
      }
      long t1 = System.nanoTime();
      long a1 = threads.getThreadAllocatedBytes(tid);
      ns[r] = (t1 - t0) / (double) (PARSES_PER_ROUND * RECORDS);
      bytes[r] = (a1 - a0) / (double) (PARSES_PER_ROUND * RECORDS);
    }
    // The median of the last 20 rounds (the first ones are warm-up).
    System.out.printf("%-12s parse %.0f ns/record, %.0f B/record (median of rounds 11-30; first round %.0f ns)%s%n",
        mode, median(Arrays.copyOfRange(ns, 10, ROUNDS)), median(Arrays.copyOfRange(bytes, 10, ROUNDS)), ns[0],
        sink == 0 ? "!" : "");
  }

  private static void walk(List<Descriptor> messages) {
    for (Descriptor m : messages) {
      m.getOptions();
      for (FieldDescriptor f : m.getFields()) {
        f.getJsonName();
      }
      walk(m.getNestedTypes());
    }
  }

  private static byte[] payload() throws Exception {
    NumericDataset vector = NumericDataset.parseFrom(Files.readAllBytes(Path.of("..", "codecs", "vectors", "numeric.pb")));
    NumericDataset.Builder b = NumericDataset.newBuilder();
    for (int i = 0; i < RECORDS; i++) {
      b.addRecords(vector.getRecords(i % vector.getRecordsCount()));
    }
    return b.build().toByteArray();
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static void fork(String mode) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), DescriptorProbe.class.getName(), mode));
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(mode + " exited " + p.exitValue());
    }
  }
}
