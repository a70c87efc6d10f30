package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import codecbench.test.v1.EverythingOuterClass.EverythingList;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.model.TestModels;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A dataset whose schema a generic mapper has no form for (bytes, uint32, enums, maps: the test
 * schema of src/test/proto) is refused alone, with the reason (the one the worker announces),
 * when it is used: the codec is still built, so the worker starts and serves every other dataset.
 */
class UnmappedDatasetTest {
  private static final List<Dataset<?>> DATASETS = Dataset.discover(TestModels.BINDINGS);

  @SuppressWarnings("unchecked")
  private static void refused(Codec codec, String reason, byte[] payload) {
    Dataset<Object> everything = (Dataset<Object>) DATASETS.get(0);
    Records<Object> none = everything.fromProto(EverythingList.getDefaultInstance());
    String prefix = codec.id() + " %s: dataset 'everything' is not offered: " + reason;
    assertEquals(String.format(prefix, "encode"),
        assertThrows(CodecException.class, () -> codec.encode(everything, none)).getMessage());
    assertEquals(String.format(prefix, "decode"),
        assertThrows(CodecException.class, () -> codec.decodeTyped(everything, payload)).getMessage());
  }

  @Test
  void flatbuffersRefusesTheDatasetAndNothingElse() {
    FlatbuffersCodec fb = new FlatbuffersCodec(DATASETS);
    refused(fb, "flatbuffers: bytes field codecbench.test.v1.Everything.raw is not offered", new byte[0]);
    assertEquals("flatbuffers: bytes field codecbench.test.v1.Everything.raw is not offered",
        fb.refusal(DATASETS.get(0)));
  }

  @Test
  void ubjsonRefusesTheDatasetAndNothingElse() {
    // A payload that reads (an empty UBJSON object): the dataset is refused when it is mapped.
    // ubjson has no unsigned 64-bit integer (Offered), as bson.
    refused(new UbjsonCodec(DATASETS), "ubjson: uint64 field codecbench.test.v1.Everything.u64 is not offered",
        new byte[] {'{', '}'});
  }
}
