package dev.codecbench.worker;

import static dev.codecbench.worker.UserSchemas.msg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.Results.DatasetInfo;
import codecbench.v1.Results.Environment;
import codecbench.v1.Results.Measurement;
import codecbench.v1.Results.Refusal;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceOuterClass.Task;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.userdata.UserDatasets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Users' datasets built at test time from .proto files no code knows (UserSchemas): the worker
 * announces each with the fingerprint it computes, its field names and one refusal per codec that
 * cannot carry one of its features; every codec that carries one round-trips and verifies its
 * records in each of its decode modes, in trials run as the worker runs them.
 */
class UserDatasetTest {
  private static final Sampling QUICK =
      Sampling.newBuilder().setWarmupMs(1).setMaxWarmupMs(300).setRounds(2).setMinRoundMs(1).build();
  private static final List<String> SCHEMA_LESS = List.of("json", "bson", "ubjson", "msgpack", "cbor", "xml");

  @TempDir
  static Path dir;

  private static Dataset<?> everything;
  private static Dataset<?> legacy;
  private static Dataset<?> plain;
  private static final Map<String, byte[]> BLOBS = new java.util.HashMap<>();
  private static final Map<String, Integer> COUNTS = new java.util.HashMap<>();

  @BeforeAll
  static void buildTheUsersDatasets() throws Exception {
    Path e = UserSchemas.write(dir.resolve("everything"), UserSchemas.EVERYTHING, "zz_everything",
        "zz.unknown.v1.Everything", "json", List.of("_name", "inner.note"));
    Path l = UserSchemas.write(dir.resolve("legacy"), UserSchemas.LEGACY, "zz_legacy", "LegacyRow", "proto",
        List.of("row_id", "inner.label_text", "hit_count"));
    Path p = UserSchemas.write(dir.resolve("plain"), UserSchemas.PLAIN, "zz_plain", "zz.plain.v1.Plain", "proto",
        List.of("order_id", "customer.email_address"));
    everything = UserDatasets.load(e).dataset();
    legacy = UserDatasets.load(l).dataset();
    plain = UserDatasets.load(p).dataset();
    records(everything, everythingRecords(UserSchemas.message(e, "zz.unknown.v1.Everything")));
    records(legacy, legacyRecords(UserSchemas.message(l, "LegacyRow")));
    records(plain, plainRecords(UserSchemas.message(p, "zz.plain.v1.Plain")));
  }

  private static void records(Dataset<?> d, List<DynamicMessage> records) throws Exception {
    BLOBS.put(d.id(), UserSchemas.blob(records));
    COUNTS.put(d.id(), records.size());
  }

  private static List<DynamicMessage> everythingRecords(Descriptor d) {
    Descriptor part = d.findFieldByName("part").getMessageType();
    Descriptor inner = d.findFieldByName("inner").getMessageType();
    Descriptor timestamp = d.findFieldByName("at").getMessageType();
    DynamicMessage p1 = msg(part, "label", "p1", "sizes", List.of(1, -2), "grade", "GRADE_A");
    DynamicMessage p2 = msg(part, "label", "ñ", "grade", "GRADE_B");
    DynamicMessage full = msg(d, "name", "first", "i32", -1, "i64", Long.MIN_VALUE, "u32", -5, "u64", -6L,
        "s32", -7, "s64", -8L, "f32", 9, "f64", 10L, "sf32", -11, "sf64", -12L, "fl", 1.5f, "db", -2.25,
        "flag", true, "raw", new byte[] {0, 1, (byte) 0xff}, "colour", "COLOUR_RED",
        "colours", List.of("COLOUR_GREEN", "COLOUR_UNSPECIFIED"), "part", p1, "parts", List.of(p1, p2),
        "inner", msg(inner, "note", "n", "parts", List.of(p2)), "counts", Map.of("a", 1L, "b", -2L),
        "parts_by_id", Map.of(5, p1), "blobs_by_name", Map.of("x", new byte[] {7, 8}), "text", "chosen text",
        "maybe", 0, "maybe_part", p2, "at", msg(timestamp, "seconds", 1_700_000_000L, "nanos", 5),
        "blobs", List.of(new byte[] {1}, new byte[0]), "class", "k", "tags", List.of("t1", ""));
    DynamicMessage sparse = msg(d, "name", "second", "chosen", p2);
    return List.of(full, sparse, msg(d));
  }

