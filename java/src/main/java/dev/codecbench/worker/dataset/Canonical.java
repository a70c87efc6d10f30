package dev.codecbench.worker.dataset;

import com.google.protobuf.Message;
import dev.codecbench.worker.model.Records;
import java.util.List;

/**
 * The canonical records of one task: the protobuf messages control shipped (the truth, used for
 * lazy-field expectations) and the native model built from them (what codecs encode and what
 * typed decodes are compared with).
 */
public record Canonical<R>(Dataset<R> dataset, List<? extends Message> proto, Records<R> model) {

  public int size() {
    return proto.size();
  }
}
