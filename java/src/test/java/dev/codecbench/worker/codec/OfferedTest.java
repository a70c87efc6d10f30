package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.Schema;
import dev.codecbench.worker.model.TestModels;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Jackson codecs refuse, naming the field, a schema feature proto/README.md gives no payload
 * rule yet (the test schema of src/test/proto has every one), and offer every built-in dataset.
 */
class OfferedTest {
  private static Schema everything() {
    return Dataset.discover(TestModels.BINDINGS).get(0).schema();
  }

  @Test
  void everyFeatureWithoutAPayloadRuleIsNamed() {
    Map<String, String> refused = new LinkedHashMap<>();
    for (Schema.Field f : everything().recordMessage().fields()) {
      String kind = Offered.unoffered(f);
      if (kind != null) {
        refused.put(f.name(), kind);
      }
    }
    assertEquals(Map.ofEntries(Map.entry("u32", "uint32"), Map.entry("u64", "uint64"), Map.entry("s32", "sint32"),
        Map.entry("s64", "sint64"), Map.entry("f32", "fixed32"), Map.entry("f64", "fixed64"),
        Map.entry("sf32", "sfixed32"), Map.entry("sf64", "sfixed64"), Map.entry("fl", "float"),
        Map.entry("raw", "bytes"), Map.entry("counts", "map"), Map.entry("parts_by_id", "map"),
        Map.entry("colour_of", "map"), Map.entry("text", "oneof"), Map.entry("chosen", "oneof"),
        Map.entry("at", "google.protobuf.Timestamp"), Map.entry("blobs", "bytes")), refused);
  }

  @Test
  void theDatasetIsRefusedByItsFirstSuchField() {
    assertEquals("json: uint32 field codecbench.test.v1.Everything.u32 is not offered",
        Offered.refusal("json", everything()));
  }

  @Test
  void everyBuiltInDatasetIsOffered() {
    for (Dataset<?> d : Dataset.all()) {
      assertNull(Offered.refusal("json", d.schema()), d.id());
    }
  }
}