  private static List<DynamicMessage> legacyRecords(Descriptor d) {
    Descriptor inner = d.findFieldByName("inner").getMessageType();
    DynamicMessage i1 = msg(inner, "x_pos", -3, "y_pos", (int) 4_000_000_000L, "label_text", "top left");
    return List.of(
        msg(d, "row_id", "r1", "hit_count", (int) 3_000_000_000L, "delta_value", -42, "kind", "LEGACY_KIND_COLD",
            "inner", i1, "history", List.of(i1, msg(inner)), "note_text", "", "big_count", -1L),
        msg(d, "row_id", "r2", "hit_count", 7, "inner", msg(inner, "label_text", "only a label")));
  }

  private static List<DynamicMessage> plainRecords(Descriptor d) {
    Descriptor customer = d.findFieldByName("customer").getMessageType();
    Descriptor line = d.findFieldByName("lines").getMessageType();
    return List.of(
        msg(d, "order_id", "o-1", "qty", 3, "big_total", 9_007_199_254_740_993L, "unit_price", 0.1, "is_paid", true,
            "status", "STATUS_PAID", "customer", msg(customer, "email_address", "a@example.com", "age", 41),
            "lines", List.of(msg(line, "sku", "S1", "quantity", 2), msg(line, "sku", "S<&>\r", "quantity", -1)),
            "tags", List.of("x", "ü"), "coupon_cents", 0L, "referrer", msg(customer, "email_address", "r@x"),
            "stamps", List.of(1L, -1L)),
        msg(d, "order_id", "o-2", "customer", msg(customer, "email_address", "b@example.com")));
  }

  private static Refusal refusal(Dataset<?> d, String codec, String reason) {
    return Refusal.newBuilder().setDataset(d.id()).setCodec(codec).setReason(reason).build();
  }

  private static DatasetInfo announced(Dataset<?> d) {
    return WorkerLoop.hello("java", Environment.getDefaultInstance(), new CodecRegistry()).getDatasetsList().stream()
        .filter(i -> i.getId().equals(d.id())).findFirst().orElseThrow(() -> new AssertionError(d.id() + " not announced"));
  }

  @Test
  void theWorkerAnnouncesEachUserDatasetWithItsFingerprintFieldNamesAndRefusals() throws Exception {
    // bson and ubjson refuse uint64 (neither has an unsigned 64-bit integer), flatbuffers bytes,
    // and Gson every unsigned integer (the models hold them signed).
    List<Refusal> want = new ArrayList<>();
    for (String codec : List.of("bson", "ubjson")) {
      want.add(refusal(everything, codec, codec + ": uint64 field zz.unknown.v1.Everything.u64 is not offered"));
    }
    want.add(refusal(everything, "flatbuffers", "flatbuffers: bytes field zz.unknown.v1.Everything.raw is not offered"));
    want.add(refusal(everything, "json/gson", "json/gson: uint32 field zz.unknown.v1.Everything.u32 is not offered"));
    DatasetInfo e = announced(everything);
    assertEquals("zz.unknown.v1.Everything", e.getMessage());
    // The harness's fingerprint of this schema (codecbench datasets, the Python reference).
    assertEquals("961509bfa3ee9262", e.getFingerprint());
    assertEquals("json", e.getFieldNames());
    assertEquals(want, e.getRefusedList());

    DatasetInfo l = announced(legacy);
    assertEquals("LegacyRow", l.getMessage());
    assertEquals(sha16(LEGACY_FINGERPRINT_TEXT), l.getFingerprint(), "proto/README.md's rule, written out by hand");
    assertEquals("proto", l.getFieldNames());
    List<Refusal> legacyWant = new ArrayList<>(List.of("bson", "ubjson").stream()
        .map(c -> refusal(legacy, c, c + ": uint64 field LegacyRow.big_count is not offered")).toList());
    legacyWant.add(refusal(legacy, "json/gson", "json/gson: uint32 field LegacyRow.hit_count is not offered"));
    assertEquals(legacyWant, l.getRefusedList(), "every other codec carries it, lazy fields included");

    DatasetInfo p = announced(plain);
    assertEquals("7a42e3eb48aa575a", p.getFingerprint());
    assertEquals("proto", p.getFieldNames());
    assertEquals(List.of(), p.getRefusedList());
  }

