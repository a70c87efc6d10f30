package dev.codecbench.worker.dataset;

import codecbench.v1.Datasets;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.codecbench.worker.model.BeerRecord;
import dev.codecbench.worker.model.DocRecord;
import dev.codecbench.worker.model.DummyRecord;
import dev.codecbench.worker.model.MatrixRow;
import dev.codecbench.worker.model.NumericRecord;
import dev.codecbench.worker.model.OwnerRecord;
import dev.codecbench.worker.model.Records;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One of the six datasets: how its canonical blob (the protobuf encoding of its {@code *Dataset}
 * message) is parsed, how a record becomes the native model and back, and the native model's
 * Jackson type.
 */
public final class Dataset<R> {
  private static final TypeFactory TYPES = TypeFactory.defaultInstance();
  private static final Map<String, Dataset<?>> BY_ID = new LinkedHashMap<>();

  public static final Dataset<DummyRecord> DUMMY =
      register("dummy", TYPES.constructType(DummyRecord.class), Datasets.DummyDataset.parser(),
          Datasets.DummyDataset::getRecordsList, l -> Datasets.DummyDataset.newBuilder().addAllRecords(l).build(),
          DummyRecord::fromProto, DummyRecord::toProto);
  public static final Dataset<NumericRecord> NUMERIC =
      register("numeric", TYPES.constructType(NumericRecord.class), Datasets.NumericDataset.parser(),
          Datasets.NumericDataset::getRecordsList,
          l -> Datasets.NumericDataset.newBuilder().addAllRecords(l).build(),
          NumericRecord::fromProto, NumericRecord::toProto);
  public static final Dataset<OwnerRecord> OWNERS =
      register("owners", TYPES.constructType(OwnerRecord.class), Datasets.OwnersDataset.parser(),
          Datasets.OwnersDataset::getRecordsList,
          l -> Datasets.OwnersDataset.newBuilder().addAllRecords(l).build(),
          OwnerRecord::fromProto, OwnerRecord::toProto);
  public static final Dataset<DocRecord> DOCS =
      register("docs", TYPES.constructType(DocRecord.class), Datasets.DocsDataset.parser(),
          Datasets.DocsDataset::getRecordsList, l -> Datasets.DocsDataset.newBuilder().addAllRecords(l).build(),
          DocRecord::fromProto, DocRecord::toProto);
  public static final Dataset<BeerRecord> BEERS =
      register("beers", TYPES.constructType(BeerRecord.class), Datasets.BeersDataset.parser(),
          Datasets.BeersDataset::getRecordsList, l -> Datasets.BeersDataset.newBuilder().addAllRecords(l).build(),
          BeerRecord::fromProto, BeerRecord::toProto);
  public static final Dataset<List<String>> MATRIX =
      register("matrix", TYPES.constructCollectionType(List.class, String.class), Datasets.MatrixDataset.parser(),
          Datasets.MatrixDataset::getRecordsList,
          l -> Datasets.MatrixDataset.newBuilder().addAllRecords(l).build(),
          MatrixRow::fromProto, MatrixRow::toProto);

  private final String id;
  private final int index;
  private final JavaType recordsType;
  private final Parser<? extends Message> parser;
  private final Function<Message, List<? extends Message>> recordsOf;
  private final Function<List<Message>, Message> wrap;
  private final Function<Message, R> toModel;
  private final Function<R, Message> toProto;

  @SuppressWarnings("unchecked")
  private <D extends Message, P extends Message> Dataset(String id, int index, JavaType recordType,
      Parser<D> parser, Function<D, List<P>> recordsOf, Function<List<P>, D> wrap,
      Function<P, R> toModel, Function<R, P> toProto) {
    this.id = id;
    this.index = index;
    this.recordsType = TYPES.constructParametricType(Records.class, recordType);
    this.parser = parser;
    this.recordsOf = (Function<Message, List<? extends Message>>) (Function<?, ?>) recordsOf;
    this.wrap = (Function<List<Message>, Message>) (Function<?, ?>) wrap;
    this.toModel = (Function<Message, R>) toModel;
    this.toProto = (Function<R, Message>) toProto;
  }

  private static <D extends Message, P extends Message, R> Dataset<R> register(String id, JavaType recordType,
      Parser<D> parser, Function<D, List<P>> recordsOf, Function<List<P>, D> wrap, Function<P, R> toModel,
      Function<R, P> toProto) {
    Dataset<R> d = new Dataset<>(id, BY_ID.size(), recordType, parser, recordsOf, wrap, toModel, toProto);
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
    List<? extends Message> proto = recordsOf.apply(parser.parseFrom(blob));
    return new Canonical<>(this, proto, toModel(proto));
  }

  /** The generated {@code *Dataset} message's parser (protobuf's timed decode). */
  public Parser<? extends Message> protoParser() {
    return parser;
  }

  /** Native model to the generated {@code *Dataset} message (not timed: model conversion). */
  public Message toProto(Records<R> records) {
    List<Message> protos = new ArrayList<>(records.records().size());
    for (R r : records.records()) {
      protos.add(toProto.apply(r));
    }
    return wrap.apply(protos);
  }

  /** A parsed {@code *Dataset} message to the native model (not timed: model conversion). */
  public Records<R> fromProto(Message datasetMessage) {
    return toModel(recordsOf.apply(datasetMessage));
  }

  private Records<R> toModel(List<? extends Message> proto) {
    List<R> model = new ArrayList<>(proto.size());
    for (Message p : proto) {
      model.add(toModel.apply(p));
    }
    return new Records<>(model);
  }

  @Override
  public String toString() {
    return id;
  }
}
