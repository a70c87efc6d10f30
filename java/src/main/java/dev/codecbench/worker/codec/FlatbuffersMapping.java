package dev.codecbench.worker.codec;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * FlatbuffersCodec's mapping, built once per dataset from the proto descriptors (a message's
 * fields in declaration order are flatc's slots 0, 1, ...; their types give the FlatBuffers types;
 * an enum is flatc's enum, its proto number) and the record components (MethodHandles for the
 * accessors and canonical constructors): one Shape per message (a table).
 */
final class FlatbuffersMapping {
  private static final String ID = "flatbuffers";

  private FlatbuffersMapping() {}

  /** The FlatBuffers type of a field (or of a vector's elements) and its inline size in bytes. */
  enum Kind {
    BOOL(1), INT(4), FLOAT(4), LONG(8), DOUBLE(8), ENUM(4), STRING(4), TABLE(4);

    final int size;

    Kind(int size) {
      this.size = size;
    }

    boolean isScalar() {
      return this != STRING && this != TABLE;
    }
  }

  /** A model type: a class, or List of an element type. */
  record Model(Class<?> raw, Model element) {
    static Model of(Class<?> c) {
      return new Model(c, null);
    }
  }

  /** One field of a table: its slot, its type and how the model record holds it. */
  static final class Field {
    final String name; // the proto JSON name (wire name; lazy paths use it)
    final int slot;
    final int voffset; // the field's entry in a vtable: 4 + 2 * slot
    final Kind kind; // of the value, or of a vector's elements
    final boolean repeated;
    final Shape table; // kind TABLE
    /** The record component's accessor, (Object) -> int/long/float/double/boolean/Object by kind. */
    final MethodHandle get;
    /** The model value when the field is absent: the proto default. */
    Object absent;
    /** This field's index among its table's offset fields (strings, vectors, tables), or -1. */
    int offsetIndex = -1;
    /**
     * A proto3 optional field: null in the model, an absent field when unset and a present one
     * when set, even at its default (FlatBuffers' optional scalar, {@code = null} in the schema).
     */
    final boolean optional;
    /** kind ENUM: the model's constants and their proto numbers. */
    final Enums enums;
    /** uint32, fixed32, uint64, fixed64: held signed (as protobuf-java does), read lazily as unsigned. */
    final boolean unsigned;

    Field(String name, int slot, Kind kind, boolean repeated, Shape table, MethodHandle get, boolean optional,
        Enums enums, boolean unsigned) {
      this.name = name;
      this.slot = slot;
      this.voffset = 4 + 2 * slot;
      this.kind = kind;
      this.repeated = repeated;
      this.table = table;
      this.get = get;
      this.optional = optional;
      this.enums = enums;
      this.unsigned = unsigned;
    }

    /** The wire number of an enum constant (flatc's enum is the proto number). */
    int number(Object constant) {
      return enums.numbers()[((Enum<?>) constant).ordinal()];
    }

    /** A scalar as read from the buffer to its model value: an enum's number to its constant. */
    Object fromWire(Object scalar) {
      if (kind != Kind.ENUM) {
        return scalar;
      }
      Object constant = enums.byNumber().get((Integer) scalar);
      if (constant == null) {
        throw new FlatbuffersBuffer.Corrupt("enum value " + scalar + " is not a value of " + enums.name());
      }
      return constant;
    }

    /** Inline size in the table: a vector, string or table is a 4-byte offset. */
    int inlineSize() {
      return repeated ? 4 : kind.size;
    }

    boolean isOffset() {
      return repeated || !kind.isScalar();
    }
  }

  /** An enum's model constants by proto number, and each constant's number by its ordinal. */
  record Enums(String name, Map<Integer, Object> byNumber, int[] numbers) {
    static Enums of(Class<?> model, EnumDescriptor proto, String where) {
      Object[] constants = model.getEnumConstants();
      Map<Integer, Object> byNumber = new HashMap<>();
      int[] numbers = new int[constants.length];
      for (Object c : constants) {
        EnumValueDescriptor v = proto.findValueByName(((Enum<?>) c).name());
        if (v == null) {
          throw new IllegalStateException("flatbuffers: " + where + ": " + c + " is not a value of "
              + proto.getFullName());
        }
        numbers[((Enum<?>) c).ordinal()] = v.getNumber();
        byNumber.putIfAbsent(v.getNumber(), c); // aliases: a number reads as its first name
      }
      return new Enums(proto.getFullName(), byNumber, numbers);
    }
  }

