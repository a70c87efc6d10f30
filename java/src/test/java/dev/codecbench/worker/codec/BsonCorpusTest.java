package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceOuterClass.Task;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.Trial;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The BSON corpus (testdata/bson-corpus, laid out by `make testdata` from pymongo's sdist).
 *
 * <ul>
 *   <li>{@code valid} cases of the types the datasets use (document, array, string, int32, int64,
 *       double, boolean, top): {@code canonical_bson} decodes and re-encodes to the same bytes with
 *       each library of the codec (bson4jackson for typed, org.mongodb:bson for tree and lazy).
 *   <li>every {@code decodeErrors} case of every file, as the payload of a real decode trial
 *       ({@link Trial#run}, the worker's own path) in every mode the bson codec announces, fails
 *       as "decode failed: bson decode: ..." with the strict pass's message (the trial validates
 *       before it decodes, so the rejection names the corruption, not the payload's shape); and
 *       each mode's timed entry called on its own rejects it with a CodecException, never a
 *       foreign exception or a hang.
 * </ul>
 */
class BsonCorpusTest {
  static final Path CORPUS = Path.of("..", "testdata", "bson-corpus");
  private static final List<String> DATASET_TYPES =
      List.of("document", "array", "string", "int32", "int64", "double", "boolean", "top");
  private static final ObjectMapper JSON = new ObjectMapper();
  // The codec the worker uses: decodeGeneric/decodeRawFully below are only for the valid cases.
  private static final BsonCodec BSON = (BsonCodec) new CodecRegistry().byId("bson").orElseThrow();

  private static List<Path> files() {
    if (!Files.isDirectory(CORPUS)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(CORPUS)) {
      return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode read(Path p) {
    try {
      return JSON.readTree(p.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String stem(Path p) {
    String n = p.getFileName().toString();
    return n.substring(0, n.length() - ".json".length());
  }

  static Stream<Arguments> valid() {
    List<Arguments> out = new ArrayList<>();
    for (Path f : files()) {
      if (!DATASET_TYPES.contains(stem(f))) {
        continue;
      }
      for (JsonNode c : read(f).path("valid")) {
        out.add(Arguments.of(stem(f), c.get("description").asText(), c.get("canonical_bson").asText()));
      }
    }
    return out.stream();
  }

  static Stream<Arguments> decodeErrors() {
    List<Arguments> out = new ArrayList<>();
    for (Path f : files()) {
      for (JsonNode c : read(f).path("decodeErrors")) {
        for (String mode : BSON.decodeModes()) {
          out.add(Arguments.of(stem(f), c.get("description").asText(), mode, c.get("bson").asText()));
        }
      }
    }
    return out.stream();
  }

  @org.junit.jupiter.api.Test
  void theCorpusIsThere() {
    assertTrue(Files.isDirectory(CORPUS), "BSON corpus missing at " + CORPUS.toAbsolutePath()
        + ": run `make testdata` (python3 testdata/fetch.py)");
    assertTrue(valid().count() > 40, "valid cases of the dataset types");
    assertTrue(decodeErrors().count() > 150, "decode error cases x 3 modes");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("valid")
  void bson4jacksonRoundTripsCanonicalBson(String file, String description, String hex) throws Exception {
    byte[] canonical = HexFormat.of().parseHex(hex);
    Map<String, Object> decoded = BSON.decodeGeneric(canonical);
    assertArrayEquals(canonical, BSON.encodeGeneric(decoded), file + ": " + description + " -> " + decoded);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("valid")
  void rawBsonDocumentRoundTripsCanonicalBson(String file, String description, String hex) throws Exception {
    byte[] canonical = HexFormat.of().parseHex(hex);
    BsonDocument decoded = BsonCodec.decodeRawFully(canonical);
    BasicOutputBuffer out = new BasicOutputBuffer();
    try (BsonBinaryWriter w = new BsonBinaryWriter(out)) {
      new BsonDocumentCodec().encode(w, decoded, EncoderContext.builder().build());
    }
    assertArrayEquals(canonical, out.toByteArray(), file + ": " + description + " -> " + decoded);
    // And the raw document itself is the same bytes.
    ByteBuffer raw = new RawBsonDocument(canonical).getByteBuffer().asNIO();
    byte[] rawBytes = new byte[raw.remaining()];
    raw.get(rawBytes);
    assertArrayEquals(canonical, rawBytes);
  }

  @org.junit.jupiter.api.Test
  void everyBsonModeIsCovered() {
    assertEquals(List.of(Codec.TYPED, Codec.TREE, Codec.LAZY), BSON.decodeModes());
  }

  /** A decode task of the bson codec in {@code mode}, its payload the corpus case. */
  private static Task decodeTask(String mode) {
    return Task.newBuilder().setId("corpus").setOperation(Operation.OPERATION_DECODE).setDataset("dummy")
        .setCodec("bson").setDecodeMode(mode).addAllLazyFields(CanonicalVectors.LAZY_FIELDS.get("dummy"))
        .setRecordCount(CanonicalVectors.canonical(TestDatasets.DUMMY).size())
        .setSampling(Sampling.newBuilder().setWarmupMs(1).setRounds(2).setMinRoundMs(1)).build();
  }

  @ParameterizedTest(name = "{0}: {1} ({2})")
  @MethodSource("decodeErrors")
  void decodeErrorFailsTheDecodeTrial(String file, String description, String mode, String hex) {
    byte[] bson = HexFormat.of().parseHex(hex);
    String what = file + ": " + description + " in mode " + mode;
    CodecException strict = assertThrows(CodecException.class, () -> BSON.validate(bson), what);
    Trial.Outcome outcome = assertTimeoutPreemptively(Duration.ofSeconds(5),
        () -> Trial.run(decodeTask(mode), CanonicalVectors.pb(TestDatasets.DUMMY), bson, 0));
    assertEquals("decode failed: " + strict.getMessage(), outcome.failure(), what);
    assertTrue(outcome.measurements().isEmpty(), what + ": nothing is timed");
  }

  /**
   * Each mode's timed entry on its own (no validation first) must stay clean: reject with a
   * CodecException or return, no foreign exception, no hang. It need not reject: the timed tree
   * decode (org.mongodb:bson) reads invalid UTF-8 as U+FFFD, and the timed lazy decode reads only
   * the elements it needs; that is why the trial validates first (the test above).
   */
  @ParameterizedTest(name = "{0}: {1} ({2})")
  @MethodSource("decodeErrors")
  void decodeErrorIsCleanInTheTimedEntryAlone(String file, String description, String mode, String hex) {
    byte[] bson = HexFormat.of().parseHex(hex);
    Codec.FieldSink sink = v -> {};
    Throwable thrown = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      try {
        switch (mode) {
          case Codec.TYPED -> BSON.decodeTyped(TestDatasets.DUMMY, bson);
          case Codec.TREE -> BSON.decodeTree(bson);
          case Codec.LAZY -> BSON.decodeLazy(TestDatasets.DUMMY, bson, CanonicalVectors.LAZY_FIELDS.get("dummy"), sink);
          default -> throw new IllegalArgumentException(mode);
        }
        return null;
      } catch (Throwable t) {
        return t;
      }
    });
    if (thrown != null) {
      String what = file + ": " + description + " in mode " + mode + ": " + thrown;
      assertTrue(thrown instanceof CodecException, what);
      assertTrue(thrown.getMessage().startsWith("bson "), what);
    }
  }
}