  /** The legacy schema's canonical text (proto/README.md), by hand: sorted types, fields by number. */
  private static final String LEGACY_FINGERPRINT_TEXT = """
      enum LegacyKind
      0 LEGACY_KIND_UNSPECIFIED
      1 LEGACY_KIND_HOT
      2 LEGACY_KIND_COLD
      message LegacyRow
      1 row_id rowId 9 0  0\s
      2 hit_count hitCount 13 0  0\s
      3 delta_value deltaValue 17 0  0\s
      4 kind kind 14 0 LegacyKind 0\s
      5 inner inner 11 0 LegacyRow.Inner 0\s
      6 history history 11 1 LegacyRow.Inner 0\s
      7 note_text noteText 9 0  1\s
      8 big_count bigCount 4 0  0\s
      message LegacyRow.Inner
      1 x_pos xPos 17 0  0\s
      2 y_pos yPos 13 0  0\s
      3 label_text labelText 9 0  0\s
      """;

  private static String sha16(String text) throws Exception {
    byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(d, 0, 8);
  }

  private static Task.Builder task(Dataset<?> d, Operation op, String codec) {
    return Task.newBuilder().setId("t").setOperation(op).setDataset(d.id()).setCodec(codec)
        .setRecordCount(COUNTS.get(d.id())).setCanonicalBlobId("canonical-" + d.id()).setSampling(QUICK)
        .addAllLazyFields(d.lazyFields());
  }

  private static void ok(Trial.Outcome o, String what) {
    assertEquals("", o.failure(), what);
    assertEquals(1, o.measurements().size(), what);
    Measurement m = o.measurements().get(0);
    assertTrue(m.getVerified(), what);
  }

  /** Every (codec, mode) of {@code d} a trial ran and verified: "json encode", "json typed", ... */
  private static List<String> roundTrips(Dataset<?> d) {
    List<String> ran = new ArrayList<>();
    byte[] canonical = BLOBS.get(d.id());
    for (Codec codec : new CodecRegistry().all()) {
      if (codec.refusal(d) != null) {
        continue;
      }
      Trial.Outcome enc = Trial.run(task(d, Operation.OPERATION_ENCODE, codec.id()).build(), canonical, null, 0);
      ok(enc, d.id() + " " + codec.id() + " encode");
      assertNotNull(enc.payload());
      ran.add(codec.id() + " encode");
      for (String mode : codec.decodeModes()) {
        Task t = task(d, Operation.OPERATION_DECODE, codec.id()).setDecodeMode(mode).build();
        ok(Trial.run(t, canonical, enc.payload(), 0), d.id() + " " + codec.id() + " " + mode);
        ran.add(codec.id() + " " + mode);
        if (mode.equals(Codec.STREAMING)) {
          Task streamed = task(d, Operation.OPERATION_ENCODE, codec.id()).setDecodeMode(mode).build();
          ok(Trial.run(streamed, canonical, null, 0), d.id() + " " + codec.id() + " encode streaming");
        }
      }
    }
    return ran;
  }

  @Test
  void everySchemaLessCodecButBsonAndUbjsonCarriesEveryProto3FeatureInEachOfItsModes() {
    assertEquals(List.of("json encode", "json typed", "json tree", "json streaming", "protobuf encode", "protobuf typed",
        "msgpack encode", "msgpack typed", "msgpack tree", "cbor encode", "cbor typed", "cbor tree", "xml encode",
        "xml typed"), roundTrips(everything));
  }

  @Test
  void aPackageLessSchemaRoundTripsInProtobufAndFlatbuffersByItsProtoNames() throws Exception {
    assertEquals(List.of("json encode", "json typed", "json tree", "json streaming", "protobuf encode", "protobuf typed",
        "msgpack encode", "msgpack typed", "msgpack tree", "cbor encode", "cbor typed", "cbor tree", "xml encode",
        "xml typed", "flatbuffers encode", "flatbuffers typed", "flatbuffers lazy"), roundTrips(legacy));
    // Lazy reads by .proto names and gives unsigned integers in unsigned decimal.
    Codec fb = new CodecRegistry().byId("flatbuffers").orElseThrow();
    @SuppressWarnings("unchecked")
    Dataset<Object> d = (Dataset<Object>) legacy;
    byte[] payload = fb.encode(d, d.parseCanonical(BLOBS.get(d.id())).model());
    List<String> read = new ArrayList<>();
    fb.decodeLazy(d, payload, List.of("row_id", "hit_count", "inner.y_pos"), read::add);
    assertEquals(List.of("r1", "3000000000", "4000000000", "r2", "7", "0"), read);
  }