  /** One message: a record type, or (a matrix row) a List that is the message's one repeated field. */
  static final class Shape {
    final String name;
    Field[] fields;
    /** Field indexes in the order the builder adds them: largest first, then last field first. */
    int[] addOrder;
    int offsetFields;
    /** The canonical constructor, (Object[]) -> Object; null for a list record. */
    MethodHandle construct;
    boolean listRecord;
    /** The record every field of which is absent (the proto default message). */
    Object defaultValue;
    /** Tables below this one, itself included. */
    int depth;

    Shape(String name) {
      this.name = name;
    }
  }

  /**
   * Builds the shapes of one dataset; {@code typeVariable} is what Records' R stands for, {@code
   * wireName} a field's name in lazy paths (the dataset's field names).
   */
  static final class Builder {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private final Model typeVariable;
    private final Function<FieldDescriptor, String> wireName;
    private final Set<String> inProgress = new HashSet<>();

    Builder(Model typeVariable, Function<FieldDescriptor, String> wireName) {
      this.typeVariable = typeVariable;
      this.wireName = wireName;
    }

    Shape shape(Descriptor message, Model model) {
      if (!inProgress.add(message.getFullName())) {
        throw new IllegalStateException("flatbuffers: message " + message.getFullName()
            + " contains itself; the mapper has no recursive tables");
      }
      Shape s = new Shape(message.getName());
      List<FieldDescriptor> fds = message.getFields();
      if (model.raw() == List.class) {
        if (fds.size() != 1 || !fds.get(0).isRepeated()) {
          throw new IllegalStateException("flatbuffers: " + message.getName() + " is modelled as a List, so it must "
              + "be one repeated field");
        }
        s.listRecord = true;
        s.fields = new Field[] {field(message, fds.get(0), model, null)};
      } else {
        RecordComponent[] comps = ProtoRecords.components("flatbuffers", model.raw(), message);
        s.fields = new Field[fds.size()];
        Class<?>[] types = new Class<?>[comps.length];
        for (int i = 0; i < comps.length; i++) {
          FieldDescriptor fd = fds.get(i);
          s.fields[i] = field(message, fd, modelOf(comps[i].getGenericType()), comps[i]);
          types[i] = comps[i].getType();
        }
        try {
          Constructor<?> c = model.raw().getDeclaredConstructor(types);
          s.construct = LOOKUP.unreflectConstructor(c)
              .asType(MethodType.methodType(Object.class, types))
              .asSpreader(Object[].class, types.length);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("flatbuffers: no canonical constructor of " + model.raw().getName(), e);
        }
      }
      int depth = 0;
      int offsets = 0;
      for (Field f : s.fields) {
        if (f.table != null) {
          depth = Math.max(depth, f.table.depth);
        }
        if (f.isOffset()) {
          f.offsetIndex = offsets++;
        }
      }
      s.depth = depth + 1;
      s.offsetFields = offsets;
      // flatc's create* functions add 8-byte fields, then 4-, 2- and 1-byte ones, each size from the
      // last field back: the fewest padding bytes.
      s.addOrder = java.util.stream.IntStream.range(0, s.fields.length).boxed()
          .sorted(Comparator.<Integer>comparingInt(i -> -s.fields[i].inlineSize()).thenComparing(i -> -i))
          .mapToInt(Integer::intValue).toArray();
      for (Field f : s.fields) {
        f.absent = absentValue(f);
      }
      s.defaultValue = s.listRecord ? List.of() : construct(s, Arrays.stream(s.fields).map(f -> f.absent).toArray());
      inProgress.remove(message.getFullName());
      return s;
    }

