package dev.codecbench.worker.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.codecbench.worker.dataset.Dataset;
import java.util.List;

/**
 * One pre-built ObjectReader and ObjectWriter per dataset over a configured mapper, for the
 * Jackson-based codecs (json, bson, msgpack): built once, so no per-call set-up happens inside a
 * timed region.
 */
final class JacksonBindings {
  private final ObjectReader[] readers;
  private final ObjectWriter[] writers;

  JacksonBindings(ObjectMapper mapper) {
    List<Dataset<?>> all = Dataset.all();
    this.readers = new ObjectReader[all.size()];
    this.writers = new ObjectWriter[all.size()];
    for (Dataset<?> d : all) {
      readers[d.index()] = mapper.readerFor(d.recordsType());
      writers[d.index()] = mapper.writerFor(d.recordsType());
    }
  }

  ObjectReader reader(Dataset<?> dataset) {
    return readers[dataset.index()];
  }

  ObjectWriter writer(Dataset<?> dataset) {
    return writers[dataset.index()];
  }
}
