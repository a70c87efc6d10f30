package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every codec and mode on every dataset against the canonical records; the payloads of other
 * languages are checked in GoldenVectorsTest.
 */
class CodecRoundTripTest {
  private static final CodecRegistry CODECS = new CodecRegistry();

  static Stream<Arguments> codecsAndDatasets() {
    List<Arguments> out = new ArrayList<>();
    for (Codec c : CODECS.all()) {
      for (Dataset<?> d : Dataset.all()) {
        out.add(Arguments.of(c.id(), d.id()));
      }
    }
    return out.stream();
  }

  static Stream<Arguments> datasets() {
    return Dataset.all().stream().map(d -> Arguments.of(d.id()));
  }

  private static Codec codec(String id) {
    return CODECS.byId(id).orElseThrow();
  }

  private static Dataset<?> dataset(String id) {
    return Dataset.byId(id).orElseThrow();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("codecsAndDatasets")
  void typedRoundTrip(String codecId, String datasetId) throws Exception {
    roundTrip(codec(codecId), dataset(datasetId));
  }

  private static <R> void roundTrip(Codec codec, Dataset<R> dataset) throws Exception {
    Canonical<R> canonical = CanonicalVectors.canonical(dataset);
    assertFalse(canonical.model().records().isEmpty(), "vector has records");
    byte[] payload = codec.encode(dataset, canonical.model());
    Records<R> decoded = codec.decodeTyped(dataset, payload);
    assertEquals(Optional.empty(), RecordDiff.firstDifference(canonical.model(), decoded));
    assertEquals(canonical.model(), decoded);
  }

  /** The prepared (timed) operations do the same work as encode and decodeTyped. */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("codecsAndDatasets")
  void timedOperationsMatchEncodeAndDecode(String codecId, String datasetId) throws Exception {
    timedOps(codec(codecId), dataset(datasetId));
  }

  private static <R> void timedOps(Codec codec, Dataset<R> dataset) throws Exception {
    Records<R> model = CanonicalVectors.canonical(dataset).model();
    byte[] payload = codec.encode(dataset, model);
    Codec.Timed encoder = codec.encoder(dataset, model);
    assertArrayEquals(payload, (byte[]) encoder.run());
    assertArrayEquals(payload, (byte[]) encoder.run(), "the prepared encoder can run again");
    Object decoded = codec.typedDecoder(dataset, payload).run();
    assertNotNull(decoded);
    if (decoded instanceof Records<?> r) {
      assertEquals(model, r);
    } else {
      // protobuf: the generated message, every field materialised; the model is built outside timing.
      assertEquals(dataset.toProto(model), decoded);
    }
  }

  static Stream<Arguments> lazyCodecsAndDatasets() {
    return codecsAndDatasets().filter(a -> codec((String) a.get()[0]).decodeModes().contains(Codec.LAZY));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("lazyCodecsAndDatasets")
  void lazyOfOwnPayload(String codecId, String datasetId) throws Exception {
    Codec codec = codec(codecId);
    Dataset<?> dataset = dataset(datasetId);
    String field = CanonicalVectors.LAZY_FIELD.get(datasetId);
    byte[] payload = encode(codec, dataset);
    assertEquals(LazyField.expected(CanonicalVectors.canonical(dataset), field), codec.decodeLazy(payload, field));
  }

  private static <R> byte[] encode(Codec codec, Dataset<R> dataset) throws CodecException {
    return codec.encode(dataset, CanonicalVectors.canonical(dataset).model());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("lazyCodecsAndDatasets")
  void lazyFieldNoRecordHasIsAnError(String codecId, String datasetId) throws Exception {
    Codec codec = codec(codecId);
    byte[] payload = encode(codec, dataset(datasetId));
    String field = datasetId.equals("matrix") ? "100000" : "noSuchField";
    CodecException e = assertThrows(CodecException.class, () -> codec.decodeLazy(payload, field));
    assertEquals(codecId + " lazy decode: record 0 has no field '" + field + "'", e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("typedOnly")
  void typedOnlyCodecsRefuseLazy(String codecId) {
    CodecException e = assertThrows(CodecException.class, () -> codec(codecId).decodeLazy(new byte[0], "name"));
    assertTrue(e.getMessage().startsWith(codecId + " has no lazy decode mode"), e.getMessage());
  }

  static Stream<Arguments> typedOnly() {
    return CODECS.all().stream().filter(c -> !c.decodeModes().contains(Codec.LAZY)).map(c -> Arguments.of(c.id()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allCodecs")
  void announcesALibraryVersionFromTheBuild(String codecId) {
    Codec c = codec(codecId);
    assertTrue(c.libraryVersion().matches("\\d+(\\.\\d+)+.*"), c.id() + " version " + c.libraryVersion());
    assertFalse(c.library().isBlank());
    assertFalse(c.notes().isBlank());
  }

  static Stream<Arguments> allCodecs() {
    return CODECS.all().stream().map(c -> Arguments.of(c.id()));
  }

  @ParameterizedTest(name = "json {0}")
  @MethodSource("datasets")
  void jsonKeepsFieldOrderAndNames(String datasetId) throws Exception {
    Dataset<?> dataset = dataset(datasetId);
    String ours = new String(encode(codec("json"), dataset), StandardCharsets.UTF_8);
    String rust = new String(CanonicalVectors.rust(dataset, "json"), StandardCharsets.UTF_8);
    // Number spelling may differ between libraries (1e20 vs 1.0E20); keys and their order may not.
    assertEquals(keys(rust), keys(ours));
    assertTrue(ours.startsWith("{\"records\":["), ours.substring(0, Math.min(40, ours.length())));
  }

  private static List<String> keys(String json) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\":").matcher(json);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }
}
