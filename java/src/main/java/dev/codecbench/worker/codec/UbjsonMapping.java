package dev.codecbench.worker.codec;

import static dev.codecbench.worker.codec.UbjsonValues.kind;
import static dev.codecbench.worker.codec.UbjsonValues.object;

import com.devsmart.ubjson.UBArray;
import com.devsmart.ubjson.UBObject;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBValueFactory;
import dev.codecbench.worker.codec.UbjsonValues.EnumValue;
import dev.codecbench.worker.codec.UbjsonValues.Field;
import dev.codecbench.worker.codec.UbjsonValues.ListValue;
import dev.codecbench.worker.codec.UbjsonValues.MessageValue;
import dev.codecbench.worker.codec.UbjsonValues.Scalar;
import dev.codecbench.worker.codec.UbjsonValues.Value;
import com.fasterxml.jackson.databind.JavaType;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.Schema;
import dev.codecbench.worker.model.Records;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The model records to and from com.dev-smart:ubjson's value tree. The library has no data
 * binding, so the mapping is generic and built once per dataset (in UbjsonCodec's constructor)
 * from the dataset's schema (constants the model generator wrote) and the model record types: a message's fields, in declaration
 * order, are the record's components (checked by name); the schema gives each field's wire
 * name (its proto JSON name) and type, and the record components give the accessors and the
 * canonical constructor (MethodHandles resolved once). A message modelled as a List (a matrix
 * row) is its one repeated field, written as a bare array. Adding a dataset touches nothing here.
 *
 * <p>Wire form: strings as S; int32 and int64 in the smallest integer marker that holds them;
 * doubles as float64 (D); booleans T/F; an enum as its value name (S); a repeated string field as the library's strongly typed
 * array ({@code [$S#n}); other repeated fields as a counted array ({@code [#n}) of their values;
 * a message as an object (the library keeps object keys sorted); a proto3 optional field left
 * out when unset. Reading is strict: a missing field (but an optional one), a value of the wrong kind or an integer out of its field's range is an error naming the
 * field; any integer marker is taken for an integer field, any number for a double (exactly).
 */
final class UbjsonMapping {
  private static final String ID = "ubjson";
  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

  /** The payload does not have the dataset's shape. */
  static final class ShapeException extends RuntimeException {
    ShapeException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Per dataset: how one record is written and read, or why it is not offered (a feature with no
   * payload rule, Offered, as in every schema-less codec; or one the mapping has no form for).
   * One dataset the mapping cannot represent is refused alone: the codec serves the others.
   */
  private final PerDataset<Value> records;

  UbjsonMapping(List<Dataset<?>> all) {
    this.records = new PerDataset<>(ID, all, d -> {
      String why = Offered.refusal(ID, d.schema());
      if (why != null) {
        throw new IllegalStateException(why);
      }
      return new Builder(d).record(d.recordsType().containedType(0));
    });
  }

  /** Why the mapping does not offer {@code dataset}, or null. */
  String refusal(Dataset<?> dataset) {
    return records.get(dataset).refused();
  }

  /** How one record of the dataset is written and read, or the reason it is not offered. */
  private Value mapped(Dataset<?> dataset) {
    PerDataset.Entry<Value> one = records.get(dataset);
    if (one.value() == null) {
      throw new ShapeException("dataset '" + dataset.id() + "' is not offered: " + one.refused());
    }
    return one.value();
  }

  <R> UBValue toTree(Dataset<R> dataset, Records<R> in) {
    Value one = mapped(dataset);
    List<R> list = in.records();
    UBValue[] out = new UBValue[list.size()];
    try {
      for (int i = 0; i < out.length; i++) {
        out[i] = one.write(list.get(i));
      }
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      // A record accessor declares no checked exception; MethodHandle.invokeExact says Throwable.
      throw new IllegalStateException(t);
    }
    UBObject root = UBValueFactory.createObject();
    root.put("records", UBValueFactory.createArray(out));
    return root;
  }

  @SuppressWarnings("unchecked")
  <R> Records<R> fromTree(Dataset<R> dataset, UBValue root) {
    Value one = mapped(dataset);
    UBObject o = object(root, "the payload", -1);
    UBValue v = o.get("records");
    if (v == null) {
      throw new ShapeException("no field 'records'");
    }
    if (!v.isArray()) {
      throw new ShapeException("field 'records' is " + kind(v) + ", not an array");
    }
    UBArray array = v.asArray();
    int n = array.size();
    List<R> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      try {
        out.add((R) one.read(array.get(i), "record", -1));
      } catch (ShapeException e) {
        throw new ShapeException("record " + i + ": " + e.getMessage());
      }
    }
    return new Records<>(out);
  }

  // ---- building the mapping (once) ------------------------------------------------------------

  /** Builds one dataset's mapping from its schema (constants: no descriptor is built). */
  private static final class Builder {
    private final Dataset<?> dataset;
    private final Schema schema;

    Builder(Dataset<?> dataset) {
      this.dataset = dataset;
      this.schema = dataset.schema();
    }

    /** A dataset's record: a record class for its message, or a List for a one-repeated-field message. */
    Value record(JavaType type) {
      Schema.Message message = schema.recordMessage();
      if (type.isCollectionLikeType()) {
        List<Schema.Field> fields = message.fields();
        if (fields.size() != 1 || !fields.get(0).repeated()) {
          throw new IllegalStateException("ubjson: " + message.fullName() + " is modelled as a List, so it must be one "
              + "repeated field");
        }
        Schema.Field only = fields.get(0);
        return new ListValue(single(only, type.getContentType().getRawClass(), only.fullName()), "record");
      }
      return message(message, type.getRawClass());
    }

    private MessageValue message(Schema.Message message, Class<?> type) {
      RecordComponent[] comps = ProtoRecords.components("ubjson", type, message);
      List<Schema.Field> fds = message.fields();
      Field[] fields = new Field[comps.length];
      Class<?>[] types = new Class<?>[comps.length];
      for (int i = 0; i < comps.length; i++) {
        fields[i] = field(fds.get(i), comps[i]);
        types[i] = comps[i].getType();
      }
      MethodHandle construct;
      try {
        construct = LOOKUP.unreflectConstructor(type.getDeclaredConstructor(types))
            .asType(MethodType.methodType(Object.class, types))
            .asSpreader(Object[].class, types.length);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("ubjson: no canonical constructor of " + type.getName(), e);
      }
      return new MessageValue(fields, construct);
    }

    private Field field(Schema.Field fd, RecordComponent comp) {
      String key = dataset.wireName(fd);
      String where = fd.fullName();
      MethodHandle get;
      try {
        get = LOOKUP.unreflect(comp.getAccessor());
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("ubjson: cannot read " + comp, e);
      }
      if (fd.map()) {
        if (comp.getType() != Map.class || !(comp.getGenericType() instanceof ParameterizedType p)) {
          throw new IllegalStateException("ubjson: " + where + " is a map; its model is not a Map");
        }
        Schema.Field keyField = schema.mapKey(fd);
        Schema.Field valueField = schema.mapValue(fd);
        Value value = single(valueField, rawClass(p.getActualTypeArguments()[1], where), where);
        boolean unsignedKey = keyField.type() == Schema.Type.UINT32 || keyField.type() == Schema.Type.FIXED32
            || keyField.type() == Schema.Type.UINT64 || keyField.type() == Schema.Type.FIXED64;
        return new Field(key, new UbjsonExtras.MapValue(rawClass(p.getActualTypeArguments()[0], where), unsignedKey,
            value), "field '" + key + "'", get, false);
      }
      if (fd.repeated()) {
        if (comp.getType() != List.class || !(comp.getGenericType() instanceof ParameterizedType p)) {
          throw new IllegalStateException("ubjson: " + where + " is repeated; its model is not a List");
        }
        Value element = single(fd, rawClass(p.getActualTypeArguments()[0], where), where);
        // Named in errors as the hand-written mapping named them: a string list by its key, other
        // lists as a field; their elements as key[i].
        String name = fd.type() == Schema.Type.STRING ? key : "field '" + key + "'";
        return new Field(key, new ListValue(element, key), name, get, false);
      }
      Value value = single(fd, comp.getType(), where);
      // A oneof member is present only when set, like a proto3 optional field.
      return new Field(key, value, fd.type() == Schema.Type.MESSAGE ? key : "field '" + key + "'", get,
          fd.nullable());
    }

    private Value single(Schema.Field fd, Class<?> type, String where) {
      Scalar.Kind kind = switch (fd.type()) {
        case STRING -> Scalar.Kind.STRING;
        case BOOL -> Scalar.Kind.BOOL;
        case INT32, SINT32, SFIXED32 -> Scalar.Kind.INT32;
        case INT64, SINT64, SFIXED64 -> Scalar.Kind.INT64;
        case DOUBLE -> Scalar.Kind.DOUBLE;
        case UINT32, FIXED32 -> Scalar.Kind.UINT32;
        case FLOAT -> Scalar.Kind.FLOAT;
        case MESSAGE, ENUM, BYTES -> null;
        // uint64 has no form in ubjson (Offered refuses it first).
        default -> throw new IllegalStateException(Offered.reason(ID, fd.type().name().toLowerCase(Locale.ROOT), fd));
      };
      if (fd.type() == Schema.Type.BYTES) {
        return new UbjsonExtras.BytesValue();
      }
      if (fd.isTimestamp()) {
        return timestamp(type, where);
      }
      if (fd.type() == Schema.Type.MESSAGE) {
        return message(schema.messageOf(fd), type);
      }
      if (kind == null) {
        if (!type.isEnum()) {
          throw new IllegalStateException("ubjson: " + where + " is an enum; its model is " + type.getName());
        }
        return new EnumValue(type.asSubclass(Enum.class));
      }
      if (type != kind.primitive && type != kind.boxed) {
        throw new IllegalStateException("ubjson: " + where + " is " + fd.type() + "; its model is " + type.getName()
            + ", not " + kind.primitive.getName());
      }
      return new Scalar(kind);
    }
  }

  /** The Timestamp model record (long seconds, int nanos), written and read as its RFC 3339 string. */
  private static Value timestamp(Class<?> type, String where) {
    RecordComponent[] c = type.getRecordComponents();
    if (c == null || c.length != 2 || c[0].getType() != long.class || c[1].getType() != int.class) {
      throw new IllegalStateException("ubjson: " + where + " is a Timestamp; its model " + type.getName()
          + " is not a record of (long seconds, int nanos)");
    }
    try {
      return new UbjsonExtras.TimestampValue(
          LOOKUP.unreflect(c[0].getAccessor()).asType(MethodType.methodType(long.class, Object.class)),
          LOOKUP.unreflect(c[1].getAccessor()).asType(MethodType.methodType(int.class, Object.class)),
          LOOKUP.unreflectConstructor(type.getDeclaredConstructor(long.class, int.class))
              .asType(MethodType.methodType(Object.class, long.class, int.class)));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("ubjson: cannot use " + type.getName(), e);
    }
  }

  private static Class<?> rawClass(Type t, String where) {
    if (t instanceof Class<?> c) {
      return c;
    }
    throw new IllegalStateException("ubjson: " + where + ": no mapping for list element type " + t);
  }
}
