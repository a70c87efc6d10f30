package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.dataset.Dataset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every decode path rejects broken input with a CodecException carrying the codec's message,
 * quickly: no hang, no other exception type escaping, no silent success.
 */
class CorruptPayloadTest {
  private static final CodecRegistry CODECS = new CodecRegistry();

  /** Codec x dataset x corruption x mode. */
  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Codec c : CODECS.all()) {
      for (Dataset<?> d : Dataset.all()) {
        byte[] good = CanonicalVectors.rust(d, c.id());
        for (var corrupt : corruptions(c.id(), good).entrySet()) {
          for (String mode : c.decodeModes()) {
            out.add(Arguments.of(c.id(), d.id(), corrupt.getKey(), mode, corrupt.getValue()));
          }
        }
      }
    }
    return out.stream();
  }

  private static java.util.Map<String, byte[]> corruptions(String codec, byte[] good) {
    java.util.Map<String, byte[]> m = new java.util.LinkedHashMap<>();
    // Zero bytes are protobuf's valid encoding of a dataset with no records (see below).
    if (!codec.equals("protobuf")) {
      m.put("empty", new byte[0]);
    }
    m.put("truncated", Arrays.copyOf(good, good.length / 2));
    m.put("last byte cut", Arrays.copyOf(good, good.length - 1));
    byte[] garbage = new byte[good.length];
    new Random(7).nextBytes(garbage);
    m.put("garbage", garbage);
    m.put("text", "not a payload at all".getBytes(StandardCharsets.UTF_8));
    byte[] flipped = good.clone();
    flipped[firstRecordByte(codec, good)] = brokenMarker(codec);
    m.put("broken marker", flipped);
    return m;
  }

  /** Where the first record starts (its first structural byte), per codec's layout of Rust's payload. */
  private static int firstRecordByte(String codec, byte[] good) {
    return switch (codec) {
      case "json" -> "{\"records\":[".length() + 1;
      // int32 document size, 0x04 "records\0", int32 array size, then element 0's type.
      case "bson" -> 4 + 1 + "records".length() + 1 + 4;
      // 0x0a (field 1, length-delimited), the record's varint length, then its first tag.
      case "protobuf" -> 1 + varintLength(good, 1);
      // fixmap(1), fixstr "records", array header (fixarray: 1 byte for 3 records), record's map header.
      case "msgpack" -> 1 + 1 + "records".length() + 1;
      // '{', key length (marker + 1 byte), "records", '[' (unsized), record's '{'.
      case "ubjson" -> 1 + 2 + "records".length() + 1;
      default -> throw new IllegalArgumentException(codec);
    };
  }

  /**
   * A byte that is not what belongs there: 'B' is neither JSON syntax here, nor a BSON element
   * type, nor a UBJSON marker, and in msgpack an integer where a record map belongs. In protobuf
   * 0x07 is a tag of field 0 with wire type 7, both invalid ('B' would be a valid tag).
   */
  private static byte brokenMarker(String codec) {
    return codec.equals("protobuf") ? (byte) 0x07 : (byte) 0x42;
  }

  private static int varintLength(byte[] b, int at) {
    int n = 1;
    while ((b[at + n - 1] & 0x80) != 0) {
      n++;
    }
    return n;
  }

  @org.junit.jupiter.api.Test
  void anEmptyProtobufPayloadIsZeroRecords() throws Exception {
    // Valid protobuf for an empty *Dataset message: a task's verification rejects it by count.
    assertTrue(CODECS.byId("protobuf").orElseThrow().decodeTyped(Dataset.DUMMY, new byte[0]).records().isEmpty());
  }

  private static <R> Object treeToRecords(Codec codec, Dataset<R> dataset, Object tree) throws CodecException {
    return codec.treeToRecords(dataset, tree);
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}")
  @MethodSource("cases")
  void rejected(String codecId, String datasetId, String corruption, String mode, byte[] payload) {
    Codec codec = CODECS.byId(codecId).orElseThrow();
    Dataset<?> dataset = Dataset.byId(datasetId).orElseThrow();
    List<String> fields = CanonicalVectors.LAZY_FIELDS.get(datasetId);
    CodecException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5),
            () -> assertThrows(CodecException.class, () -> {
              switch (mode) {
                // As a trial verifies: the codec's own checks first (bson's strict pass), then decode.
                case Codec.TYPED -> {
                  codec.validate(payload);
                  codec.decodeTyped(dataset, payload);
                }
                // As verification of a tree decode does: a library may parse into its tree what
                // is not a records payload (ubjson takes 'B' where a record belongs).
                case Codec.TREE -> treeToRecords(codec, dataset, codec.decodeTree(payload));
                default -> codec.decodeLazy(payload, fields, v -> {});
              }
            }));
    assertTrue(e.getMessage().startsWith(codecId + " "), "message names the codec: " + e.getMessage());
  }
}
