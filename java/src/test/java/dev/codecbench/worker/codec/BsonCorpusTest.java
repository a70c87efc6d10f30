package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * The BSON corpus (../../shared/testdata/bson-corpus, README-spec.md) through both Java bson
 * decode paths: the typed path (bson4jackson, here into maps and lists since a corpus document is
 * not a dataset) and the lazy path's library (org.mongodb:bson RawBsonDocument).
 *
 * <ul>
 *   <li>{@code valid} cases of the types the datasets use (document, array, string, int32, int64,
 *       double, boolean, top): {@code canonical_bson} decodes and re-encodes to the same bytes with
 *       each library.
 *   <li>every {@code decodeErrors} case of every file is rejected with a CodecException, within a
 *       few seconds, by each path. RawBsonDocument validates lazily (an element is decoded when it
 *       is read), so its path here decodes the whole document: see BsonCodec.decodeRawFully.
 * </ul>
 */
class BsonCorpusTest {
  static final Path CORPUS = Path.of("..", "..", "shared", "testdata", "bson-corpus");
  private static final List<String> DATASET_TYPES =
      List.of("document", "array", "string", "int32", "int64", "double", "boolean", "top");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BsonCodec BSON = new BsonCodec();

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
        for (String path : List.of("bson4jackson", "RawBsonDocument")) {
          out.add(Arguments.of(stem(f), c.get("description").asText(), path, c.get("bson").asText()));
        }
      }
    }
    return out.stream();
  }

  @org.junit.jupiter.api.Test
  void theCorpusIsThere() {
    assertTrue(Files.isDirectory(CORPUS), "BSON corpus missing at " + CORPUS.toAbsolutePath()
        + " (shared/testdata/bson-corpus beside the repository)");
    assertTrue(valid().count() > 40, "valid cases of the dataset types");
    assertTrue(decodeErrors().count() > 100, "decode error cases x 2 paths");
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

  @ParameterizedTest(name = "{0}: {1} ({2})")
  @MethodSource("decodeErrors")
  void decodeErrorIsRejected(String file, String description, String path, String hex) {
    byte[] bson = HexFormat.of().parseHex(hex);
    CodecException e = assertTimeoutPreemptively(Duration.ofSeconds(5),
        () -> assertThrows(CodecException.class, () -> {
          if (path.equals("bson4jackson")) {
            BSON.decodeGeneric(bson);
          } else {
            BsonCodec.decodeRawFully(bson);
          }
        }, file + ": " + description + " must be rejected by " + path));
    assertTrue(e.getMessage().startsWith("bson decode: "), e.getMessage());
  }
}
