package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.NumericRecord;
import dev.codecbench.worker.model.codecbench.v1.NumericCoordinate;
import dev.codecbench.worker.model.Records;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What is particular to cbor: the bytes Jackson writes, the forms other writers may choose
 * (hand-written CBOR, values from the examples of RFC 8949 appendix A), and the checks of
 * {@link CborCodec#validate} with the Jackson behaviour that makes them necessary.
 */
class CborCodecTest {
  private static final Codec CBOR = new CodecRegistry().byId("cbor").orElseThrow();
  @SuppressWarnings("unchecked")
  private static final Dataset<NumericRecord> NUMERIC = (Dataset<NumericRecord>) Dataset.byId("numeric").orElseThrow();
  private static final HexFormat HEX = HexFormat.of();
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** A definite-length text string (under 24 bytes), as hex. */
  static String text(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    assertTrue(b.length < 24);
    return String.format("%02x", 0x60 + b.length) + HEX.formatHex(b);
  }

  /** {"records": [one numeric record]} with definite-length maps, each value given as hex. */
  static String numeric(String id, String index, String numbr, String coordinates) {
    return "a1" + text("records") + "81a4" + text("_id") + id + text("index") + index + text("numbr") + numbr
        + text("coordinates") + coordinates;
  }

  static String coordinate(String timestamp, String latitude, String longitude) {
    return "a3" + text("timestamp") + timestamp + text("latitude") + latitude + text("longitude") + longitude;
  }

  static final String GOOD = numeric("6161", "01", "02", "81" + coordinate("01", "01", "01"));

  static Records<NumericRecord> typed(String hex) throws CodecException {
    return CBOR.decodeTyped(NUMERIC, HEX.parseHex(hex));
  }

  static Records<NumericRecord> tree(String hex) throws CodecException {
    return CBOR.treeToRecords(NUMERIC, CBOR.decodeTree(HEX.parseHex(hex)));
  }

  @Test
  void writesIndefiniteLengthMapsDefiniteArraysSmallestIntegersAndFloat64() throws Exception {
    Records<NumericRecord> records =
        new Records<>(List.of(new NumericRecord("a", 1, 2, List.of(new NumericCoordinate(1700000000000L, 1.5, -2.0)))));
    String expected = "bf" + text("records") + "81" // {_ "records": [ (1 record)
        + "bf" + text("_id") + "6161" + text("index") + "01" + text("numbr") + "02" + text("coordinates") + "81"
        + "bf" + text("timestamp") + "1b0000018bcfe56800" // int64 that needs 8 bytes
        + text("latitude") + "fb3ff8000000000000" + text("longitude") + "fbc000000000000000" // float64
        + "ff" + "ff" + "ff";
    assertEquals(expected, HEX.formatHex(CBOR.encode(NUMERIC, records)));
  }

  @Test
  void readsTheFormsOtherWritersChoose() throws Exception {
    // RFC 8949 appendix A: 0x7f657374726561646d696e67ff = (_ "strea", "ming"); 0x1903e8 = 1000;
    // 0x1a000f4240 = 1000000; 0x3903e7 = -1000; 0xf93e00 = 1.5 (float16);
    // 0xfa47c35000 = 100000.0 (float32); 0x9f...ff an indefinite-length array; 0xbf...ff a map.
    String payload = "bf" + text("records") + "9f"
        + "bf" + text("_id") + "7f657374726561646d696e67ff"
        + text("index") + "1b0000000000000001" // 1 in 8 bytes
        + text("numbr") + "1903e8"
        + text("coordinates") + "82"
        + coordinate("1a000f4240", "f93e00", "fa47c35000") // int64 in 4 bytes, float16, float32
        + coordinate("00", "1903e8", "3903e7") // integers into double fields
        + "ff" + "ff" + "ff";
    Records<NumericRecord> expected = new Records<>(List.of(new NumericRecord("streaming", 1, 1000,
        List.of(new NumericCoordinate(1_000_000, 1.5, 100000.0), new NumericCoordinate(0, 1000.0, -1000.0)))));
    assertDoesNotThrow(() -> CBOR.validate(HEX.parseHex(payload)));
    assertEquals(expected, typed(payload));
    assertEquals(expected, tree(payload));
  }

  @Test
  void aSelfDescribedCborTagBeforeThePayloadIsAccepted() throws Exception {
    // RFC 8949 3.4.6: tag 55799 marks a CBOR document and means nothing else.
    String payload = "d9d9f7" + GOOD;
    assertDoesNotThrow(() -> CBOR.validate(HEX.parseHex(payload)));
    assertEquals(typed(GOOD), typed(payload));
    assertEquals(typed(GOOD), tree(payload));
  }

  @ParameterizedTest
  @ValueSource(strings = {"f93e00", "f93c00", "fb3ff8000000000000"}) // 1.5 (float16), 1.0, 1.5 (float64)
  void aFloatIntoAnIntFieldFails(String numbr) {
    String payload = numeric("6161", "01", numbr, "80");
    String value = numbr.equals("f93c00") ? "1.0" : "1.5";
    CodecException typed = assertThrows(CodecException.class, () -> typed(payload));
    assertTrue(typed.getMessage().startsWith("cbor decode: Cannot coerce Floating-point value (" + value
        + ") to `int` value"), typed.getMessage());
    CodecException tree = assertThrows(CodecException.class, () -> tree(payload));
    assertTrue(tree.getMessage().startsWith("cbor tree to records: Cannot coerce Floating-point value (" + value
        + ") to `int` value"), tree.getMessage());
  }

  @Test
  void anIntegerBeyondInt64Fails() {
    String payload = numeric("6161", "01", "02", "81" + coordinate("1bffffffffffffffff", "01", "01"));
    CodecException e = assertThrows(CodecException.class, () -> typed(payload));
    assertTrue(e.getMessage().startsWith("cbor decode: Numeric value (18446744073709551615) out of range of long"),
        e.getMessage());
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
    // numbr missing; numbr null; _id null (the model's required fields refuse null)
    "a3 | 6161 | | Missing required creator property 'numbr'",
    "a4 | 6161 | f6 | Invalid `null` value encountered for property \"numbr\"",
    "a4 | f6 | 02 | Invalid `null` value encountered for property \"_id\"",
  })
  void aMissingOrNullFieldFails(String header, String id, String numbr, String message) {
    String payload = "a1" + text("records") + "81" + header + text("_id") + id + text("index") + "01"
        + (numbr == null ? "" : text("numbr") + numbr) + text("coordinates") + "80";
    CodecException typed = assertThrows(CodecException.class, () -> typed(payload));
    assertTrue(typed.getMessage().startsWith("cbor decode: " + message), typed.getMessage());
    CodecException tree = assertThrows(CodecException.class, () -> tree(payload));
    assertTrue(tree.getMessage().startsWith("cbor tree to records: " + message), tree.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "f6", "f7"}) // empty, null, undefined
  void aPayloadWithoutAValueIsAnError(String hex) {
    String message = "cbor decode: the payload is null or empty, not {\"records\": [...]}";
    assertEquals(message, assertThrows(CodecException.class, () -> tree(hex)).getMessage());
    if (!hex.isEmpty()) { // Jackson's own message for no content at all
      assertEquals(message, assertThrows(CodecException.class, () -> typed(hex)).getMessage());
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
    "1c | cbor decode: reserved additional information 28 at byte 0",
    "3f | cbor decode: negative integer with indefinite length (additional information 31) at byte 0",
    "8119 | cbor decode: the unsigned integer head at byte 1 is cut off (2 argument bytes, 0 left)",
    "7f6161 | cbor decode: indefinite-length text string at byte 0 has no break before the end of the payload",
    "b9ffff00 | cbor decode: map of 65535 entries at byte 0 cannot fit in the 1 bytes left",
  })
  void validateNamesWhatIsWrongAndWhere(String hex, String message) {
    assertEquals(message, assertThrows(CodecException.class, () -> CBOR.validate(HEX.parseHex(hex))).getMessage());
  }

  /**
   * Why validate checks chunks: Jackson takes a chunk declaring 2^31-1 bytes, in a payload that
   * has one, as the string "a" (corrupt input that decodes).
   */
  @Test
  void aChunkRunningPastThePayloadDecodesInJacksonAndValidateRejectsIt() throws Exception {
    String payload = numeric("7f" + "7a7fffffff" + "61" + "ff", "01", "02", "80");
    assertEquals("a", typed(payload).records().get(0).id());
    assertEquals("a", tree(payload).records().get(0).id());
    CodecException e = assertThrows(CodecException.class, () -> CBOR.validate(HEX.parseHex(payload)));
    assertEquals("cbor decode: text string of 2147483647 bytes at byte 16 runs past the 29 bytes left",
        e.getMessage());
  }

  @Test
  void aChunkOfTheWrongTypeIsRejected() {
    // A byte string chunk inside an indefinite-length text string (RFC 8949 3.2.3: not well-formed).
    String payload = numeric("7f" + "4161" + "ff", "01", "02", "80");
    CodecException e = assertThrows(CodecException.class, () -> CBOR.validate(HEX.parseHex(payload)));
    assertEquals("cbor decode: a chunk of the indefinite-length text string at byte 15 is not a definite-length "
        + "text string (byte 16)", e.getMessage());
  }

  /** Why validate bounds tags: Jackson's tag list grows by 8 entries per tag, a run of n costing n^2/4 bytes. */
  @Test
  void aRunOfTagsCostsJacksonQuadraticMemoryAndValidateRejectsIt() throws Exception {
    String few = "c1".repeat(CborCodec.MAX_TAGS);
    assertDoesNotThrow(() -> CBOR.validate(HEX.parseHex(numeric(few + "6161", "01", "02", "80"))));
    assertEquals("a", typed(numeric(few + "6161", "01", "02", "80")).records().get(0).id());

    byte[] many = HEX.parseHex("c1".repeat(8192) + "01");
    assertThrows(CodecException.class, () -> CBOR.decodeTyped(NUMERIC, many)); // warm-up
    long before = THREADS.getCurrentThreadAllocatedBytes();
    assertThrows(CodecException.class, () -> CBOR.decodeTyped(NUMERIC, many));
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated > 8L << 20, "8192 tags (8 kB) cost Jackson " + allocated + " bytes");

    CodecException e = assertThrows(CodecException.class,
        () -> CBOR.validate(HEX.parseHex(numeric(few + "c1" + "6161", "01", "02", "80"))));
    assertEquals("cbor decode: more than " + CborCodec.MAX_TAGS + " tags on one value at byte "
        + (15 + CborCodec.MAX_TAGS), e.getMessage());
  }

  /**
   * Jackson bounds a declared length by itself (no up-front allocation of it, unlike msgpack-core):
   * 9-byte payloads declaring 2^31-1 or 2^63-1 bytes or items fail at the end of the input having
   * allocated little, without validate.
   */
  @ParameterizedTest
  @ValueSource(strings = {"7a7fffffff616263", "5a7fffffff616263", "9a7fffffff01", "ba7fffffff616101",
      "7b7fffffffffffffff616263", "5b7fffffffffffffff616263"})
  void jacksonRejectsAHugeDeclaredLengthWithoutAllocatingIt(String value) throws Exception {
    byte[] payload = HEX.parseHex("a1" + text("records") + value);
    assertThrows(CodecException.class, () -> CBOR.decodeTree(payload)); // warm-up
    assertThrows(CodecException.class, () -> CBOR.decodeTyped(NUMERIC, payload));
    for (String mode : List.of(Codec.TYPED, Codec.TREE)) {
      long before = THREADS.getCurrentThreadAllocatedBytes();
      CodecException e = assertThrows(CodecException.class,
          () -> {
            if (mode.equals(Codec.TYPED)) {
              CBOR.decodeTyped(NUMERIC, payload);
            } else {
              CBOR.decodeTree(payload);
            }
          });
      long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
      assertTrue(e.getMessage().startsWith("cbor decode: "), e.getMessage());
      assertTrue(allocated < 1L << 20, mode + " allocated " + allocated + " bytes");
    }
    assertThrows(CodecException.class, () -> CBOR.validate(payload));
  }
}
