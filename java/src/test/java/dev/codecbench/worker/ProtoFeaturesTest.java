package dev.codecbench.worker;

import static dev.codecbench.worker.UserSchemas.msg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceOuterClass.Task;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecException;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.userdata.UserDatasets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The payload rules of proto/README.md, "The other proto3 features", on the harness's schema of
 * every feature (harness/tests/test_user_dataset.py's Everything): the exact json and xml forms of
 * a small record, the refusals of bson and ubjson (uint64), and every codec in every mode on the
 * same schema without its uint64 fields, so that bson and ubjson run too.
 */
class ProtoFeaturesTest {
  private static final String PROTO = """
      syntax = "proto3";
      package zz.unknown.v1;

      import "google/protobuf/timestamp.proto";

      enum Colour {
        COLOUR_UNSPECIFIED = 0;
        COLOUR_RED = 1;
      }

      message Part {
        string label = 1;
        int32 size = 2;
      }

      message Everything {
        int32 i32 = 1;
        int64 i64 = 2;
        uint32 u32 = 3;
        %s
        sint32 s32 = 5;
        sint64 s64 = 6;
        fixed32 f32 = 7;
        %s
        sfixed32 sf32 = 9;
        sfixed64 sf64 = 10;
        float fl = 11;
        double db = 12;
        bool ok = 13;
        string text = 14;
        bytes raw = 15;
        Colour colour = 16;
        Part main = 17;
        repeated Part parts = 18;
        map<string, int32> counts = 19;
        oneof choice {
          string label = 20;
          int32 code = 21;
        }
        optional string note = 22;
        google.protobuf.Timestamp at = 23;
        repeated string tags = 24;
      }
      """;
  private static final Sampling QUICK =
      Sampling.newBuilder().setWarmupMs(1).setMaxWarmupMs(300).setRounds(2).setMinRoundMs(1).build();
  private static final long AT = Instant.parse("2026-11-27T10:00:00Z").getEpochSecond();

  @TempDir
  static Path dir;

  private static Dataset<Object> all;
  private static Dataset<Object> carried;
  private static byte[] allBlob;
  private static byte[] carriedBlob;
  private static int carriedCount;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void build() throws Exception {
    Path a = UserSchemas.write(dir.resolve("all"), Map.of("zz/unknown/v1/everything.proto",
        PROTO.formatted("uint64 u64 = 4;", "fixed64 f64 = 8;")), "zz_features", "zz.unknown.v1.Everything", "json",
        List.of("i32", "tags"));
    Path c = UserSchemas.write(dir.resolve("carried"), Map.of("zz/unknown/v1/everything.proto",
        PROTO.formatted("", "").replace("package zz.unknown.v1;", "package zz.carried.v1;")), "zz_carried",
        "zz.carried.v1.Everything", "proto", List.of("raw", "fl", "at", "main.label", "u32"));
    all = (Dataset<Object>) UserDatasets.load(a).dataset();
    carried = (Dataset<Object>) UserDatasets.load(c).dataset();
    allBlob = UserSchemas.blob(List.of(tiny(UserSchemas.message(a, "zz.unknown.v1.Everything"), true)));
    Descriptor cd = UserSchemas.message(c, "zz.carried.v1.Everything");
    List<DynamicMessage> records = List.of(tiny(cd, false), msg(cd, "code", 0, "note", ""), msg(cd),
        msg(cd, "fl", Float.MAX_VALUE, "raw", new byte[0], "counts", Map.of("", -1, "z", 0),
            "at", msg(cd.findFieldByName("at").getMessageType(), "seconds", -62_135_596_800L, "nanos", 120_000_000),
            "u32", (int) 2_147_483_648L, "tags", List.of("", "\r<&>")));
    carriedBlob = UserSchemas.blob(records);
    carriedCount = records.size();
  }

  /** The small record of the brief: every field set, uint32 and uint64 at their maxima. */
  private static DynamicMessage tiny(Descriptor d, boolean u64) {
    Descriptor part = d.findFieldByName("main").getMessageType();
    Descriptor ts = d.findFieldByName("at").getMessageType();
    DynamicMessage m = msg(d, "i32", 1, "i64", 2L, "u32", -1, "s32", -5, "s64", -6L, "f32", 7, "sf32", -9,
        "sf64", -10L, "fl", 0.1f, "db", 0.25, "ok", true, "text", "t", "raw", new byte[] {0, 1, 2, (byte) 0xff},
        "colour", "COLOUR_RED", "main", msg(part, "label", "m", "size", 3), "counts", Map.of("a", 1),
        "label", "x", "at", msg(ts, "seconds", AT), "tags", List.of("a"));
    return u64 ? m.toBuilder().setField(d.findFieldByName("u64"), -1L).setField(d.findFieldByName("f64"), 8L).build() : m;
  }

  private static Codec codec(String id) {
    return new CodecRegistry().byId(id).orElseThrow();
  }

  @Test
  void jsonWritesTheSmallRecordExactlyAsTheContractSays() throws Exception {
    Records<Object> model = all.parseCanonical(allBlob).model();
    String text = new String(codec("json").encode(all, model), StandardCharsets.UTF_8);
    assertEquals("{\"records\":[{\"i32\":1,\"i64\":2,\"u32\":4294967295,\"u64\":18446744073709551615,\"s32\":-5,"
        + "\"s64\":-6,\"f32\":7,\"f64\":8,\"sf32\":-9,\"sf64\":-10,\"fl\":0.1,\"db\":0.25,\"ok\":true,\"text\":\"t\","
        + "\"raw\":\"AAEC/w==\",\"colour\":\"COLOUR_RED\",\"main\":{\"label\":\"m\",\"size\":3},\"parts\":[],"
        + "\"counts\":{\"a\":1},\"label\":\"x\",\"at\":\"2026-11-27T10:00:00Z\",\"tags\":[\"a\"]}]}", text);
    assertEquals(java.util.Optional.empty(), dev.codecbench.worker.verify.RecordDiff.firstDifference(model,
        codec("json").decodeTyped(all, text.getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void xmlWritesMapsOneofsBytesAndTimestampsAsTheContractSays() throws Exception {
    Records<Object> model = all.parseCanonical(allBlob).model();
    String text = new String(codec("xml").encode(all, model), StandardCharsets.UTF_8);
    for (String part : List.of("<u32>4294967295</u32><u64>18446744073709551615</u64>", "<fl>0.1</fl>",
        "<raw>AAEC/w==</raw>", "<main><label>m</label><size>3</size></main>",
        "<counts><key>a</key><value>1</value></counts><label>x</label><at>2026-11-27T10:00:00Z</at><tags>a</tags>")) {
      assertTrue(text.contains(part), part + " in " + text);
    }
    assertTrue(!text.contains("<parts") && !text.contains("<code") && !text.contains("<note"), text);
  }

  @Test
  void bsonAndUbjsonRefuseUint64NamingTheField() {
    assertEquals("bson: uint64 field zz.unknown.v1.Everything.u64 is not offered", codec("bson").refusal(all));
    assertEquals("ubjson: uint64 field zz.unknown.v1.Everything.u64 is not offered", codec("ubjson").refusal(all));
    for (String c : List.of("json", "msgpack", "cbor", "xml", "protobuf")) {
      assertEquals(null, codec(c).refusal(all), c);
    }
  }

  @Test
  void msgpackAndCborWriteUint64Natively() throws Exception {
    Records<Object> model = all.parseCanonical(allBlob).model();
    String msgpack = HexFormat.of().formatHex(codec("msgpack").encode(all, model));
    assertTrue(msgpack.contains("a3753634cfffffffffffffffff"), "u64: uint64 (0xcf): " + msgpack);
    String cbor = HexFormat.of().formatHex(codec("cbor").encode(all, model));
    assertTrue(cbor.contains("637536341bffffffffffffffff"), "u64: major type 0, 8 bytes: " + cbor);
    for (String c : List.of("json", "msgpack", "cbor", "xml")) {
      byte[] payload = codec(c).encode(all, model);
      Records<Object> back = codec(c).decodeTyped(all, payload);
      assertEquals(dev.codecbench.worker.verify.RecordDiff.firstDifference(model, back), java.util.Optional.empty(), c);
    }
  }

  @Test
  void twoMembersOfAOneofAreADecodeError() {
    String two = "{\"records\":[{\"i32\":1,\"i64\":2,\"u32\":3,\"u64\":4,\"s32\":5,\"s64\":6,"
        + "\"f32\":7,\"f64\":8,\"sf32\":9,\"sf64\":10,\"fl\":1,\"db\":1,\"ok\":true,\"text\":\"\",\"raw\":\"\","
        + "\"colour\":\"COLOUR_RED\",\"main\":{\"label\":\"\",\"size\":0},\"parts\":[],\"counts\":{},"
        + "\"label\":\"x\",\"code\":1,\"at\":\"1970-01-01T00:00:00Z\",\"tags\":[]}]}";
    CodecException e = assertThrows(CodecException.class,
        () -> codec("json").decodeTyped(all, two.getBytes(StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains("oneof zz.unknown.v1.Everything.choice has more than one member set"),
        e.getMessage());
  }

  private static Task.Builder task(Operation op, String codec) {
    return Task.newBuilder().setId("t").setOperation(op).setDataset(carried.id()).setCodec(codec)
        .setRecordCount(carriedCount).setCanonicalBlobId("c").setSampling(QUICK).addAllLazyFields(carried.lazyFields());
  }

  @Test
  void everyCodecCarriesTheSchemaWithoutUint64InEachOfItsModes() {
    List<String> ran = new ArrayList<>();
    for (Codec codec : new CodecRegistry().all()) {
      if (codec.refusal(carried) != null) {
        continue;
      }
      Trial.Outcome enc = Trial.run(task(Operation.OPERATION_ENCODE, codec.id()).build(), carriedBlob, null, 0);
      assertEquals("", enc.failure(), codec.id() + " encode");
      ran.add(codec.id() + " encode");
      for (String mode : codec.decodeModes()) {
        Trial.Outcome dec = Trial.run(task(Operation.OPERATION_DECODE, codec.id()).setDecodeMode(mode).build(),
            carriedBlob, enc.payload(), 0);
        assertEquals("", dec.failure(), codec.id() + " " + mode);
        ran.add(codec.id() + " " + mode);
      }
    }
    assertEquals(List.of("json encode", "json typed", "json tree", "json streaming", "bson encode", "bson typed",
        "bson tree", "bson lazy", "protobuf encode", "protobuf typed", "ubjson encode", "ubjson typed", "ubjson tree",
        "msgpack encode", "msgpack typed", "msgpack tree", "cbor encode", "cbor typed", "cbor tree", "xml encode",
        "xml typed"), ran);
  }

  /**
   * Gson (json/gson) on the schema without its unsigned fields: Jackson's bytes exactly (names,
   * base64, the Timestamp string, a map, a oneof member, an unset optional left out), read back in
   * every mode as a trial does; with an unsigned field it refuses, naming it.
   */
  @Test
  @SuppressWarnings("unchecked")
  void gsonWritesJacksonsBytesForEveryFeatureButUnsignedIntegers() throws Exception {
    Codec gson = codec("json/gson");
    assertEquals("json/gson: uint32 field zz.unknown.v1.Everything.u32 is not offered", gson.refusal(all));
    assertEquals("json/gson: uint32 field zz.carried.v1.Everything.u32 is not offered", gson.refusal(carried));
    Path s = UserSchemas.write(dir.resolve("signed"), Map.of("zz/signed/v1/everything.proto", PROTO.formatted("", "")
        .replace("package zz.unknown.v1;", "package zz.signed.v1;").replace("uint32 u32 = 3;", "")
        .replace("fixed32 f32 = 7;", "")), "zz_signed", "zz.signed.v1.Everything", "json", List.of("i32"));
    Dataset<Object> signed = (Dataset<Object>) UserDatasets.load(s).dataset();
    assertEquals(null, gson.refusal(signed));
    Descriptor d = UserSchemas.message(s, "zz.signed.v1.Everything");
    Descriptor part = d.findFieldByName("main").getMessageType();
    Descriptor ts = d.findFieldByName("at").getMessageType();
    List<DynamicMessage> records = List.of(
        msg(d, "i32", 1, "i64", -2L, "s32", -5, "fl", 0.1f, "db", 0.25, "ok", true, "text", "t <&> \u00e9",
            "raw", new byte[] {0, 1, 2, (byte) 0xff}, "colour", "COLOUR_RED", "main", msg(part, "label", "m", "size", 3),
            "parts", List.of(msg(part, "label", "p", "size", 4)), "counts", Map.of("a", 1), "label", "x",
            "at", msg(ts, "seconds", AT, "nanos", 120_000_000), "tags", List.of("a", "")),
        msg(d, "code", 0, "note", ""), msg(d));
    byte[] blob = UserSchemas.blob(records);
    Records<Object> model = signed.parseCanonical(blob).model();
    String text = new String(gson.encode(signed, model), StandardCharsets.UTF_8);
    assertEquals(new String(codec("json").encode(signed, model), StandardCharsets.UTF_8), text);
    assertTrue(text.contains("\"raw\":\"AAEC/w==\"") && text.contains("\"at\":\"2026-11-27T10:00:00.120Z\"")
        && text.contains("\"text\":\"t <&> \u00e9\"") && !text.contains("\"note\":null"), text);
    Task.Builder t = Task.newBuilder().setId("t").setDataset(signed.id()).setCodec(gson.id())
        .setRecordCount(records.size()).setCanonicalBlobId("c").setSampling(QUICK).addAllLazyFields(signed.lazyFields());
    Trial.Outcome enc = Trial.run(t.clone().setOperation(Operation.OPERATION_ENCODE).build(), blob, null, 0);
    assertEquals("", enc.failure());
    for (String mode : gson.decodeModes()) {
      Trial.Outcome dec = Trial.run(t.clone().setOperation(Operation.OPERATION_DECODE).setDecodeMode(mode).build(), blob,
          enc.payload(), 0);
      assertEquals("", dec.failure(), mode);
    }
  }

  @Test
  void bsonWritesUint32AsInt64AndLazyReadsEveryKindAsText() throws Exception {
    Records<Object> model = carried.parseCanonical(carriedBlob).model();
    byte[] bson = codec("bson").encode(carried, model);
    // "u32": 0x12 (int64), 4294967295.
    assertTrue(HexFormat.of().formatHex(bson).contains("12753332" + "00" + "ffffffff00000000"),
        HexFormat.of().formatHex(bson));
    List<String> read = new ArrayList<>();
    codec("bson").decodeLazy(carried, bson, List.of("raw", "fl", "at", "u32"), read::add);
    assertEquals(List.of("AAEC/w==", "0.1", "2026-11-27T10:00:00Z", "4294967295"), read.subList(0, 4));
    assertEquals(List.of("", "3.4028235E38", "0001-01-01T00:00:00.120Z", "2147483648"), read.subList(12, 16));
  }
}
