package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

/** One task at a time against an in-process blob store: what is reported, and how failures read. */
class TaskRunnerTest {
  private static final Sampling QUICK = Sampling.newBuilder().setWarmupMs(1).setRounds(2).setMinRoundMs(1).build();

  private FakeBlobStore store;
  private TaskRunner runner;
  private String canonicalId;

  @BeforeEach
  void setUp() throws Exception {
    store = new FakeBlobStore();
    runner = new TaskRunner(new CodecRegistry(), new BlobClient(WorkerServiceGrpc.newBlockingStub(store.channel)),
        Environment.newBuilder().setLanguage("java").build(), 0);
    canonicalId = store.add(CanonicalVectors.pb(Dataset.DUMMY));
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Task.Builder task(Operation op, String codec) {
    return Task.newBuilder().setId("t1").setOperation(op).setDataset("dummy").setCodec(codec)
        .setRecordCount(CanonicalVectors.canonical(Dataset.DUMMY).size()).setCanonicalBlobId(canonicalId)
        .setSampling(QUICK);
  }

  private Task decode(String codec, String mode, byte[] payload) {
    String id = store.add(payload);
    return task(Operation.OPERATION_DECODE, codec).setDecodeMode(mode).setLazyField("guid")
        .setPayloadBlobId(id).setPayloadBlobSize(payload.length).setMeasureTransfer(true).build();
  }

  @Test
  void encodeUploadsThePayloadAndReportsOneVerifiedMeasurement() {
    ReportResultRequest r = runner.run("java-1", task(Operation.OPERATION_ENCODE, "bson").build());
    assertEquals("", r.getFailure());
    assertEquals(1, r.getMeasurementsCount());
    Measurement m = r.getMeasurements(0);
    assertEquals(Operation.OPERATION_ENCODE, m.getOperation());
    assertTrue(m.getVerified());
    assertEquals(2, m.getRoundNsPerOpCount());
    // The uploaded payload is the Rust worker's, byte for byte.
    assertArrayEquals(CanonicalVectors.rust(Dataset.DUMMY, "bson"), store.blobs.get(r.getPayloadBlobId()));
    assertEquals(r.getPayloadBlobSize(), m.getPayloadBytes());
  }

  @Test
  void protobufEncodeUploadsRustsBytes() {
    ReportResultRequest r = runner.run("java-1", task(Operation.OPERATION_ENCODE, "protobuf").build());
    assertEquals("", r.getFailure());
    assertTrue(r.getMeasurements(0).getVerified());
    assertArrayEquals(CanonicalVectors.rust(Dataset.DUMMY, "protobuf"), store.blobs.get(r.getPayloadBlobId()));
  }

  @Test
  void decodeReportsTransferAndDecodeForEveryCodecAndMode() {
    for (Codec c : new CodecRegistry().all()) {
      String codec = c.id();
      for (String mode : c.decodeModes()) {
        ReportResultRequest r = runner.run("java-1", decode(codec, mode, CanonicalVectors.rust(Dataset.DUMMY, codec)));
        assertEquals("", r.getFailure(), codec + " " + mode);
        assertEquals(List.of(Operation.OPERATION_TRANSFER, Operation.OPERATION_DECODE),
            r.getMeasurementsList().stream().map(Measurement::getOperation).toList());
        assertTrue(r.getMeasurementsList().stream().allMatch(Measurement::getVerified));
      }
    }
  }

  @Test
  void aWrongValueFailsVerificationNamingRecordAndField() {
    String json = new String(CanonicalVectors.rust(Dataset.DUMMY, "json"), StandardCharsets.UTF_8);
    String email = json.split("\"email\":\"")[2].split("\"")[0];
    byte[] tampered = json.replace(email, "someone@else.org").getBytes(StandardCharsets.UTF_8);

    ReportResultRequest typed = runner.run("java-1", decode("json", "typed", tampered));
    assertEquals("verification failed: record 1 field email: expected \"" + email + "\", got \"someone@else.org\"",
        typed.getFailure());
    // The transfer was timed before verification failed, and is kept.
    assertEquals(1, typed.getMeasurementsCount());

    String guid = json.split("\"guid\":\"")[1].split("\"")[0];
    ReportResultRequest lazy = runner.run("java-1",
        decode("json", "lazy", json.replace(guid, "not-a-guid").getBytes(StandardCharsets.UTF_8)));
    assertEquals("verification failed: record 0 field guid: expected \"" + guid + "\", got \"not-a-guid\"",
        lazy.getFailure());
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
    assertEquals("setup failed: codec 'xml' is not offered by this worker",
        runner.run("java-1", task(Operation.OPERATION_ENCODE, "xml").build()).getFailure());
    assertEquals("setup failed: unknown dataset 'cars'",
        runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setDataset("cars").build()).getFailure());
    assertEquals("setup failed: codec 'json' has no decode mode 'streaming' (it has typed, lazy)",
        runner.run("java-1", task(Operation.OPERATION_DECODE, "json").setDecodeMode("streaming").build())
            .getFailure());
    String missing = runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setCanonicalBlobId("ab12").build())
        .getFailure();
    assertEquals("fetch failed: canonical records: blob ab12: Status{code=NOT_FOUND, description=no blob ab12, cause=null}",
        missing);
    assertEquals("fetch failed: canonical blob " + canonicalId + " has 3 records, the task says 4",
        runner.run("java-1", task(Operation.OPERATION_ENCODE, "json").setRecordCount(4).build()).getFailure());
  }
}
