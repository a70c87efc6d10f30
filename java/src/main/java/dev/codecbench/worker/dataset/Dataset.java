package dev.codecbench.worker.dataset;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.codecbench.worker.model.Models;
import dev.codecbench.worker.model.Records;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * One dataset: a record message marked with the {@code (codecbench.v1.dataset)} option (nothing
 * here names a dataset). The model generator found the option in the descriptors and wrote it,
 * with the record's schema and fingerprint, into each {@link Binding} as constants: registering a
 * dataset builds no descriptor (Schema says why). How its canonical blob (the protobuf encoding of
 * its list message) is parsed and how a record becomes the native model and back come from the
 * binding too.
 *
 * <p>A user's dataset (a schema given at start-up, dev.codecbench.worker.userdata) is {@link
 * #register registered} beside the built-ins, with the options its manifest gives.
 */
public final class Dataset<R> {
  /** Field names in self-describing payloads: each field's json_name (the built-ins'), or its .proto name. */
  public static final String JSON_NAMES = "json";
  public static final String PROTO_NAMES = "proto";

  private static final TypeFactory TYPES = TypeFactory.defaultInstance();
  private static final List<Dataset<?>> ALL = discover(Models.BINDINGS);
  private static final Map<String, Dataset<?>> BY_ID = byId(ALL);
  /** Users' datasets, in the order they were registered; their indexes follow the built-ins'. */
  private static final List<Dataset<?>> USER = new CopyOnWriteArrayList<>();

  /**
   * A dataset's {@code (codecbench.v1.dataset)} option (dataset_options.proto), or a user's
   * manifest's: its id, description, the fields a lazy decode reads, and whether a record is a
   * bare list on the wire.
   */
  public record Options(String id, String description, List<String> lazyFields, boolean bareList) {
    public Options {
      lazyFields = List.copyOf(lazyFields);
    }
  }

  private final Options options;
  private final int index;
  private final boolean protoNames;
  private final String message;
  private final Schema schema;
  private final java.util.function.Supplier<Descriptor> descriptor;
  private final String fingerprint;
  private final JavaType recordsType;
  private final Parser<? extends Message> parser;
  private final Function<Message, List<? extends Message>> recordsOf;
  private final Function<List<Message>, Message> wrap;
  private final Function<Message, R> toModel;
  private final Function<R, Message> toProto;

  @SuppressWarnings("unchecked")
  private Dataset(Options options, int index, Binding<?, ?, R> binding, boolean protoNames) {
    this.options = options;
    this.index = index;
    this.protoNames = protoNames;
    this.message = binding.message();
    this.schema = binding.schema();
    this.descriptor = binding.descriptor();
    this.fingerprint = binding.fingerprint();
    this.recordsType = TYPES.constructParametricType(Records.class, binding.recordType());
    this.parser = binding.parser();
    this.recordsOf = (Function<Message, List<? extends Message>>) (Function<?, ?>) binding.recordsOf();
    this.wrap = (Function<List<Message>, Message>) (Function<?, ?>) binding.wrap();
    this.toModel = (Function<Message, R>) binding.toModel();
    this.toProto = (Function<R, Message>) binding.toProto();
  }

  /** A dataset per binding that carries the option (the built-ins'), in the bindings' order. */
  public static List<Dataset<?>> discover(List<Binding<?, ?, ?>> bindings) {
    List<Dataset<?>> out = new ArrayList<>();
    for (Binding<?, ?, ?> b : bindings) {
      if (b.options() != null) {
        out.add(new Dataset<>(b.options(), out.size(), b, false));
      }
    }
    return List.copyOf(out);
  }

  private static Map<String, Dataset<?>> byId(List<Dataset<?>> all) {
    Map<String, Dataset<?>> out = new LinkedHashMap<>();
    for (Dataset<?> d : all) {
      Dataset<?> twin = out.put(d.id(), d);
      if (twin != null) {
        throw new IllegalStateException("dataset id '" + d.id() + "' is declared by both " + twin.message
            + " and " + d.message);
      }
    }
    return out;
  }

