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
        byte[] good = CanonicalVectors.read(d, c.id());
        for (var corrupt : corruptions(good).entrySet()) {
          for (String mode : c.decodeModes()) {
            out.add(Arguments.of(c.id(), d.id(), corrupt.getKey(), mode, corrupt.getValue()));
          }
        }
      }
    }
    return out.stream();
  }

  private static java.util.Map<String, byte[]> corruptions(byte[] good) {
    java.util.Map<String, byte[]> m = new java.util.LinkedHashMap<>();
    m.put("empty", new byte[0]);
    m.put("truncated", Arrays.copyOf(good, good.length / 2));
    m.put("last byte cut", Arrays.copyOf(good, good.length - 1));
    byte[] garbage = new byte[good.length];
    new Random(7).nextBytes(garbage);
    m.put("garbage", garbage);
    m.put("text", "not a payload at all".getBytes(StandardCharsets.UTF_8));
    // Same length, one structural byte of the first record broken: 'B' is neither JSON syntax
    // here nor a BSON element type.
    byte[] flipped = good.clone();
    flipped[firstRecordByte(good)] = (byte) 0x42;
    m.put("broken marker", flipped);
    return m;
  }

  /** JSON: the byte after the first record's opening bracket; BSON: element 0's type byte. */
  private static int firstRecordByte(byte[] good) {
    if (good[0] == '{') {
      return "{\"records\":[".length() + 1;
    }
    // int32 document size, 0x04 "records\0", int32 array size, then element 0's type.
    return 4 + 1 + "records".length() + 1 + 4;
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}")
  @MethodSource("cases")
  void rejected(String codecId, String datasetId, String corruption, String mode, byte[] payload) {
    Codec codec = CODECS.byId(codecId).orElseThrow();
    Dataset<?> dataset = Dataset.byId(datasetId).orElseThrow();
    String field = CanonicalVectors.LAZY_FIELD.get(datasetId);
    CodecException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5),
            () -> assertThrows(CodecException.class, () -> {
              if (Codec.TYPED.equals(mode)) {
                codec.decodeTyped(dataset, payload);
              } else {
                codec.decodeLazy(payload, field);
              }
            }));
    assertTrue(e.getMessage().startsWith(codecId + " "), "message names the codec: " + e.getMessage());
  }
}
