package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One task at a time against an in-process blob store: what is reported, and how failures read.
 * Trials run in this JVM here for speed; ForkedTrialsTest runs them in a real child JVM.
 */
class TaskRunnerTest {
  private static final Sampling QUICK = Sampling.newBuilder().setWarmupMs(1).setRounds(2).setMinRoundMs(1).build();

  private FakeBlobStore store;
  private TaskRunner runner;
  private String canonicalId;

  @BeforeEach
  void setUp() throws Exception {
    store = new FakeBlobStore();
    runner = new TaskRunner(new CodecRegistry(), new BlobClient(WorkerServiceGrpc.newBlockingStub(store.channel)),
        Environment.newBuilder().setLanguage("java").build(), 0, Trials.inProcess(0));
    canonicalId = store.add(CanonicalVectors.pb(TestDatasets.DUMMY));
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Task.Builder task(Operation op, String codec) {
    return Task.newBuilder().setId("t1").setOperation(op).setDataset("dummy").setCodec(codec)
        .setRecordCount(CanonicalVectors.canonical(TestDatasets.DUMMY).size()).setCanonicalBlobId(canonicalId)
        .setSampling(QUICK);
  }

  private Task decode(String codec, String mode, byte[] payload) {
    String id = store.add(payload);
    return task(Operation.OPERATION_DECODE, codec).setDecodeMode(mode).addAllLazyFields(List.of("guid", "favoriteFruit"))
        .setPayloadBlobId(id).setPayloadBlobSize(payload.length).setMeasureTransfer(true).build();
  }

  @Test
  void encodeStoresThePayloadOnlyWhenAskedAndReportsOneVerifiedSteadyMeasurement() {
    ReportResultRequest r = runner.run("java-1", task(Operation.OPERATION_ENCODE, "bson").setStorePayload(true).build());
    assertEquals("", r.getFailure());
    assertEquals(1, r.getMeasurementsCount());
    Measurement m = r.getMeasurements(0);
    assertEquals(Operation.OPERATION_ENCODE, m.getOperation());
    assertTrue(m.getVerified());
    assertEquals(2, m.getRoundNsPerOpCount());
    for (String extra : List.of("warmup_ms", "warmup_rounds", "gc_ms", "gc_count", "jit_ms", "jvm_min_warmup_ms",
        "peak_heap_bytes")) {
      assertTrue(m.getExtrasMap().containsKey(extra), extra + " in " + m.getExtrasMap());
    }
    assertTrue(m.getExtrasOrThrow("warmup_rounds") >= 10, "at least ten warm-up rounds: " + m.getExtrasMap());
    // One encode of three records holds a few kilobytes at once (StreamingTrialTest: 20 MB).
    assertTrue(m.getExtrasOrThrow("peak_heap_bytes") > 0, m.getExtrasMap().toString());
    assertTrue(m.getExtrasOrThrow("peak_heap_bytes") < 1 << 20, m.getExtrasMap().toString());
    assertEquals("java", m.getEnvironment().getLanguage());
    // The uploaded payload is the Rust worker's, byte for byte.
    assertArrayEquals(CanonicalVectors.rust(TestDatasets.DUMMY, "bson"), store.blobs.get(r.getPayloadBlobId()));
    assertEquals(r.getPayloadBlobSize(), m.getPayloadBytes());

    int blobs = store.blobs.size();
    ReportResultRequest later = runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").build());
    assertEquals("", later.getFailure());
    assertEquals("", later.getPayloadBlobId(), "a later trial does not store the payload");
    assertEquals(blobs, store.blobs.size());
  }

  @Test
  void prepareStoresTheVerifiedPayloadInThisJvmAndTimesNothing() {
    // Trials that fail the test if called: a prepare task needs no child JVM.
    TaskRunner attachedOnly = new TaskRunner(new CodecRegistry(),
        new BlobClient(WorkerServiceGrpc.newBlockingStub(store.channel)), Environment.newBuilder().setLanguage("java").build(),
        0, (t, c, p) -> {
          throw new AssertionError("a prepare task ran a trial");
        });
    for (String codec : List.of("bson", "protobuf", "json")) {
      int uploads = store.finishedUploads.get();
      ReportResultRequest r = attachedOnly.run("java-1",
          task(Operation.OPERATION_ENCODE, codec).setPrepare(true).setStorePayload(true).setMeasureTransfer(true).build());
      assertEquals("", r.getFailure(), codec);
      assertEquals(0, r.getMeasurementsCount(), "no measurement, not even the upload: " + r);
      assertArrayEquals(CanonicalVectors.rust(TestDatasets.DUMMY, codec), store.blobs.get(r.getPayloadBlobId()), codec);
      assertEquals(CanonicalVectors.rust(TestDatasets.DUMMY, codec).length, r.getPayloadBlobSize());
      assertEquals(uploads + 1, store.finishedUploads.get(), "uploaded once, no timed uploads");
      // Load and verify happened here, in the attached JVM; no process, nothing timed.
      assertEquals(java.util.Set.of("total", "fetch", "load", "verify"), r.getPhaseMsMap().keySet(), r.toString());
    }
    assertEquals("setup failed: a prepare task must store its payload (store_payload is false)",
        attachedOnly.run("java-1", task(Operation.OPERATION_ENCODE, "json").setPrepare(true).build()).getFailure());
    assertEquals("setup failed: a prepare task must be an encode task, not OPERATION_DECODE",
        attachedOnly.run("java-1", decode("json", "typed", CanonicalVectors.rust(TestDatasets.DUMMY, "json")).toBuilder()
            .setPrepare(true).setStorePayload(true).build()).getFailure());
    assertEquals("fetch failed: canonical blob " + canonicalId + " has 3 records, the task says 4",
        attachedOnly.run("java-1", task(Operation.OPERATION_ENCODE, "json").setPrepare(true).setStorePayload(true)
            .setRecordCount(4).build()).getFailure());
  }

  @Test
  void encodeWithTransferTimesTheUpload() {
    ReportResultRequest r = runner.run("java-1",
        task(Operation.OPERATION_ENCODE, "json").setMeasureTransfer(true).build());
    assertEquals("", r.getFailure());
    assertEquals(List.of(Operation.OPERATION_ENCODE, Operation.OPERATION_UPLOAD),
        r.getMeasurementsList().stream().map(Measurement::getOperation).toList());
    Measurement upload = r.getMeasurements(1);
    assertEquals(r.getMeasurements(0).getPayloadBytes(), upload.getPayloadBytes());
    assertFalse(upload.hasAllocBytesPerOp(), "gRPC works on other threads: not counted");
    // The timed uploads went to the store (deduplicated by id), though no id is reported.
    assertTrue(store.blobs.values().stream().anyMatch(b -> b.length == upload.getPayloadBytes()));
  }

  @Test
  void eachCompressionOfTheTaskTimesALegOfItsOwnAndOneNotOfferedFailsNamingIt() {
    WorkerServiceGrpc.WorkerServiceBlockingStub stub = WorkerServiceGrpc.newBlockingStub(store.channel);
    TaskRunner gz = new TaskRunner(new CodecRegistry(), new BlobClient(stub, stub.withCompression("gzip")),
        Environment.newBuilder().setLanguage("java").build(), 0, Trials.inProcess(0));
    ReportResultRequest r = gz.run("java-1", task(Operation.OPERATION_ENCODE, "json").setMeasureTransfer(true)
        .addAllCompressions(List.of("gzip", "identity")).build());
    assertEquals("", r.getFailure());
    assertEquals(List.of("", "gzip", ""), r.getMeasurementsList().stream().map(Measurement::getCompression).toList());
    assertEquals(List.of(Operation.OPERATION_ENCODE, Operation.OPERATION_UPLOAD, Operation.OPERATION_UPLOAD),
        r.getMeasurementsList().stream().map(Measurement::getOperation).toList());
    // A payload that fails verification: the download legs are timed before the trial, and kept.
    byte[] payload = "[]".getBytes(StandardCharsets.UTF_8);
    ReportResultRequest d = gz.run("java-1", decode("json", "typed", payload).toBuilder()
        .addAllCompressions(List.of("identity", "gzip")).build());
    assertEquals(List.of("", "gzip"), d.getMeasurementsList().stream()
        .filter(m -> m.getOperation() == Operation.OPERATION_DOWNLOAD).map(Measurement::getCompression).toList());
    ReportResultRequest z = gz.run("java-1", task(Operation.OPERATION_ENCODE, "json").setMeasureTransfer(true)
        .addAllCompressions(List.of("zstd")).build());
    assertTrue(z.getFailure().contains("the Java worker offers no compression 'zstd' (it offers identity, gzip)"),
        z.getFailure());
  }

  @Test
  void aStreamingEncodeCellTimesOnlyAndStoresNothing() {
    int blobs = store.blobs.size();
    ReportResultRequest r = runner.run("java-1",
        task(Operation.OPERATION_ENCODE, "json").setDecodeMode(Codec.STREAMING).build());
    assertEquals("", r.getFailure());
    assertEquals(List.of(Operation.OPERATION_ENCODE),
        r.getMeasurementsList().stream().map(Measurement::getOperation).toList());
    Measurement m = r.getMeasurements(0);
    assertTrue(m.getVerified());
    assertEquals(CanonicalVectors.rust(TestDatasets.DUMMY, "json").length, m.getPayloadBytes(), "the streamed bytes");
    assertEquals("", r.getPayloadBlobId());
    assertEquals(blobs, store.blobs.size(), "nothing uploaded");
    // Its payload is the in-memory cell's: it neither prepares, stores nor transfers one.
    String timesOnly = "setup failed: a streaming encode cell times only; its payload is the in-memory cell's";
    assertEquals(timesOnly, runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setDecodeMode(Codec.STREAMING)
        .setPrepare(true).setStorePayload(true).build()).getFailure());
    assertEquals(timesOnly, runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setDecodeMode(Codec.STREAMING)
        .setStorePayload(true).build()).getFailure());
    assertEquals(timesOnly, runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setDecodeMode(Codec.STREAMING)
        .setMeasureTransfer(true).build()).getFailure());
    assertEquals("setup failed: codec 'bson' offers no streaming mode", runner.run("java-1",
        task(Operation.OPERATION_ENCODE, "bson").setDecodeMode(Codec.STREAMING).build()).getFailure());
  }

  @Test
  void aStreamedRecordThatDiffersFailsVerificationNamingIt() {
    String json = new String(CanonicalVectors.rust(TestDatasets.DUMMY, "json"), StandardCharsets.UTF_8);
    String email = json.split("\"email\":\"")[2].split("\"")[0];
    byte[] tampered = json.replace(email, "someone@else.org").getBytes(StandardCharsets.UTF_8);
    assertEquals("verification failed: streamed record 1 differs from the canonical one",
        runner.run("java-1", decode("json", Codec.STREAMING, tampered)).getFailure());
    // One record fewer: the count.
    String fewer = json.substring(0, json.lastIndexOf(",{\"_id\"")) + "]}";
    assertEquals("verification failed: 2 records streamed, 3 expected",
        runner.run("java-1", decode("json", Codec.STREAMING, fewer.getBytes(StandardCharsets.UTF_8))).getFailure());
    assertTrue(runner.run("java-1", decode("json", Codec.STREAMING, (json + "x").getBytes(StandardCharsets.UTF_8)))
        .getFailure().startsWith("decode failed: json decode: "));
  }

  @Test
  void protobufEncodeWritesRustsBytes() {
    ReportResultRequest r = runner.run("java-1",
        task(Operation.OPERATION_ENCODE, "protobuf").setStorePayload(true).build());
    assertEquals("", r.getFailure());
    assertTrue(r.getMeasurements(0).getVerified());
    assertArrayEquals(CanonicalVectors.rust(TestDatasets.DUMMY, "protobuf"), store.blobs.get(r.getPayloadBlobId()));
  }

  @Test
  void decodeReportsDownloadAndDecodeForEveryCodecAndMode() {
    for (Codec c : new CodecRegistry().all()) {
      String codec = c.id();
      for (String mode : c.decodeModes()) {
        ReportResultRequest r = runner.run("java-1", decode(codec, mode, CanonicalVectors.rust(TestDatasets.DUMMY, codec)));
        assertEquals("", r.getFailure(), codec + " " + mode);
        assertEquals(List.of(Operation.OPERATION_DOWNLOAD, Operation.OPERATION_DECODE),
            r.getMeasurementsList().stream().map(Measurement::getOperation).toList());
        assertTrue(r.getMeasurementsList().stream().allMatch(Measurement::getVerified));
      }
    }
  }

  @Test
  void aWrongValueFailsVerificationNamingRecordAndField() {
    String json = new String(CanonicalVectors.rust(TestDatasets.DUMMY, "json"), StandardCharsets.UTF_8);
    String email = json.split("\"email\":\"")[2].split("\"")[0];
    byte[] tampered = json.replace(email, "someone@else.org").getBytes(StandardCharsets.UTF_8);
    for (String mode : List.of("typed", "tree")) {
      ReportResultRequest r = runner.run("java-1", decode("json", mode, tampered));
      assertEquals("verification failed: record 1 field email: expected \"" + email + "\", got \"someone@else.org\"",
          r.getFailure(), mode);
      // The download was timed before verification failed, and is kept.
      assertEquals(1, r.getMeasurementsCount());
    }

    // bson lazy: the same-length value in place of record 2's favoriteFruit.
    byte[] bson = CanonicalVectors.rust(TestDatasets.DUMMY, "bson");
    String fruit = CanonicalVectors.canonical(TestDatasets.DUMMY).model().records().get(2).favoriteFruit();
    String other = "x".repeat(fruit.length());
    byte[] wrong = new String(bson, StandardCharsets.ISO_8859_1)
        .replace("favoriteFruit\0" + new String(new byte[] {(byte) (fruit.length() + 1), 0, 0, 0}, StandardCharsets.ISO_8859_1) + fruit,
            "favoriteFruit\0" + new String(new byte[] {(byte) (fruit.length() + 1), 0, 0, 0}, StandardCharsets.ISO_8859_1) + other)
        .getBytes(StandardCharsets.ISO_8859_1);
    ReportResultRequest lazy = runner.run("java-1", decode("bson", "lazy", wrong));
    assertTrue(lazy.getFailure().matches("verification failed: record \\d field favoriteFruit: expected \"" + fruit
        + "\", got \"" + other + "\""), lazy.getFailure());
  }

  @Test
  void garbageFailsWithTheCodecsMessage() {
    byte[] garbage = "garbage".getBytes(StandardCharsets.UTF_8);
    assertTrue(runner.run("java-1", decode("json", "typed", garbage)).getFailure()
        .startsWith("decode failed: json decode: Unrecognized token 'garbage'"));
    assertEquals("decode failed: bson decode: document declares 1651663207 bytes but the payload has 7",
        runner.run("java-1", decode("bson", "lazy", garbage)).getFailure());
  }

  @Test
  void setupAndFetchFailuresSayWhatIsMissing() {
    assertEquals("setup failed: codec 'nosuchcodec' is not offered by this worker",
        runner.run("java-1", task(Operation.OPERATION_ENCODE, "nosuchcodec").build()).getFailure());
    assertEquals("setup failed: unknown dataset 'cars'",
        runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setDataset("cars").build()).getFailure());
    assertEquals("setup failed: codec 'bson' has no decode mode 'streaming' (it has typed, tree, lazy)",
        runner.run("java-1", task(Operation.OPERATION_DECODE, "bson").setDecodeMode("streaming").build())
            .getFailure());
    assertEquals("setup failed: codec 'json' has no decode mode 'lazy' (it has typed, tree, streaming)",
        runner.run("java-1", decode("json", "lazy", CanonicalVectors.rust(TestDatasets.DUMMY, "json"))).getFailure());
    assertEquals("setup failed: lazy decode task without lazy_fields",
        runner.run("java-1", decode("bson", "lazy", CanonicalVectors.rust(TestDatasets.DUMMY, "bson")).toBuilder()
            .clearLazyFields().build()).getFailure());
    String missing = runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setCanonicalBlobId("ab12").build())
        .getFailure();
    assertEquals("fetch failed: canonical records: blob ab12: Status{code=NOT_FOUND, description=no blob ab12, cause=null}",
        missing);
    assertEquals("fetch failed: canonical blob " + canonicalId + " has 3 records, the task says 4",
        runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setRecordCount(4).build()).getFailure());
  }
}