  /**
   * Registers a user's dataset (its record, its binding to the models built for it, the options
   * its manifest gives) and returns it. An id already carried is refused, naming its message.
   */
  public static synchronized Dataset<?> register(Options options, Binding<?, ?, ?> binding, String fieldNames) {
    if (!fieldNames.equals(JSON_NAMES) && !fieldNames.equals(PROTO_NAMES)) {
      throw new IllegalArgumentException("fieldNames must be json or proto, not '" + fieldNames + "'");
    }
    Optional<Dataset<?>> twin = byId(options.id());
    if (twin.isPresent()) {
      throw new IllegalStateException("dataset id '" + options.id() + "' is already carried (" + twin.get().message
          + (twin.get().isUser() ? ", a user's dataset" : ", a built-in") + ")");
    }
    Dataset<?> d = new Dataset<>(options, ALL.size() + USER.size(), binding, fieldNames.equals(PROTO_NAMES));
    USER.add(d);
    return d;
  }

  /** A built-in or a registered user's dataset. */
  public static Optional<Dataset<?>> byId(String id) {
    Dataset<?> builtIn = BY_ID.get(id);
    if (builtIn != null) {
      return Optional.of(builtIn);
    }
    return USER.stream().filter(d -> d.id().equals(id)).findFirst();
  }

  /** The built-in datasets (compiled in from proto/). */
  public static List<Dataset<?>> all() {
    return ALL;
  }

  /** Every dataset this worker carries: the built-ins, then the users' registered so far. */
  public static List<Dataset<?>> carried() {
    List<Dataset<?>> out = new ArrayList<>(ALL);
    out.addAll(USER);
    return List.copyOf(out);
  }

  /** A user's dataset (given at start-up), not a built-in. */
  public boolean isUser() {
    return USER.contains(this);
  }

  /** "json" (json_name) or "proto": the names self-describing payloads give fields. */
  public String fieldNames() {
    return protoNames ? PROTO_NAMES : JSON_NAMES;
  }

  /** A field's name in self-describing payloads and lazy paths: its json_name, or its .proto name. */
  public String wireName(com.google.protobuf.Descriptors.FieldDescriptor field) {
    return protoNames ? field.getName() : field.getJsonName();
  }

  /** A field's name in self-describing payloads and lazy paths: its json_name, or its .proto name. */
  public String wireName(Schema.Field field) {
    return protoNames ? field.name() : field.jsonName();
  }

  /** The fields are named by their .proto names (not json_name) in payloads. */
  public boolean protoNames() {
    return protoNames;
  }

  public String id() {
    return options.id();
  }

  public String description() {
    return options.description();
  }

  /** The fields a lazy decode reads, as the option declares them. */
  public List<String> lazyFields() {
    return options.lazyFields();
  }

  /** A record is a bare list on the wire of schema-less codecs (a matrix row). */
  public boolean bareList() {
    return options.bareList();
  }

  /** The record message's full name. */
  public String message() {
    return message;
  }

  /** The record's schema (constants: no descriptor is built). */
  public Schema schema() {
    return schema;
  }

  /**
   * The record message's descriptor, built on this call if no one built it before: only for what
   * truly needs descriptors (flatbuffers' mapping, tests), never on a protobuf or json trial's
   * way to its timed region.
   */
  public Descriptor record() {
    return descriptor.get();
  }

  /** The record schema's fingerprint (proto/README.md), announced on attach. */
  public String fingerprint() {
    return fingerprint;
  }

  /** Dense index (0..n-1), so codecs can keep pre-built readers and writers in an array. */
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

  /** The list message's parser (protobuf's timed decode). */
  public Parser<? extends Message> protoParser() {
    return parser;
  }

  /** Native model to the list message (not timed: model conversion). */
  public Message toProto(Records<R> records) {
    List<Message> protos = new ArrayList<>(records.records().size());
    for (R r : records.records()) {
      protos.add(toProto.apply(r));
    }
    return wrap.apply(protos);
  }

  /** A parsed list message to the native model (not timed: model conversion). */
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
    return id();
  }
}
