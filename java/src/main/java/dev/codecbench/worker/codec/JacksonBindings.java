package dev.codecbench.worker.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.JsonNode;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.util.List;

/**
 * One pre-built ObjectReader and ObjectWriter per dataset over a configured mapper, for the
 * Jackson-based codecs (json, bson, msgpack, cbor): built once, so no per-call set-up happens
 * inside a timed region.
 */
final class JacksonBindings {
  private final ObjectReader[] readers;
  private final ObjectWriter[] writers;
  /** Per dataset: why the codec does not offer it (Offered), or null. */
  private final String[] refused;

  JacksonBindings(String codec, ObjectMapper mapper) {
    List<Dataset<?>> all = Dataset.all();
    this.readers = new ObjectReader[all.size()];
    this.writers = new ObjectWriter[all.size()];
    this.refused = new String[all.size()];
    for (Dataset<?> d : all) {
      readers[d.index()] = mapper.readerFor(d.recordsType());
      writers[d.index()] = mapper.writerFor(d.recordsType());
      refused[d.index()] = Offered.refusal(codec, d.record());
    }
  }

  /** Refuses a dataset with a schema feature the codec has no payload rule for, naming the field. */
  void check(Dataset<?> dataset) throws CodecException {
    String why = refused[dataset.index()];
    if (why != null) {
      throw new CodecException(why);
    }
  }

  ObjectReader reader(Dataset<?> dataset) throws CodecException {
    check(dataset);
    return readers[dataset.index()];
  }

  ObjectWriter writer(Dataset<?> dataset) throws CodecException {
    check(dataset);
    return writers[dataset.index()];
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
