package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.Schema;
import dev.codecbench.worker.model.TestModels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The schema-less codecs carry every proto3 feature the test schema of src/test/proto has
 * (proto/README.md, "The other proto3 features") but uint64/fixed64 in bson and ubjson, which
 * they refuse naming the field, and offer every built-in dataset.
 */
class OfferedTest {
  private static final List<String> SCHEMA_LESS = List.of("json", "bson", "ubjson", "msgpack", "cbor", "xml");

  private static Schema everything() {
    return Dataset.discover(TestModels.BINDINGS).get(0).schema();
  }

  @Test
  void onlyBsonAndUbjsonRefuseAFeatureOfTheTestSchema() {
    for (String codec : SCHEMA_LESS) {
      Map<String, String> refused = new LinkedHashMap<>();
      for (Schema.Field f : everything().recordMessage().fields()) {
        String kind = Offered.unoffered(codec, f);
        if (kind != null) {
          refused.put(f.name(), kind);
        }
      }
      assertEquals(codec.equals("bson") || codec.equals("ubjson")
          ? Map.of("u64", "uint64", "f64", "fixed64") : Map.of(), refused, codec);
    }
  }

  @Test
  void theDatasetIsRefusedByItsFirstSuchField() {
    assertEquals("bson: uint64 field codecbench.test.v1.Everything.u64 is not offered",
        Offered.refusal("bson", everything()));
    assertEquals("ubjson: uint64 field codecbench.test.v1.Everything.u64 is not offered",
        Offered.refusal("ubjson", everything()));
    assertNull(Offered.refusal("json", everything()));
  }

  @Test
  void otherWellKnownTypesAreRefusedByEveryCodec() {
    Schema.Field d = new Schema.Field("x.M", 1, "d", "d", Schema.Type.MESSAGE, false, "google.protobuf.Duration",
        false, "", false);
    for (String codec : SCHEMA_LESS) {
      assertEquals("google.protobuf.Duration", Offered.unoffered(codec, d), codec);
    }
  }

  @Test
  void everyBuiltInDatasetIsOffered() {
    for (Dataset<?> d : Dataset.all()) {
      for (String codec : SCHEMA_LESS) {
        assertNull(Offered.refusal(codec, d.schema()), d.id() + " " + codec);
      }
    }
  }
}
