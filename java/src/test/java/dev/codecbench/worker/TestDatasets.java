package dev.codecbench.worker;

import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.BeerRecord;
import dev.codecbench.worker.model.codecbench.v1.DocRecord;
import dev.codecbench.worker.model.codecbench.v1.DummyRecord;
import dev.codecbench.worker.model.codecbench.v1.MediaContent;
import dev.codecbench.worker.model.codecbench.v1.NumericRecord;
import dev.codecbench.worker.model.codecbench.v1.OwnerRecord;
import java.util.List;

/** The built-in datasets the tests use by name, typed with their model records. */
public final class TestDatasets {
  public static final Dataset<DummyRecord> DUMMY = of("dummy");
  public static final Dataset<NumericRecord> NUMERIC = of("numeric");
  public static final Dataset<OwnerRecord> OWNERS = of("owners");
  public static final Dataset<DocRecord> DOCS = of("docs");
  public static final Dataset<BeerRecord> BEERS = of("beers");
  public static final Dataset<List<String>> MATRIX = of("matrix");
  public static final Dataset<MediaContent> MEDIA = of("media");

  private TestDatasets() {}

  @SuppressWarnings("unchecked")
  private static <R> Dataset<R> of(String id) {
    return (Dataset<R>) Dataset.byId(id).orElseThrow(() -> new AssertionError("no dataset " + id));
  }
}
