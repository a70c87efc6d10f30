package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.Results.TimedRegion;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.codecbench.v1.DummyRecord;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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

  static Stream<Arguments> treeCodecsAndDatasets() {
    return codecsAndDatasets().filter(a -> codec((String) a.get()[0]).decodeModes().contains(Codec.TREE));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("treeCodecsAndDatasets")
  void treeOfOwnPayloadConvertsToTheRecords(String codecId, String datasetId) throws Exception {
    treeRoundTrip(codec(codecId), dataset(datasetId));
  }

  private static <R> void treeRoundTrip(Codec codec, Dataset<R> dataset) throws Exception {
    Records<R> model = CanonicalVectors.canonical(dataset).model();
    Object tree = codec.decodeTree(codec.encode(dataset, model));
    assertFalse(tree instanceof Records<?>, "a tree is the library's document, not the records");
    assertEquals(model, codec.treeToRecords(dataset, tree));
  }

  static Stream<Arguments> streamingCodecsAndDatasets() {
    return codecsAndDatasets().filter(a -> codec((String) a.get()[0]).decodeModes().contains(Codec.STREAMING));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("streamingCodecsAndDatasets")
  void streamingRoundTrip(String codecId, String datasetId) throws Exception {
    streamingRoundTrip(codec(codecId), dataset(datasetId));
  }

  private static <R> void streamingRoundTrip(Codec codec, Dataset<R> dataset) throws Exception {
    Records<R> model = CanonicalVectors.canonical(dataset).model();
    byte[] inMemory = codec.encode(dataset, model);
    // Encode: the same bytes as the in-memory encode, written through the bounded drain.
    ByteArrayOutputStream streamed = new ByteArrayOutputStream();
    codec.encodeStreaming(dataset, model, streamed);
    assertEquals(new String(inMemory, StandardCharsets.ISO_8859_1), streamed.toString(StandardCharsets.ISO_8859_1));
    assertEquals(inMemory.length, Streams.encodeOnce(codec, dataset, model));
    // Decode: the records one by one, from our payload and from Rust's.
    for (byte[] payload : List.of(inMemory, CanonicalVectors.rust(dataset, codec.id()))) {
      List<R> got = new ArrayList<>();
      long n = codec.decodeStreaming(dataset, new Streams.Chunked(payload), got::add);
      assertEquals(model.records().size(), n);
      assertEquals(model.records(), got);
    }
    // As strict as typed: trailing bytes after the payload's value are an error.
    byte[] trailing = java.util.Arrays.copyOf(inMemory, inMemory.length + 1);
    trailing[inMemory.length] = '1';
    CodecException e = assertThrows(CodecException.class,
        () -> codec.decodeStreaming(dataset, new Streams.Chunked(trailing), r -> {}));
    assertTrue(e.getMessage().startsWith(codec.id() + " decode: "), e.getMessage());
  }

  static Stream<Arguments> lazyCodecsAndDatasets() {
    return codecsAndDatasets().filter(a -> codec((String) a.get()[0]).decodeModes().contains(Codec.LAZY));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("lazyCodecsAndDatasets")
  void lazyOfOwnPayload(String codecId, String datasetId) throws Exception {
    Codec codec = codec(codecId);
    Dataset<?> dataset = dataset(datasetId);
    List<String> fields = CanonicalVectors.LAZY_FIELDS.get(datasetId);
    byte[] payload = encode(codec, dataset);
    List<String> read = new ArrayList<>();
    codec.decodeLazy(dataset, payload, fields, read::add);
    List<String> expected = LazyField.expected(CanonicalVectors.canonical(dataset), fields);
    assertEquals(expected, read);
    assertEquals(2 * CanonicalVectors.canonical(dataset).size(), read.size(), "two fields of every record");
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
    CodecException e = assertThrows(CodecException.class,
        () -> codec.decodeLazy(dataset(datasetId), payload, List.of(CanonicalVectors.LAZY_FIELDS.get(datasetId).get(0), field), v -> {}));
    assertEquals(codecId + " lazy decode: record 0 has no field '" + field + "'", e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allCodecs")
  void modesOnlyWhereTheFormatHasThem(String codecId) throws Exception {
    Codec c = codec(codecId);
    // Lazy only for raw BSON and FlatBuffers (fields read in place through offsets); tree wherever
    // the library has a generic document that is the payload (not protobuf; not xml: Jackson's
    // JsonNode of an XML document loses its shape; not flatbuffers: its tables need the schema).
    String format = Codec.formatOf(codecId);
    assertEquals(Set.of("bson", "flatbuffers").contains(format), c.decodeModes().contains(Codec.LAZY));
    assertEquals(!Set.of("protobuf", "xml", "flatbuffers").contains(format), c.decodeModes().contains(Codec.TREE));
    assertEquals(Codec.TYPED, c.decodeModes().get(0));
    if (!c.decodeModes().contains(Codec.LAZY)) {
      CodecException e = assertThrows(CodecException.class, () -> c.decodeLazy(TestDatasets.DUMMY, new byte[0], List.of("name"), v -> {}));
      assertEquals(codecId + " has no lazy decode mode", e.getMessage());
    }
    // Streaming: json only today (Jackson's and Gson's streaming writers and readers).
    assertEquals(format.equals("json"), c.decodeModes().contains(Codec.STREAMING));
    if (!c.decodeModes().contains(Codec.STREAMING)) {
      Records<DummyRecord> none = new Records<>(List.of());
      CodecException e = assertThrows(CodecException.class,
          () -> c.encodeStreaming(TestDatasets.DUMMY, none, new ByteArrayOutputStream()));
      assertEquals(codecId + " offers no streaming mode", e.getMessage());
      e = assertThrows(CodecException.class,
          () -> c.decodeStreaming(TestDatasets.DUMMY, new Streams.Chunked(new byte[0]), r -> {}));
      assertEquals(codecId + " offers no streaming mode", e.getMessage());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allCodecs")
  void declaresATimedRegionForEncodeAndEveryDecodeMode(String codecId) {
    Codec c = codec(codecId);
    List<String> ops = c.timedRegions().stream().map(TimedRegion::getOperation).toList();
    List<String> want = new ArrayList<>(List.of(Codec.ENCODE));
    for (String mode : c.decodeModes()) {
      // The streaming mode has an encode side of its own, declared just before it.
      if (mode.equals(Codec.STREAMING)) {
        want.add(Codec.ENCODE_STREAMING);
      }
      want.add(mode);
    }
    assertEquals(want, ops);
    Set<String> vocabulary = Set.of("serialize", "parse", "utf8", "model-conversion", "validation", "copy",
        "field-lookup");
    for (TimedRegion r : c.timedRegions()) {
      assertFalse(r.getContainsList().isEmpty(), r.toString());
      assertTrue(vocabulary.containsAll(r.getContainsList()), "results.proto vocabulary: " + r);
    }
    // One boundary: protobuf, ubjson and flatbuffers convert to and from the model records inside
    // timing (flatbuffers: records into the builder's tables and out of the buffer's).
    boolean converts = Set.of("protobuf", "ubjson", "flatbuffers").contains(codecId);
    assertEquals(converts, c.timedRegions().get(0).getContainsList().contains("model-conversion"));
    assertEquals(converts, c.timedRegions().get(1).getContainsList().contains("model-conversion"));
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
