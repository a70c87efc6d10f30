package dev.codecbench.worker.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import codecbench.v1.HarnessServiceOuterClass.GetRunRequest;
import codecbench.v1.HarnessServiceOuterClass.GetRunResponse;
import codecbench.v1.HarnessServiceOuterClass.StartRunRequest;
import codecbench.v1.HarnessServiceOuterClass.StartRunResponse;
import codecbench.v1.Results.Measurement;
import codecbench.v1.Results.RunStatus;
import codecbench.v1.Results.TaskStatus;
import codecbench.v1.Results.TaskSummary;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.ScenarioOuterClass.Scenario;
import codecbench.v1.WorkerServiceOuterClass.WorkerInfo;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Control + Rust worker + Java worker: each encodes and the other decodes numeric records, for json and
 * bson, in every decode mode Java has, every measurement verified; and a
 * garbage payload fails the Java worker's tasks with the codec's message while the worker stays
 * attached and takes the next task.
 */
@Tag("e2e")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class WorkerEndToEndIT {
  /**
   * Two codecs with every decode mode Java has (typed, tree, streaming, lazy; Rust has them too):
   * what this test checks is Java's side of every mode. Every codec between every pair of languages
   * is harness/tests/test_all_languages.py's (five codecs here took 176 s).
   */
  private static final Map<String, List<String>> CODECS = new java.util.TreeMap<>(Map.of(
      "json", List.of("typed", "tree", "streaming"), "bson", List.of("typed", "tree", "lazy")));
  // One trial per cell and one dataset keep the test short (two datasets took 265 s); every trial is
  // still a fresh child JVM. Every dataset and every language pair: harness/tests/test_all_languages.py.
  // repeatSameBytes: every producer's payload is decoded by every consumer, even where the bytes are
  // the same (otherwise control decodes those once per consumer): these tests are about the cross cells.
  private static final Sampling QUICK = Sampling.newBuilder().setWarmupMs(20).setMaxWarmupMs(2_000).setRounds(3)
      .setMinRoundMs(2).setTrials(1).setRepeatSameBytes(true).build();

  @TempDir static Path stateDir;
  private static Cluster cluster;
  private static WorkerInfo rust;
  private static WorkerInfo java;

  private static Optional<String> skipped;

  @BeforeAll
  static void start() throws Exception {
    skipped = Cluster.unavailable();
    if (skipped.isPresent()) {
      // Printed as well, so the reason shows in the build output and not only in the reports.
      System.err.println(skipped.get());
      return;
    }
    cluster = Cluster.start(stateDir, "WorkerEndToEndIT");
    rust = cluster.awaitWorker("rust");
    java = cluster.awaitWorker("java");
  }

  @BeforeEach
  void needsTheBinaries() {
    assumeTrue(skipped.isEmpty(), skipped::get);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void rustAndJavaDecodeEachOthersPayloads() {
    GetRunResponse run = runToEnd(Scenario.newBuilder().setName("e2e-cross").addDatasets("numeric")
        .addAllCodecs(CODECS.keySet()).addCounts(20).setSampling(QUICK).build());

    List<TaskSummary> failed = run.getTasksList().stream()
        .filter(t -> t.getStatus() != TaskStatus.TASK_STATUS_DONE).toList();
    assertTrue(failed.isEmpty(), "every task done, not: " + failed + "; logs in " + cluster.logs());

    String[][] pairs = {{rust.getId(), java.getId()}, {java.getId(), rust.getId()}, {java.getId(), java.getId()}};
    for (String dataset : List.of("numeric")) {
      for (String codec : CODECS.keySet()) {
        Measurement encode = find(run, Operation.OPERATION_ENCODE, dataset, codec, "", java.getId(), java.getId());
        assertJavaMeasurement(encode);
        if (CODECS.get(codec).contains("streaming")) {
          // The streaming encode cell: its own timed trials, the in-memory cell's payload size.
          Measurement streamed = find(run, Operation.OPERATION_ENCODE, dataset, codec, "streaming", java.getId(),
              java.getId());
          assertJavaMeasurement(streamed);
          assertEquals(encode.getPayloadBytes(), streamed.getPayloadBytes());
        }
        for (String mode : CODECS.get(codec)) {
          for (String[] pair : pairs) {
            Measurement decode = find(run, Operation.OPERATION_DECODE, dataset, codec, mode, pair[0], pair[1]);
            assertTrue(decode.getVerified(), "verified: " + decode);
            assertTrue(decode.getFailure().isEmpty(), decode.getFailure());
            assertEquals(3, decode.getRoundNsPerOpCount());
            if (pair[1].equals(java.getId())) {
              assertJavaMeasurement(decode);
            }
          }
        }
      }
    }
  }

  private static void assertJavaMeasurement(Measurement m) {
    assertEquals("java", m.getLanguage());
    assertTrue(m.getVerified(), "verified: " + m);
    assertEquals(3, m.getRoundNsPerOpCount());
    assertTrue(m.getRoundNsPerOpList().stream().allMatch(ns -> ns > 0), "positive timings: " + m);
    assertTrue(m.getOpsPerRound() >= 1);
    assertTrue(m.hasAllocBytesPerOp() && m.getAllocBytesPerOp() > 0, "allocation counted: " + m);
    assertTrue(m.getExtrasOrThrow("warmup_ms") >= 100, "JVM minimum warm-up applied: " + m.getExtrasMap());
    assertEquals(100.0, m.getExtrasOrThrow("jvm_min_warmup_ms"));
    for (String extra : List.of("gc_ms", "gc_count", "jit_ms", "warmup_rounds", "forked", "trial_jvm_ms",
        "peak_heap_bytes")) {
      assertTrue(m.getExtrasMap().containsKey(extra), extra + " in " + m.getExtrasMap());
    }
    assertEquals("jit", m.getEnvironment().getBuildProfile());
    assertFalse(m.getEnvironment().getDetailsOrThrow("gc").isEmpty());
    assertTrue(m.getEnvironment().getDetailsMap().containsKey("jvm_flags"));
    assertTrue(m.getEnvironment().getDetailsOrThrow("trial_process").startsWith("forked JVM per trial"));
    assertTrue(m.getExtrasOrThrow("warmup_rounds") >= 10, "steady-state warm-up: " + m.getExtrasMap());
    assertTrue(m.getEnvironment().getDetailsMap().containsKey("max_heap_bytes"));
  }

  @Test
  void garbagePayloadFailsWithTheCodecsMessageAndTheWorkerTakesTheNextTask() throws Exception {
    try (GarbageProducer garbage = new GarbageProducer(cluster.channel)) {
      String fakeId = garbage.awaitId();
      GetRunResponse bad = runToEnd(Scenario.newBuilder().setName("e2e-garbage").addDatasets("dummy")
          .addCodecs("json").addCodecs("bson").addCounts(5).addProducers(fakeId).addConsumers(java.getId())
          .addOperations(Operation.OPERATION_ENCODE).addOperations(Operation.OPERATION_DECODE)
          .setSampling(QUICK).build());

      List<TaskSummary> decodes = bad.getTasksList().stream()
          .filter(t -> t.getOperation() == Operation.OPERATION_DECODE).toList();
      // json typed/tree and bson typed/tree/lazy (and control's A/A twin): tasks in a row, each
      // failing, each taken after the last failed.
      assertTrue(decodes.size() >= 5, "decode tasks: " + decodes);
      for (TaskSummary t : decodes) {
        assertEquals(TaskStatus.TASK_STATUS_FAILED, t.getStatus(), t.toString());
        assertEquals(java.getId(), t.getConsumerWorkerId());
        assertTrue(t.getFailure().startsWith("decode failed: " + t.getCodec() + " decode: "),
            "failure names the step and the codec: " + t.getFailure());
      }
    }

    // Still the same attachment, and it still does real work.
    assertEquals(java.getId(), cluster.worker("java").orElseThrow().getId());
    GetRunResponse good = runToEnd(Scenario.newBuilder().setName("e2e-after-garbage").addDatasets("beers")
        .addCodecs("json").addCounts(5).addProducers(java.getId()).addConsumers(java.getId())
        .setSampling(QUICK).build());
    Map<TaskStatus, Long> statuses = good.getTasksList().stream()
        .collect(Collectors.groupingBy(TaskSummary::getStatus, Collectors.counting()));
    assertEquals(Map.of(TaskStatus.TASK_STATUS_DONE, (long) good.getTasksCount()), statuses,
        "tasks after the failures: " + good.getTasksList());
  }

  /** Starts a run, follows its stream until it ends, and returns it as stored. */
  private static GetRunResponse runToEnd(Scenario scenario) {
    Iterator<StartRunResponse> events = cluster.harness.withDeadlineAfter(5, TimeUnit.MINUTES)
        .startRun(StartRunRequest.newBuilder().setScenario(scenario).setSource("WorkerEndToEndIT").build());
    String runId = null;
    while (events.hasNext()) {
      StartRunResponse e = events.next();
      if (e.getEvent().hasRun()) {
        runId = e.getEvent().getRun().getId();
        RunStatus status = e.getEvent().getRun().getStatus();
        if (status == RunStatus.RUN_STATUS_FINISHED) {
          return cluster.harness.getRun(GetRunRequest.newBuilder().setRunId(runId).build());
        }
        if (status == RunStatus.RUN_STATUS_FAILED || status == RunStatus.RUN_STATUS_CANCELLED) {
          fail("run " + scenario.getName() + " ended " + status + ": " + e.getEvent().getRun().getMessage());
        }
      }
    }
    return fail("run " + runId + " (" + scenario.getName() + ") stream ended before FINISHED; logs in " + cluster.logs());
  }

  private static Measurement find(GetRunResponse run, Operation op, String dataset, String codec, String mode,
      String producer, String consumer) {
    return run.getMeasurementsList().stream()
        .filter(m -> m.getOperation() == op && m.getDataset().equals(dataset) && m.getCodec().equals(codec)
            && m.getDecodeMode().equals(mode) && m.getProducerWorkerId().equals(producer)
            && (op == Operation.OPERATION_ENCODE || m.getConsumerWorkerId().equals(consumer)))
        .findFirst()
        .orElseGet(() -> fail("no " + op + " measurement " + dataset + "/" + codec + "/" + mode + " "
            + producer + " -> " + consumer + "; logs in " + cluster.logs()));
  }
}
