package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import codecbench.v1.Results.DatasetInfo;
import codecbench.v1.Results.Environment;
import codecbench.v1.WorkerServiceOuterClass.AttachRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The worker announces every dataset it carries with the fingerprint control computes, its field
 * names, and no refusal: every codec carries every built-in.
 */
class AttachRequestTest {

  @Test
  void attachListsEveryBuiltInWithTheHarnesssFingerprint() throws Exception {
    AttachRequest hello = WorkerLoop.hello("java", Environment.getDefaultInstance(), new CodecRegistry());
    JsonNode expected = new ObjectMapper().readTree(CanonicalVectors.DIR.resolve("fingerprints.json").toFile());
    Map<String, DatasetInfo> want = new TreeMap<>();
    expected.fields().forEachRemaining(e -> want.put(e.getKey(), DatasetInfo.newBuilder().setId(e.getKey())
        .setMessage(e.getValue().get("message").asText())
        .setFingerprint(e.getValue().get("fingerprint").asText()).setFieldNames("json").build()));
    Map<String, DatasetInfo> got = new TreeMap<>();
    // Users' datasets another test of this JVM registered are UserDatasetTest's.
    List<DatasetInfo> builtIns = hello.getDatasetsList().stream()
        .filter(d -> Dataset.all().stream().anyMatch(b -> b.id().equals(d.getId()))).toList();
    for (DatasetInfo d : builtIns) {
      got.put(d.getId(), d);
    }
    assertFalse(want.isEmpty(), "fingerprints.json lists the built-ins");
    assertEquals(want, got);
    assertEquals(builtIns.size(), got.size(), "each dataset once");
  }
}
