package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The json streaming mode on a ~20 MB matrix payload, both ways: what moves at a time is bounded
 * by the 4 KiB buffer, the bytes are the in-memory encode's, and a trial verifies the streamed
 * records one by one (rust/worker/tests/trial.rs, streaming_holds_a_bounded_buffer_not_the_payload).
 */
class StreamingTrialTest {
  /** One calibration op, one warm-up round (capped at once), one timed round. */
  private static final Sampling ONE_ROUND =
      Sampling.newBuilder().setWarmupMs(1).setMaxWarmupMs(1).setRounds(1).setMinRoundMs(0).build();
  private static final int ROWS = 12_000;

  private static Codec json;
  private static Records<List<String>> rows;
  private static byte[] canonical;
  private static byte[] payload;

  @BeforeAll
  static void payload() throws Exception {
    json = new CodecRegistry().byId("json").orElseThrow();
    rows = matrix(ROWS, 1);
    canonical = TestDatasets.MATRIX.toProto(rows).toByteArray();
    payload = json.encode(TestDatasets.MATRIX, rows);
    assertTrue(payload.length > 15_000_000, "payload of " + payload.length + " bytes");
  }

  /** {@code n} rows of 100 decimal cells, like the matrix dataset's. */
  static Records<List<String>> matrix(int n, long seed) {
    Random rnd = new Random(seed);
    List<List<String>> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      List<String> row = new ArrayList<>(100);
      for (int c = 0; c < 100; c++) {
        row.add(Double.toString(Math.round(rnd.nextDouble() * 1e12) / 1e6));
      }
      out.add(List.copyOf(row));
    }
    return new Records<>(List.copyOf(out));
  }

  private static Task task(Operation op, String mode) {
    return Task.newBuilder().setId("t").setOperation(op).setDataset("matrix").setCodec("json").setDecodeMode(mode)
        .setRecordCount(ROWS).setSampling(ONE_ROUND).build();
  }

  @Test
  void encodeHandsTheDrainFullBuffersNeverThePayload() throws Exception {
    Streams.Drain drain = new Streams.Drain();
    json.encodeStreaming(TestDatasets.MATRIX, rows, drain);
    assertEquals(payload.length, drain.drained(), "every byte of the payload went through the drain");
    assertEquals(Streams.STREAM_BUFFER, drain.largestChunk(), "4 KiB at a time, never more");
    assertEquals(payload.length, Streams.encodeOnce(json, TestDatasets.MATRIX, rows));
  }

  @Test
  void decodeReadsFourKibAtATimeAndHandsOverEveryRecord() throws Exception {
    Streams.Chunked in = new Streams.Chunked(payload);
    int[] seen = {0};
    long n = json.decodeStreaming(TestDatasets.MATRIX, in, r -> {
      assertEquals(rows.records().get(seen[0]), r);
      seen[0]++;
    });
    assertEquals(ROWS, n);
    assertEquals(ROWS, seen[0]);
    assertEquals(Streams.STREAM_BUFFER, in.largestRead(), "4 KiB reads");
  }

  @Test
  void streamingTrialsVerifyThenTimeBothWays() {
    Trial.Outcome enc = Trial.run(task(Operation.OPERATION_ENCODE, Codec.STREAMING), canonical, null, 0);
    assertEquals("", enc.failure());
    assertEquals(1, enc.measurements().size());
    assertEquals(payload.length, enc.measurements().get(0).getPayloadBytes(), "the streamed bytes are the payload's");
    assertNull(enc.payload(), "a streaming encode keeps no payload");

    Trial.Outcome dec = Trial.run(task(Operation.OPERATION_DECODE, Codec.STREAMING), canonical, payload, 0);
    assertEquals("", dec.failure());
    assertEquals(payload.length, dec.measurements().get(0).getPayloadBytes());

    // Peak heap (Sampler.peakHeapGrowth, garbage included): the in-memory encode holds the payload,
    // the streaming encode a small fraction of it (its garbage: per-record serializer state).
    Trial.Outcome inMemory = Trial.run(task(Operation.OPERATION_ENCODE, ""), canonical, null, 0);
    assertTrue(peak(inMemory) >= payload.length, "in memory, the payload itself is held: " + peak(inMemory));
    assertTrue(peak(enc) < payload.length / 10.0, "streaming encode held " + peak(enc) + " bytes at once");
    // The streaming decode drops every record, but the JVM figure counts the garbage not yet
    // collected (up to a young generation): it is reported, not bounded by the payload.
    assertTrue(peak(dec) >= 0);
  }

  private static double peak(Trial.Outcome o) {
    assertEquals("", o.failure());
    return o.measurements().get(0).getExtrasOrThrow("peak_heap_bytes");
  }

  @Test
  void aStreamedPayloadThatDiffersIsCaughtBeforeTimingNamingTheRecord() throws Exception {
    List<List<String>> other = new ArrayList<>(rows.records());
    List<String> row = new ArrayList<>(other.get(7));
    row.set(3, "x");
    other.set(7, row);
    byte[] wrong = json.encode(TestDatasets.MATRIX, new Records<>(other));
    Trial.Outcome dec = Trial.run(task(Operation.OPERATION_DECODE, Codec.STREAMING), canonical, wrong, 0);
    assertEquals("verification failed: streamed record 7 differs from the canonical one", dec.failure());
    assertEquals(List.of(), dec.measurements(), "nothing timed");
    // The streamed bytes are the in-memory encode's, byte for byte.
    java.io.ByteArrayOutputStream streamed = new java.io.ByteArrayOutputStream();
    json.encodeStreaming(TestDatasets.MATRIX, rows, streamed);
    assertArrayEquals(payload, streamed.toByteArray());
  }
}