  @Test
  void everyCodecCarriesAPlainSchemaInEachOfItsModesByItsProtoNames() throws Exception {
    assertEquals(List.of("json encode", "json typed", "json tree", "json streaming", "bson encode", "bson typed",
        "bson tree", "bson lazy", "protobuf encode", "protobuf typed", "ubjson encode", "ubjson typed", "ubjson tree",
        "msgpack encode", "msgpack typed", "msgpack tree", "cbor encode", "cbor typed", "cbor tree", "xml encode",
        "xml typed", "flatbuffers encode", "flatbuffers typed", "flatbuffers lazy", "json/gson encode",
        "json/gson typed", "json/gson tree", "json/gson streaming"), roundTrips(plain));
    Trial.Outcome json = Trial.run(task(plain, Operation.OPERATION_ENCODE, "json").build(), BLOBS.get(plain.id()), null, 0);
    String text = new String(json.payload(), StandardCharsets.UTF_8);
    assertTrue(text.startsWith("{\"records\":[{\"order_id\":\"o-1\",\"qty\":3,\"big_total\":9007199254740993,"), text);
    assertTrue(text.contains("\"customer\":{\"email_address\":\"a@example.com\",\"age\":41}"), text);
    assertTrue(!text.contains("couponCents") && text.contains("\"coupon_cents\":0"), "set to 0, so written: " + text);
  }

  @Test
  void fieldsDeclaredOutOfNumberOrderAreRefusedByTheGenericMappersAlone() throws Exception {
    Path m = UserSchemas.write(dir.resolve("shuffled"), Map.of("shuffled.proto", """
        syntax = "proto3";
        package zz.order.v1;
        message Shuffled {
          string b = 2;
          int32 a = 1;
        }
        """), "zz_shuffled", "zz.order.v1.Shuffled", "json", List.of("b"));
    Dataset<?> d = UserDatasets.load(m).dataset();
    Descriptor record = UserSchemas.message(m, "zz.order.v1.Shuffled");
    records(d, List.of(msg(record, "b", "x", "a", 1), msg(record)));
    String why = ": message zz.order.v1.Shuffled declares field a (1) after b (2); this mapper needs fields "
        + "declared in field-number order";
    assertEquals(List.of(refusal(d, "ubjson", "ubjson" + why), refusal(d, "flatbuffers", "flatbuffers" + why)),
        announced(d).getRefusedList());
    assertEquals(List.of("json encode", "json typed", "json tree", "json streaming", "bson encode", "bson typed",
        "bson tree", "bson lazy", "protobuf encode", "protobuf typed", "msgpack encode", "msgpack typed", "msgpack tree",
        "cbor encode", "cbor typed", "cbor tree", "xml encode", "xml typed", "json/gson encode", "json/gson typed",
        "json/gson tree", "json/gson streaming"), roundTrips(d));
  }

  @Test
  void aRefusedCodecReachedAnywayFailsTheTaskNamingTheField() {
    Trial.Outcome o = Trial.run(task(legacy, Operation.OPERATION_ENCODE, "bson").build(), BLOBS.get(legacy.id()), null, 0);
    assertEquals("encode failed: bson: uint64 field LegacyRow.big_count is not offered", o.failure());
  }

  @Test
  void aForkedTrialLoadsTheUserDatasetFromItsCache() throws Exception {
    byte[] canonical = BLOBS.get(plain.id());
    Trial.Outcome enc = Trial.run(task(plain, Operation.OPERATION_ENCODE, "cbor").build(), canonical, null, 0);
    Task decode = task(plain, Operation.OPERATION_DECODE, "cbor").setDecodeMode("typed").build();
    Trial.Outcome forked = new ForkedTrials(0).run(decode, canonical, enc.payload());
    ok(forked, "forked cbor typed");
    assertEquals(1.0, forked.measurements().get(0).getExtrasOrThrow("forked"));
  }

  /** Not a user's dataset's own concern, but the point of one: its models are the generated classes. */
  @Test
  void theTypedModelIsTheGeneratedRecordOfTheUsersMessage() throws Exception {
    Object first = plain.parseCanonical(BLOBS.get(plain.id())).model().records().get(0);
    assertEquals("dev.codecbench.user.model.zz.plain.v1.Plain", first.getClass().getName());
    assertTrue(first.getClass().isRecord());
    Message proto = plain.parseCanonical(BLOBS.get(plain.id())).proto().get(0);
    assertEquals("zz.plain.v1.PlainOuterClass$Plain", proto.getClass().getName(), "protoc's class, not a DynamicMessage");
  }
}
