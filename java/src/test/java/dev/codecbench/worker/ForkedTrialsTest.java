package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.Results.Environment;
import codecbench.v1.Results.Measurement;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.dataset.Dataset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** TrialMain in a real child JVM, started as the worker starts it: outcome, failures, crashes. */
class ForkedTrialsTest {
  private static final Sampling QUICK =
      Sampling.newBuilder().setWarmupMs(20).setMaxWarmupMs(3_000).setRounds(3).setMinRoundMs(2).build();

  private FakeBlobStore store;
  private String canonicalId;

  @BeforeEach
  void setUp() throws Exception {
    store = new FakeBlobStore();
    canonicalId = store.add(CanonicalVectors.pb(TestDatasets.DUMMY));
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private TaskRunner runner(ForkedTrials trials) {
    return new TaskRunner(new dev.codecbench.worker.codec.CodecRegistry(),
        new BlobClient(WorkerServiceGrpc.newBlockingStub(store.channel)),
        Environment.newBuilder().setLanguage("java").build(), 0, trials);
  }

  private Task.Builder task(Operation op, String codec) {
    return Task.newBuilder().setId("t1").setOperation(op).setDataset("dummy").setCodec(codec)
        .setRecordCount(CanonicalVectors.canonical(TestDatasets.DUMMY).size()).setCanonicalBlobId(canonicalId)
        .setCellId("c1").setSampling(QUICK);
  }

  private Task decode(String codec, String mode, byte[] payload) {
    return task(Operation.OPERATION_DECODE, codec).setDecodeMode(mode).setPayloadBlobId(store.add(payload))
        .setPayloadBlobSize(payload.length).build();
  }

  @Test
  void anEncodeTrialRunsInAChildJvmAndReturnsItsMeasurementAndPayload() {
    long start = System.nanoTime();
    ReportResultRequest r = runner(new ForkedTrials(0))
        .run("java-1", task(Operation.OPERATION_ENCODE, "protobuf").setStorePayload(true).build());
    double wallMs = (System.nanoTime() - start) / 1e6;
    assertEquals("", r.getFailure());
    assertEquals(1, r.getMeasurementsCount());
    Measurement m = r.getMeasurements(0);
    assertEquals(Operation.OPERATION_ENCODE, m.getOperation());
    assertTrue(m.getVerified());
    assertEquals(3, m.getRoundNsPerOpCount());
    assertEquals(1.0, m.getExtrasOrThrow("forked"));
    assertTrue(m.getExtrasOrThrow("warmup_rounds") >= 10, m.getExtrasMap().toString());
    assertTrue(m.getExtrasOrThrow("trial_jvm_ms") > m.getExtrasOrThrow("warmup_ms"), m.getExtrasMap().toString());
    assertTrue(m.hasAllocBytesPerOp() && m.getAllocBytesPerOp() > 0);
    // Not pinned: the child may run where the worker may, and says so itself.
    assertEquals(TrialMain.cpusAllowed(), r.getTrialCpus());
    assertFalse(r.getTrialCpus().isEmpty(), "Linux lists the CPUs in /proc/self/status");
    // The payload came back from the child, byte for byte Rust's, and was stored.
    assertEquals(CanonicalVectors.rust(TestDatasets.DUMMY, "protobuf").length, r.getPayloadBlobSize());
    assertTrue(java.util.Arrays.equals(CanonicalVectors.rust(TestDatasets.DUMMY, "protobuf"),
        store.blobs.get(r.getPayloadBlobId())));
    System.err.printf("one forked trial: %.0f ms in all, child JVM %.0f ms, warm-up %.0f ms (%d rounds, steady %s)%n",
        wallMs, m.getExtrasOrThrow("trial_jvm_ms"), m.getExtrasOrThrow("warmup_ms"),
        (long) m.getExtrasOrThrow("warmup_rounds"), m.getSteady());
  }

  @Test
  void aTrialWithCpusRunsInAChildJvmPinnedToThemAndSaysWhichGcItChose() {
    // Warm-up capped short: only where the child ran is checked.
    Sampling brief = QUICK.toBuilder().setMaxWarmupMs(200).build();
    ReportResultRequest r = runner(new ForkedTrials(0))
        .run("java-1", task(Operation.OPERATION_ENCODE, "json").setSampling(brief).addCpus(0).build());
    assertEquals("", r.getFailure());
    // Read by the child JVM from its own /proc/self/status.
    assertEquals("0", r.getTrialCpus());
    Measurement m = r.getMeasurements(0);
    assertEquals(1.0, m.getExtrasOrThrow("trial_processors"), m.getExtrasMap().toString());
    String gc = m.getEnvironment().getDetailsOrDefault("trial_gc", "");
    assertFalse(gc.isEmpty(), m.getEnvironment().toString());
    assertEquals("java", m.getEnvironment().getLanguage(), "the worker's environment, with the trial's details added");
    System.err.println("a trial JVM pinned to CPU 0 ran GC: " + gc);
  }

  @Test
  void aTrialPinnedToCpusTheMachineLacksFailsWithTasksetsMessage() {
    ReportResultRequest r = runner(new ForkedTrials(0))
        .run("java-1", task(Operation.OPERATION_ENCODE, "json").addCpus(4095).build());
    assertTrue(r.getFailure().startsWith("trial failed: the child JVM (started by taskset -c 4095) exited with code 1; "
        + "stderr: taskset: "), r.getFailure());
  }

  @Test
  void theChildJvmIsStartedThroughTasksetOnlyWhenTheTaskHasCpus() throws Exception {
    ForkedTrials trials = new ForkedTrials(0, List.of("-Xmx64m"));
    Path dir = Path.of("/tmp/unused");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> plain = trials.command(dir, task(Operation.OPERATION_ENCODE, "json").build());
    assertEquals(List.of(java, "-Xmx64m", "-cp"), plain.subList(0, 3));
    assertFalse(plain.stream().anyMatch(a -> a.contains("taskset")), plain.toString());
    List<String> pinned = trials.command(dir, task(Operation.OPERATION_ENCODE, "json").addCpus(1).addCpus(3).build());
    assertTrue(pinned.get(0).endsWith("/taskset"), pinned.toString());
    assertEquals(List.of("-c", "1,3"), pinned.subList(1, 3));
    assertEquals(plain, pinned.subList(3, pinned.size()));
  }

  @Test
  void aForkedTrialReportsWhereItsTimeWent() {
    byte[] payload = CanonicalVectors.rust(TestDatasets.DUMMY, "protobuf");
    ReportResultRequest r = runner(new ForkedTrials(0)).run("java-1",
        decode("protobuf", "typed", payload).toBuilder().setMeasureTransfer(true).build());
    assertEquals("", r.getFailure());
    Map<String, Double> ms = r.getPhaseMsMap();
    System.err.println("one forked decode trial's phase_ms: " + new TreeMap<>(ms));
    for (String phase :
        List.of("total", "fetch", "transfer", "process", "load", "verify", "warmup", "rounds", "other")) {
      assertTrue(ms.getOrDefault(phase, 0.0) > 0, phase + " missing or not positive: " + ms);
    }
    // The child's phases are measured inside the process lap; the rest of it is the JVM's start and end.
    double child = ms.get("load") + ms.get("verify") + ms.get("warmup") + ms.get("rounds");
    assertTrue(ms.get("process") >= child + ms.get("other"), ms.toString());
    assertTrue(ms.get("total") >= ms.get("fetch") + ms.get("transfer") + ms.get("process"), ms.toString());
    // The child's warm-up and rounds are the measurement's own.
    Measurement decode = r.getMeasurementsList().stream()
        .filter(m -> m.getOperation() == Operation.OPERATION_DECODE).findFirst().orElseThrow();
    assertEquals(decode.getExtrasOrThrow("warmup_ms"), ms.get("warmup"), 1e-9);
    assertTrue(decode.getExtrasOrThrow("trial_jvm_ms") <= ms.get("process"), ms.toString());
  }

  @Test
  void aCorruptPayloadFailsTheTrialWithTheCodecsMessage() {
    byte[] corrupt = "{\"records\": [garbage".getBytes(StandardCharsets.UTF_8);
    ReportResultRequest r = runner(new ForkedTrials(0)).run("java-1", decode("json", "typed", corrupt));
    assertTrue(r.getFailure().startsWith("decode failed: json decode: Unrecognized token 'garbage'"), r.getFailure());
    assertEquals(0, r.getMeasurementsCount());
    // A failed trial still says where its time went, as far as it got.
    assertTrue(r.getPhaseMsMap().keySet().containsAll(List.of("total", "fetch", "process", "load")), r.toString());
    assertFalse(r.getPhaseMsMap().containsKey("warmup"), "nothing was timed: " + r.getPhaseMsMap());
  }

  @Test
  void aChildJvmThatCannotStartFailsWithItsStderr() {
    ReportResultRequest r = runner(new ForkedTrials(0, List.of("-Xmx1m")))
        .run("java-1", task(Operation.OPERATION_ENCODE, "json").build());
    assertTrue(r.getFailure().startsWith("trial failed: the child JVM exited with code 1; stderr: "), r.getFailure());
    assertTrue(r.getFailure().contains("Too small maximum heap"), r.getFailure());
    assertTrue(r.getPhaseMsMap().get("process") > 0, "a crashed child's time is process: " + r.getPhaseMsMap());
  }

  @Test
  void aChildJvmPastTheTaskTimeoutIsStoppedAndFailsTheTrial() {
    Sampling slow = QUICK.toBuilder().setWarmupMs(60_000).setMaxWarmupMs(60_000).setTaskTimeoutS(2).build();
    long start = System.nanoTime();
    ReportResultRequest r = runner(new ForkedTrials(0))
        .run("java-1", task(Operation.OPERATION_ENCODE, "json").setSampling(slow).build());
    assertTrue(r.getFailure().startsWith("trial failed: the child JVM did not finish within 2 s (task_timeout_s)"),
        r.getFailure());
    assertTrue((System.nanoTime() - start) / 1e9 < 20, "stopped, not waited for");
  }

  @Test
  void inheritedFlagsLeaveAgentsAndDebuggersOut() {
    for (String f : ForkedTrials.inheritedJvmFlags()) {
      assertTrue(!f.startsWith("-javaagent:") && !f.startsWith("-agentlib:") && !f.startsWith("-Xrunjdwp"), f);
    }
  }
}
