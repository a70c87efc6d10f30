package dev.codecbench.worker.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.JsonNode;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;

/**
 * One pre-built ObjectReader and ObjectWriter per dataset over a configured mapper, for the
 * Jackson-based codecs (json, bson, msgpack, cbor): built once, so no per-call set-up happens
 * inside a timed region.
 */
final class JacksonBindings {
  private record ReaderWriter(ObjectReader reader, ObjectWriter writer) {}

  /** Per dataset: its reader and writer, or why the codec does not offer it (Offered). */
  private final PerDataset<ReaderWriter> byDataset;

  JacksonBindings(String codec, ObjectMapper mapper) {
    this.byDataset = new PerDataset<>(codec, Dataset.carried(), d -> {
      String why = Offered.refusal(codec, d.schema());
      if (why != null) {
        throw new IllegalStateException(why);
      }
      return new ReaderWriter(mapper.readerFor(d.recordsType()), mapper.writerFor(d.recordsType()));
    });
  }

  /** Why the codec does not offer {@code dataset} (a schema feature it has no payload rule for), or null. */
  String refusal(Dataset<?> dataset) {
    return byDataset.get(dataset).refused();
  }

  /** Refuses a dataset with a schema feature the codec has no payload rule for, naming the field. */
  void check(Dataset<?> dataset) throws CodecException {
    String why = refusal(dataset);
    if (why != null) {
      throw new CodecException(why);
    }
  }

  ObjectReader reader(Dataset<?> dataset) throws CodecException {
    check(dataset);
    return byDataset.get(dataset).value().reader();
  }

  ObjectWriter writer(Dataset<?> dataset) throws CodecException {
    check(dataset);
    return byDataset.get(dataset).value().writer();
  }

  /** A tree read by a tree decode to the model records (verification, outside timing). */
  static <R> Records<R> treeToRecords(String codec, ObjectReader reader, JsonNode tree) throws CodecException {
    Records<R> records;
    try {
      records = reader.readValue(tree);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(codec, "tree to records", e);
    }
    if (records == null) {
      throw new CodecException(codec + " tree to records: the tree is null, not {\"records\": [...]}");
    }
    return records;
  }
}
