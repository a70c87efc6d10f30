package dev.codecbench.worker.dataset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.DatasetOptionsOuterClass;
import codecbench.v1.DatasetOptionsOuterClass.DatasetOptions;
import codecbench.v1.Datasets;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Descriptors.Descriptor;
import dev.codecbench.worker.CanonicalVectors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The dataset registry is what the descriptors' {@code (dataset)} options say, and nothing else. */
class DatasetRegistryTest {

  @Test
  void theRegistryIsTheMessagesMarkedWithTheOptionInDeclarationOrder() {
    Map<String, DatasetOptions> declared = new LinkedHashMap<>();
    for (Descriptor m : Datasets.getDescriptor().getMessageTypes()) {
      if (m.getOptions().hasExtension(DatasetOptionsOuterClass.dataset)) {
        declared.put(m.getFullName(), m.getOptions().getExtension(DatasetOptionsOuterClass.dataset));
      }
    }
    assertFalse(declared.isEmpty(), "datasets.proto marks records (however many)");
    List<Dataset<?>> all = Dataset.all();
    assertEquals(List.copyOf(declared.keySet()), all.stream().map(d -> d.record().getFullName()).toList());
    for (Dataset<?> d : all) {
      DatasetOptions o = declared.get(d.record().getFullName());
      assertEquals(o.getId(), d.id());
      assertEquals(o.getLazyFieldsList(), d.lazyFields(), d.id());
      assertEquals(o.getDescription(), d.description(), d.id());
      assertEquals(o.getBareList(), d.bareList(), d.id());
      assertEquals(d, Dataset.byId(o.getId()).orElseThrow());
      assertEquals(all.indexOf(d), d.index());
    }
  }

  @Test
  void theLazyFieldsAreTheContractsTable() {
    Map<String, List<String>> lazy = new TreeMap<>();
    for (Dataset<?> d : Dataset.all()) {
      lazy.put(d.id(), d.lazyFields());
    }
    assertEquals(new TreeMap<>(CanonicalVectors.LAZY_FIELDS), lazy);
    assertEquals(List.of("matrix"), Dataset.all().stream().filter(Dataset::bareList).map(Dataset::id).toList());
  }

  @Test
  void everyBuiltInsFingerprintIsTheHarnesss() throws Exception {
    Path file = CanonicalVectors.DIR.resolve("fingerprints.json");
    assertTrue(Files.isRegularFile(file), "missing " + file.toAbsolutePath());
    JsonNode expected = new ObjectMapper().readTree(file.toFile());
    Map<String, List<String>> want = new TreeMap<>();
    expected.fields().forEachRemaining(e -> want.put(e.getKey(),
        List.of(e.getValue().get("message").asText(), e.getValue().get("fingerprint").asText())));
    Map<String, List<String>> got = new TreeMap<>();
    for (Dataset<?> d : Dataset.all()) {
      got.put(d.id(), List.of(d.record().getFullName(), d.fingerprint()));
    }
    assertEquals(want, got);
  }
}
