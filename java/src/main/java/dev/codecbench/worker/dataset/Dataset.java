package dev.codecbench.worker.dataset;

import codecbench.v1.Datasets;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.codecbench.worker.model.BeerRecord;
import dev.codecbench.worker.model.DocRecord;
import dev.codecbench.worker.model.DummyRecord;
import dev.codecbench.worker.model.MatrixRow;
import dev.codecbench.worker.model.NumericRecord;
import dev.codecbench.worker.model.OwnerRecord;
import dev.codecbench.worker.model.Records;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One of the six datasets: how its canonical blob (the protobuf encoding of its {@code *Dataset}
 * message) is parsed, how a record becomes the native model, and the native model's Jackson type.
 */
public final class Dataset<R> {
  private static final TypeFactory TYPES = TypeFactory.defaultInstance();
  private static final Map<String, Dataset<?>> BY_ID = new LinkedHashMap<>();

  public static final Dataset<DummyRecord> DUMMY =
      register("dummy", TYPES.constructType(DummyRecord.class),
          b -> Datasets.DummyDataset.parseFrom(b).getRecordsList(), DummyRecord::fromProto);
  public static final Dataset<NumericRecord> NUMERIC =
      register("numeric", TYPES.constructType(NumericRecord.class),
          b -> Datasets.NumericDataset.parseFrom(b).getRecordsList(), NumericRecord::fromProto);
  public static final Dataset<OwnerRecord> OWNERS =
      register("owners", TYPES.constructType(OwnerRecord.class),
          b -> Datasets.OwnersDataset.parseFrom(b).getRecordsList(), OwnerRecord::fromProto);
  public static final Dataset<DocRecord> DOCS =
      register("docs", TYPES.constructType(DocRecord.class),
          b -> Datasets.DocsDataset.parseFrom(b).getRecordsList(), DocRecord::fromProto);
  public static final Dataset<BeerRecord> BEERS =
      register("beers", TYPES.constructType(BeerRecord.class),
          b -> Datasets.BeersDataset.parseFrom(b).getRecordsList(), BeerRecord::fromProto);
  public static final Dataset<List<String>> MATRIX =
      register("matrix", TYPES.constructCollectionType(List.class, String.class),
          b -> Datasets.MatrixDataset.parseFrom(b).getRecordsList(), MatrixRow::fromProto);

  /** Parses the protobuf list message of a dataset into its records. */
  @FunctionalInterface
  interface ProtoParser<P> {
    List<P> parse(byte[] blob) throws InvalidProtocolBufferException;
  }

  private final String id;
  private final int index;
  private final JavaType recordsType;
  private final ProtoParser<? extends Message> parser;
  private final Function<Message, R> toModel;

  @SuppressWarnings("unchecked")
  private <P extends Message> Dataset(
      String id, int index, JavaType recordType, ProtoParser<P> parser, Function<P, R> toModel) {
    this.id = id;
    this.index = index;
    this.recordsType = TYPES.constructParametricType(Records.class, recordType);
    this.parser = parser;
    this.toModel = (Function<Message, R>) toModel;
  }

  private static <P extends Message, R> Dataset<R> register(
      String id, JavaType recordType, ProtoParser<P> parser, Function<P, R> toModel) {
    Dataset<R> d = new Dataset<>(id, BY_ID.size(), recordType, parser, toModel);
    BY_ID.put(id, d);
    return d;
  }

  public static Optional<Dataset<?>> byId(String id) {
    return Optional.ofNullable(BY_ID.get(id));
  }

  public static List<Dataset<?>> all() {
    return List.copyOf(BY_ID.values());
  }

  public String id() {
    return id;
  }

  /** Dense index (0..5), so codecs can keep pre-built readers and writers in an array. */
  public int index() {
    return index;
  }

  /** Jackson type of {@code Records<R>}. */
  public JavaType recordsType() {
    return recordsType;
  }

  /** Parses the canonical blob and converts every record into the native model. */
  public Canonical<R> parseCanonical(byte[] blob) throws InvalidProtocolBufferException {
    List<? extends Message> proto = parser.parse(blob);
    List<R> model = proto.stream().map(toModel).toList();
    return new Canonical<>(this, proto, new Records<>(model));
  }

  @Override
  public String toString() {
    return id;
  }
}
