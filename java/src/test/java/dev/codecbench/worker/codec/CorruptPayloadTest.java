package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.NumericRecord;
import dev.codecbench.worker.model.codecbench.v1.NumericCoordinate;
import dev.codecbench.worker.model.Records;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
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
        for (var corrupt : corruptions(Codec.formatOf(c.id()), good).entrySet()) {
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
    // Empty and half-truncated payloads are codecs/fixtures.yaml's derived cases (FixturesTest).
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
      // map header (a1 or bf), text "records" (0x67 + 7 bytes), the array's head (1 to 3 bytes
      // for the vectors' record counts; 1 when indefinite), record's map header.
      case "cbor" -> 1 + 1 + "records".length() + cborHeadLength(good[1 + 1 + "records".length()]);
      // The '<' of the first record's first field, after "<records>" (a writer may put an XML
      // declaration first).
      case "xml" -> new String(good, StandardCharsets.UTF_8).indexOf("<records>") + "<records>".length();
      // The top byte of the first record table's soffset to its vtable (root uoffset -> root table
      // -> its field 0, records -> the vector -> element 0 -> the record table).
      case "flatbuffers" -> flatbuffersFirstRecord(good) + 3;
      default -> throw new IllegalArgumentException(codec);
    };
  }

  /**
   * A byte that is not what belongs there: 'B' is neither JSON syntax here, nor a BSON element
   * type, nor a UBJSON marker, in msgpack an integer, in CBOR a 2-byte byte string where a
   * record map belongs, in XML text where the record's first element belongs, and in FlatBuffers the
   * top byte of an offset (the record's vtable lands a gigabyte away, outside the buffer). In protobuf
   * 0x07 is a tag of field 0 with wire type 7, both invalid ('B' would be a valid tag).
   */
  private static byte brokenMarker(String codec) {
    return codec.equals("protobuf") ? (byte) 0x07 : (byte) 0x42;
  }

  private static int flatbuffersFirstRecord(byte[] good) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(good).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    int root = b.getInt(0);
    int vtable = root - b.getInt(root);
    int field = root + b.getShort(vtable + 4);
    int vector = field + b.getInt(field);
    int element = vector + 4;
    return element + b.getInt(element);
  }

  private static int cborHeadLength(byte initial) {
    int info = initial & 0x1f;
    return 1 + (info < 24 || info == 31 ? 0 : 1 << (info - 24));
  }

  private static int varintLength(byte[] b, int at) {
    int n = 1;
    while ((b[at + n - 1] & 0x80) != 0) {
      n++;
    }
    return n;
  }

  /**
   * cbor's corruptions with the precise error, on Java's payload of one numeric record (so they do
   * not depend on another writer's layout): {@code validate} is what the worker runs first and
   * gives the message when it applies (null: the payload passes it); the typed and tree decodes on
   * their own (Jackson's message, of which the start is compared).
   */
  static Stream<Arguments> cborCases() throws CodecException {
    var one = new Records<>(List.of(new NumericRecord("a", 1, 2, List.of(new NumericCoordinate(1, 1.5, -2.0)))));
    @SuppressWarnings("unchecked")
    var numeric = (Dataset<NumericRecord>) Dataset.byId("numeric").orElseThrow();
    String good = HexFormat.of().formatHex(CODECS.byId("cbor").orElseThrow().encode(numeric, one));
    // {"records": text string declaring 2^31-1 bytes, followed by 3}
    String huge = "a1677265636f726473" + "7a7fffffff" + "616263";
    String latitude = "686c61746974756465fb3ff8000000000000"; // "latitude": 1.5 (float64)
    String notADouble =
        "Cannot deserialize value of type `double` from String \"x\": not a valid `double` value";
    assertTrue(good.contains(latitude), good);
    return Stream.of(
        // Cut inside the key "index" (text of 5 bytes at byte 17).
        Arguments.of("truncated", good.substring(0, 40),
            "cbor decode: text string of 5 bytes at byte 17 runs past the 2 bytes left",
            "cbor decode: Needed to read 5 bytes, reached end-of-input", null),
        Arguments.of("last break cut", good.substring(0, good.length() - 2), null,
            "cbor decode: Unexpected end-of-input in Object value: expected a property or close marker (0xFF)",
            null),
        Arguments.of("declared length beyond the input", huge,
            "cbor decode: text string of 2147483647 bytes at byte 9 runs past the 3 bytes left",
            "cbor decode: Unexpected end-of-input in VALUE_STRING", null),
        Arguments.of("trailing value", good + "00", null,
            "cbor decode: data after the payload's value (VALUE_NUMBER_INT)", null),
        Arguments.of("trailing break", good + "ff", null,
            "cbor decode: Unexpected Break (0xFF) token in Root context", null),
        Arguments.of("text in a double field", good.replace(latitude, "686c617469747564656178"), null,
            "cbor decode: " + notADouble, "cbor tree to records: " + notADouble));
  }

  @ParameterizedTest(name = "cbor {0}")
  @MethodSource("cborCases")
  void cborRejectsWithThePreciseError(String corruption, String hex, String validateMessage, String decodeStart,
      String treeStart) {
    Codec cbor = CODECS.byId("cbor").orElseThrow();
    Dataset<?> numeric = Dataset.byId("numeric").orElseThrow();
    byte[] payload = HexFormat.of().parseHex(hex);
    if (validateMessage == null) {
      assertDoesNotThrow(() -> cbor.validate(payload));
    } else {
      assertEquals(validateMessage, assertThrows(CodecException.class, () -> cbor.validate(payload)).getMessage());
    }
    CodecException typed = assertThrows(CodecException.class, () -> cbor.decodeTyped(numeric, payload));
    assertTrue(typed.getMessage().startsWith(decodeStart), typed.getMessage());
    CodecException tree =
        assertThrows(CodecException.class, () -> treeToRecords(cbor, numeric, cbor.decodeTree(payload)));
    assertTrue(tree.getMessage().startsWith(treeStart == null ? decodeStart : treeStart), tree.getMessage());
  }

  @org.junit.jupiter.api.Test
  void anEmptyProtobufPayloadIsZeroRecords() throws Exception {
    // Valid protobuf for an empty *Dataset message: a task's verification rejects it by count.
    assertTrue(CODECS.byId("protobuf").orElseThrow().decodeTyped(TestDatasets.DUMMY, new byte[0]).records().isEmpty());
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
                // As a trial reads it: in 4 KiB reads, each record handed over and dropped.
                case Codec.STREAMING -> {
                  codec.validate(payload);
                  codec.decodeStreaming(dataset, new Streams.Chunked(payload), r -> {});
                }
                default -> codec.decodeLazy(dataset, payload, fields, v -> {});
              }
            }));
    assertTrue(e.getMessage().startsWith(codecId + " "), "message names the codec: " + e.getMessage());
  }
}