    private Field field(Descriptor message, FieldDescriptor fd, Model model, RecordComponent comp) {
      String where = message.getName() + "." + fd.getName();
      if (fd.isMapField() || fd.getRealContainingOneof() != null) {
        throw new IllegalStateException(Offered.reason(ID, fd.isMapField() ? "map" : "oneof", fd));
      }
      Model value = model;
      if (fd.isRepeated()) {
        if (model.raw() != List.class || model.element() == null) {
          throw new IllegalStateException("flatbuffers: " + where + " is repeated; its model is not a List");
        }
        value = model.element();
      }
      boolean optional = fd.toProto().getProto3Optional();
      Kind kind = switch (fd.getType()) {
        case ENUM -> Kind.ENUM;
        case BOOL -> Kind.BOOL;
        case INT32, SINT32, SFIXED32, UINT32, FIXED32 -> Kind.INT;
        case INT64, SINT64, SFIXED64, UINT64, FIXED64 -> Kind.LONG;
        case FLOAT -> Kind.FLOAT;
        case DOUBLE -> Kind.DOUBLE;
        case STRING -> Kind.STRING;
        case MESSAGE -> Kind.TABLE;
        default -> throw new IllegalStateException(Offered.reason(ID, fd.getType().name().toLowerCase(Locale.ROOT), fd));
      };
      boolean boxed = fd.isRepeated() || optional;
      Class<?> want = switch (kind) {
        case BOOL -> boxed ? Boolean.class : boolean.class;
        case INT -> boxed ? Integer.class : int.class;
        case LONG -> boxed ? Long.class : long.class;
        case FLOAT -> boxed ? Float.class : float.class;
        case DOUBLE -> boxed ? Double.class : double.class;
        case STRING -> String.class;
        case TABLE, ENUM -> value.raw();
      };
      if (kind == Kind.ENUM && !want.isEnum()) {
        throw new IllegalStateException("flatbuffers: " + where + " is an enum; its model is " + want.getName());
      }
      if (kind != Kind.TABLE && value.raw() != want) {
        throw new IllegalStateException("flatbuffers: " + where + " is " + fd.getType() + "; its model is "
            + value.raw().getName() + ", not " + want.getName());
      }
      Shape table = kind == Kind.TABLE ? shape(fd.getMessageType(), value) : null;
      MethodHandle get = null;
      if (comp != null) {
        Class<?> result = boxed || !kind.isScalar() || kind == Kind.ENUM ? Object.class : comp.getType();
        try {
          get = LOOKUP.unreflect(comp.getAccessor()).asType(MethodType.methodType(result, Object.class));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("flatbuffers: cannot read " + comp, e);
        }
      }
      Enums enums = kind == Kind.ENUM ? Enums.of(want, fd.getEnumType(), where) : null;
      boolean unsigned = switch (fd.getType()) {
        case UINT32, FIXED32, UINT64, FIXED64 -> true;
        default -> false;
      };
      return new Field(wireName.apply(fd), fd.getIndex(), kind, fd.isRepeated(), table, get, optional, enums, unsigned);
    }

    private Model modelOf(Type t) {
      if (t instanceof Class<?> c) {
        return Model.of(c);
      }
      if (t instanceof ParameterizedType p && p.getRawType() == List.class) {
        return new Model(List.class, modelOf(p.getActualTypeArguments()[0]));
      }
      if (t instanceof TypeVariable<?>) {
        return typeVariable; // Records<R>.records: R is the dataset's record
      }
      throw new IllegalStateException("flatbuffers: no mapping for model type " + t);
    }

    private static Object absentValue(Field f) {
      if (f.repeated) {
        return List.of();
      }
      if (f.optional) {
        return null;
      }
      return switch (f.kind) {
        case BOOL -> false;
        case INT -> 0;
        case LONG -> 0L;
        case FLOAT -> 0f;
        case DOUBLE -> 0d;
        case STRING -> "";
        case TABLE -> f.table.defaultValue;
        case ENUM -> f.fromWire(0);
      };
    }
  }

  static Object construct(Shape s, Object[] args) {
    try {
      return (Object) s.construct.invokeExact(args);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
