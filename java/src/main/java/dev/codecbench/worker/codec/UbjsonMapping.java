package dev.codecbench.worker.codec;

import com.devsmart.ubjson.UBArray;
import com.devsmart.ubjson.UBObject;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBValueFactory;
import com.fasterxml.jackson.databind.JavaType;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * The model records to and from com.dev-smart:ubjson's value tree. The library has no data
 * binding, so the mapping is generic and built once per dataset (in UbjsonCodec's constructor)
 * from the proto descriptors and the model record types: a message's fields, in declaration
 * order, are the record's components (checked by name); the descriptor gives each field's wire
 * name (its proto JSON name) and type, and the record components give the accessors and the
 * canonical constructor (MethodHandles resolved once). A message modelled as a List (a matrix
 * row) is its one repeated field, written as a bare array. Adding a dataset touches nothing here.
 *
 * <p>Wire form: strings as S; int32 and int64 in the smallest integer marker that holds them;
 * doubles as float64 (D); booleans T/F; a repeated string field as the library's strongly typed
 * array ({@code [$S#n}); other repeated fields as a counted array ({@code [#n}) of their values;
 * a message as an object (the library keeps object keys sorted). Reading is strict: a missing
 * field, a value of the wrong kind or an integer out of its field's range is an error naming the
 * field; any integer marker is taken for an integer field, any number for a double (exactly).
 */
final class UbjsonMapping {
  private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

  /** The payload does not have the dataset's shape. */
  static final class ShapeException extends RuntimeException {
    ShapeException(String message) {
      super(message, null, false, false);
    }
  }

  /** Per dataset (Dataset.index()): how one record is written and read. */
  private final Value[] records;
  /** Per dataset: why the mapping does not offer it (a feature it has no form for), or null. */
  private final String[] refused;

  UbjsonMapping(List<Dataset<?>> all) {
    this.records = new Value[all.size()];
    this.refused = new String[all.size()];
    for (Dataset<?> d : all) {
      Descriptor wrapper = d.toProto(new Records<>(List.of())).getDescriptorForType();
      FieldDescriptor field = wrapper.findFieldByName("records");
      if (wrapper.getFields().size() != 1 || field == null || !field.isRepeated()
          || field.getType() != FieldDescriptor.Type.MESSAGE) {
        throw new IllegalStateException("ubjson: " + wrapper.getName() + " is not one repeated message field 'records'");
      }
      // One dataset the mapping cannot represent is refused alone: the codec serves the others.
      try {
        records[d.index()] = record(field.getMessageType(), d.recordsType().containedType(0));
      } catch (IllegalStateException e) {
        refused[d.index()] = e.getMessage();
      }
    }
  }

  /** How one record of the dataset is written and read, or the reason it is not offered. */
  private Value mapped(Dataset<?> dataset) {
    Value one = records[dataset.index()];
    if (one == null) {
      throw new ShapeException("dataset '" + dataset.id() + "' is not offered: " + refused[dataset.index()]);
    }
    return one;
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

  /** A dataset's record: a record class for its message, or a List for a one-repeated-field message. */
  private static Value record(Descriptor message, JavaType type) {
    if (type.isCollectionLikeType()) {
      List<FieldDescriptor> fields = message.getFields();
      if (fields.size() != 1 || !fields.get(0).isRepeated()) {
        throw new IllegalStateException("ubjson: " + message.getName() + " is modelled as a List, so it must be one "
            + "repeated field");
      }
      FieldDescriptor only = fields.get(0);
      return new ListValue(single(only, type.getContentType().getRawClass(), message.getName() + "." + only.getName()),
          "record");
    }
    return message(message, type.getRawClass());
  }

  private static MessageValue message(Descriptor message, Class<?> type) {
    RecordComponent[] comps = ProtoRecords.components("ubjson", type, message);
    List<FieldDescriptor> fds = message.getFields();
    Field[] fields = new Field[comps.length];
    Class<?>[] types = new Class<?>[comps.length];
    for (int i = 0; i < comps.length; i++) {
      FieldDescriptor fd = fds.get(i);
      fields[i] = field(message, fd, comps[i]);
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

  private static Field field(Descriptor message, FieldDescriptor fd, RecordComponent comp) {
    String where = message.getName() + "." + fd.getName();
    if (fd.isMapField() || fd.getRealContainingOneof() != null) {
      throw new IllegalStateException("ubjson: " + where + ": maps and oneofs are not mapped");
    }
    String key = fd.getJsonName();
    MethodHandle get;
    try {
      get = LOOKUP.unreflect(comp.getAccessor());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("ubjson: cannot read " + comp, e);
    }
    if (fd.isRepeated()) {
      if (comp.getType() != List.class || !(comp.getGenericType() instanceof ParameterizedType p)) {
        throw new IllegalStateException("ubjson: " + where + " is repeated; its model is not a List");
      }
      Value element = single(fd, rawClass(p.getActualTypeArguments()[0], where), where);
      // Named in errors as the hand-written mapping named them: a string list by its key, other
      // lists as a field; their elements as key[i].
      String name = fd.getType() == FieldDescriptor.Type.STRING ? key : "field '" + key + "'";
      return new Field(key, new ListValue(element, key), name, get);
    }
    Value value = single(fd, comp.getType(), where);
    return new Field(key, value, fd.getType() == FieldDescriptor.Type.MESSAGE ? key : "field '" + key + "'", get);
  }

  private static Value single(FieldDescriptor fd, Class<?> type, String where) {
    Scalar.Kind kind = switch (fd.getType()) {
      case STRING -> Scalar.Kind.STRING;
      case BOOL -> Scalar.Kind.BOOL;
      case INT32, SINT32, SFIXED32 -> Scalar.Kind.INT32;
      case INT64, SINT64, SFIXED64 -> Scalar.Kind.INT64;
      case DOUBLE -> Scalar.Kind.DOUBLE;
      case MESSAGE -> null;
      // Unsigned, float, bytes and enum fields have no mapping yet (no dataset has one): a
      // dataset that adds one fails here, at start-up, naming the field.
      default -> throw new IllegalStateException("ubjson: " + where + ": " + fd.getType() + " is not mapped");
    };
    if (kind == null) {
      return message(fd.getMessageType(), type);
    }
    if (type != kind.primitive && type != kind.boxed) {
      throw new IllegalStateException("ubjson: " + where + " is " + fd.getType() + "; its model is " + type.getName()
          + ", not " + kind.primitive.getName());
    }
    return new Scalar(kind);
  }

  private static Class<?> rawClass(Type t, String where) {
    if (t instanceof Class<?> c) {
      return c;
    }
    throw new IllegalStateException("ubjson: " + where + ": no mapping for list element type " + t);
  }

  // ---- the mapping ----------------------------------------------------------------------------

  /** How one value (a field's, a list element's, a record) is written and read. */
  private abstract static class Value {
    abstract UBValue write(Object v) throws Throwable;

    /**
     * Reads {@code v}; errors name it {@code what}, or {@code what[index]} for a list element
     * (the name is made only when there is an error).
     */
    abstract Object read(UBValue v, String what, int index);
  }

  /** One field of a message: its wire key, how errors name it, and the record's accessor. */
  private static final class Field {
    private static final int OBJECT = 0;
    private static final int INT = 1;
    private static final int LONG = 2;
    private static final int DOUBLE = 3;
    private static final int BOOLEAN = 4;

    final String key;
    final Value value;
    final String name;
    /** Which of the handle's types {@link #get} returns: a primitive component is read unboxed. */
    final int primitive;
    /** (Object) -> the component: int/long/double/boolean for those components, else Object. */
    final MethodHandle get;

    Field(String key, Value value, String name, MethodHandle accessor) {
      this.key = key;
      this.value = value;
      this.name = name;
      Class<?> type = accessor.type().returnType();
      this.primitive = type == int.class ? INT : type == long.class ? LONG : type == double.class ? DOUBLE
          : type == boolean.class ? BOOLEAN : OBJECT;
      this.get = accessor.asType(MethodType.methodType(primitive == OBJECT ? Object.class : type, Object.class));
    }

    UBValue write(Object record) throws Throwable {
      return switch (primitive) {
        case INT -> UBValueFactory.createInt((int) get.invokeExact(record));
        case LONG -> UBValueFactory.createInt((long) get.invokeExact(record));
        case DOUBLE -> UBValueFactory.createFloat64((double) get.invokeExact(record));
        case BOOLEAN -> UBValueFactory.createBool((boolean) get.invokeExact(record));
        default -> value.write((Object) get.invokeExact(record));
      };
    }

    Object read(UBObject o) {
      UBValue v = o.get(key);
      if (v == null) {
        throw new ShapeException("no field '" + key + "'");
      }
      return value.read(v, name, -1);
    }
  }

  /** A message: a record written as an object of its fields, read through its canonical constructor. */
  private static final class MessageValue extends Value {
    final Field[] fields;
    /** (Object[]) -> Object: the canonical constructor, arguments in component order. */
    final MethodHandle construct;

    MessageValue(Field[] fields, MethodHandle construct) {
      this.fields = fields;
      this.construct = construct;
    }

    @Override
    UBValue write(Object record) throws Throwable {
      UBObject o = UBValueFactory.createObject();
      for (Field f : fields) {
        o.put(f.key, f.write(record));
      }
      return o;
    }

    @Override
    Object read(UBValue v, String what, int index) {
      UBObject o = object(v, what, index);
      Object[] args = new Object[fields.length];
      for (int i = 0; i < args.length; i++) {
        args[i] = fields[i].read(o);
      }
      try {
        return (Object) construct.invokeExact(args);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  }

  /**
   * A list (a repeated field, or a record that is one): strings as the library's typed string
   * array, anything else as a counted array of its values.
   */
  private static final class ListValue extends Value {
    final Value element;
    final boolean strings;
    /** How errors name an element, with its index. */
    final String elementName;

    ListValue(Value element, String elementName) {
      this.element = element;
      this.strings = element instanceof Scalar s && s.kind == Scalar.Kind.STRING;
      this.elementName = elementName;
    }

    @Override
    UBValue write(Object v) throws Throwable {
      List<?> list = (List<?>) v;
      if (strings) {
        return UBValueFactory.createArray(list.toArray(new String[0]));
      }
      UBValue[] out = new UBValue[list.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = element.write(list.get(i));
      }
      return UBValueFactory.createArray(out);
    }

    @Override
    Object read(UBValue v, String what, int index) {
      if (v == null || !v.isArray()) {
        throw new ShapeException(name(what, index) + " is " + kind(v)
            + (strings ? ", not an array of strings" : ", not an array"));
      }
      UBArray a = v.asArray();
      int n = a.size();
      List<Object> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(element.read(a.get(i), elementName, i));
      }
      return out;
    }
  }

  /**
   * A string, boolean, int32, int64 or double, as a List holds it (boxed); a record component of a
   * primitive type is written unboxed by its {@link Field}.
   */
  private static final class Scalar extends Value {
    enum Kind {
      STRING(String.class, String.class),
      BOOL(boolean.class, Boolean.class),
      INT32(int.class, Integer.class),
      INT64(long.class, Long.class),
      DOUBLE(double.class, Double.class);

      final Class<?> primitive;
      final Class<?> boxed;

      Kind(Class<?> primitive, Class<?> boxed) {
        this.primitive = primitive;
        this.boxed = boxed;
      }
    }

    final Kind kind;

    Scalar(Kind kind) {
      this.kind = kind;
    }

    @Override
    UBValue write(Object v) {
      return switch (kind) {
        case STRING -> UBValueFactory.createString((String) v);
        case BOOL -> UBValueFactory.createBool((Boolean) v);
        case INT32 -> UBValueFactory.createInt((Integer) v);
        case INT64 -> UBValueFactory.createInt((Long) v);
        case DOUBLE -> UBValueFactory.createFloat64((Double) v);
      };
    }

    @Override
    Object read(UBValue v, String what, int index) {
      return switch (kind) {
        case STRING -> text(v, what, index);
        case BOOL -> {
          if (v == null || !v.isBool()) {
            throw new ShapeException(name(what, index) + " is " + kind(v) + ", not a boolean");
          }
          yield v.asBool();
        }
        case INT64 -> integer(v, what, index);
        case INT32 -> {
          long l = integer(v, what, index);
          if (l != (int) l) {
            throw new ShapeException(name(what, index) + " is " + l + ", out of int32 range");
          }
          yield (int) l;
        }
        case DOUBLE -> number(v, what, index);
      };
    }

    private static long integer(UBValue v, String what, int index) {
      if (v == null || !v.isInteger()) {
        throw new ShapeException(name(what, index) + " is " + kind(v) + ", not an integer");
      }
      return v.asLong();
    }

    /** Any number: float64 as it is, float32 and integers widened exactly. */
    private static double number(UBValue v, String what, int index) {
      if (v == null || !v.isNumber()) {
        throw new ShapeException(name(what, index) + " is " + kind(v) + ", not a number");
      }
      return switch (v.getType()) {
        case Float64 -> v.asFloat64();
        case Float32 -> v.asFloat32();
        default -> {
          long l = v.asLong();
          double d = l;
          if ((long) d != l) {
            throw new ShapeException(name(what, index) + " is the integer " + l + ", not exactly a double");
          }
          yield d;
        }
      };
    }
  }

  // ---- strict accessors -----------------------------------------------------------------------

  private static String name(String what, int index) {
    return index < 0 ? what : what + "[" + index + "]";
  }

  private static UBObject object(UBValue v, String what, int index) {
    if (v == null || !v.isObject()) {
      throw new ShapeException(name(what, index) + " is " + kind(v) + ", not an object");
    }
    return v.asObject();
  }

  /** A string; Draft 12's char (C) is a one-character string. */
  private static String text(UBValue v, String what, int index) {
    if (v != null && v.isString()) {
      return v.asString();
    }
    if (v != null && v.isChar()) {
      return String.valueOf(v.asChar());
    }
    throw new ShapeException(name(what, index) + " is " + kind(v) + ", not a string");
  }

  private static String kind(UBValue v) {
    return v == null ? "an unknown marker" : "a " + v.getType();
  }
}
