package dev.codecbench.worker.codec;

import codecbench.v1.Results.Refusal;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import java.util.ArrayList;
import java.util.List;

/**
 * What the worker announces it refuses on a dataset (DatasetInfo.refused, proto/README.md): each
 * codec that cannot carry one of its schema's features ({@link Codec#refusal}), and the lazy mode
 * of a codec when a lazy field the dataset names is not one a lazy read takes. Control plans
 * none of those cells.
 */
public final class Refusals {
  private Refusals() {}

  public static List<Refusal> of(Dataset<?> dataset, List<Codec> codecs) {
    String lazy = null;
    for (String field : dataset.lazyFields()) {
      lazy = lazy != null ? lazy : LazyField.problem(dataset, field);
    }
    List<Refusal> out = new ArrayList<>();
    for (Codec c : codecs) {
      String why = c.refusal(dataset);
      if (why != null) {
        out.add(refusal(dataset, c, "", why));
      } else if (lazy != null && c.decodeModes().contains(Codec.LAZY)) {
        out.add(refusal(dataset, c, Codec.LAZY, c.id() + ": " + lazy));
      }
    }
    return out;
  }

  private static Refusal refusal(Dataset<?> dataset, Codec codec, String mode, String reason) {
    return Refusal.newBuilder().setDataset(dataset.id()).setCodec(codec.id()).setDecodeMode(mode).setReason(reason)
        .build();
  }
}
