package dev.codecbench.worker.codec;

import com.devsmart.ubjson.UBArray;
import com.devsmart.ubjson.UBObject;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBValueFactory;
import dev.codecbench.worker.codec.UbjsonMapping.ShapeException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

/**
 * The values UbjsonMapping builds once per dataset: how one field, list, message, enum or scalar
 * of the model is written to the library's value tree and read from it, strictly (errors name the
 * field).
 */
@SuppressWarnings("rawtypes")
final class UbjsonValues {
  private UbjsonValues() {}

  /** How one value (a field's, a list element's, a record) is written and read. */
  abstract static class Value {
    abstract UBValue write(Object v) throws Throwable;

    /**
     * Reads {@code v}; errors name it {@code what}, or {@code what[index]} for a list element
     * (the name is made only when there is an error).
     */
    abstract Object read(UBValue v, String what, int index);
  }

  /** One field of a message: its wire key, how errors name it, and the record's accessor. */
  static final class Field {
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

    /** A proto3 optional field: null in the model, left out when unset, absent when read. */
    final boolean optional;

    Field(String key, Value value, String name, MethodHandle accessor, boolean optional) {
      this.key = key;
      this.value = value;
      this.name = name;
      this.optional = optional;
      Class<?> type = accessor.type().returnType();
      // A uint32 held in an int is written unsigned by its Scalar: read boxed.
      boolean unsigned = value instanceof Scalar s && s.kind == Scalar.Kind.UINT32;
      this.primitive = unsigned ? OBJECT : type == int.class ? INT : type == long.class ? LONG : type == double.class ? DOUBLE
          : type == boolean.class ? BOOLEAN : OBJECT;
      this.get = accessor.asType(MethodType.methodType(primitive == OBJECT ? Object.class : type, Object.class));
    }

    /** The field's value, or null for an unset optional field (written as no key at all). */
    UBValue write(Object record) throws Throwable {
      return switch (primitive) {
        case INT -> UBValueFactory.createInt((int) get.invokeExact(record));
        case LONG -> UBValueFactory.createInt((long) get.invokeExact(record));
        case DOUBLE -> UBValueFactory.createFloat64((double) get.invokeExact(record));
        case BOOLEAN -> UBValueFactory.createBool((boolean) get.invokeExact(record));
        default -> {
          Object v = (Object) get.invokeExact(record);
          yield v == null && optional ? null : value.write(v);
        }
      };
    }

    Object read(UBObject o) {
      UBValue v = o.get(key);
      if (v == null) {
        if (optional) {
          return null;
        }
        throw new ShapeException("no field '" + key + "'");
      }
      return value.read(v, name, -1);
    }
  }

  /** A message: a record written as an object of its fields, read through its canonical constructor. */
  static final class MessageValue extends Value {
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
        UBValue v = f.write(record);
        if (v != null) {
          o.put(f.key, v);
        }
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
  static final class ListValue extends Value {
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
  static final class Scalar extends Value {
    enum Kind {
      STRING(String.class, String.class),
      BOOL(boolean.class, Boolean.class),
      INT32(int.class, Integer.class),
      INT64(long.class, Long.class),
      DOUBLE(double.class, Double.class),
      /** uint32/fixed32: held in an int as protobuf-java does, written and read as the unsigned value. */
      UINT32(int.class, Integer.class),
      /** float: written float32 (d), read from any number and rounded to float32. */
      FLOAT(float.class, Float.class);

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
        case UINT32 -> UBValueFactory.createInt(Integer.toUnsignedLong((Integer) v));
        case FLOAT -> UBValueFactory.createFloat32((Float) v);
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
        case UINT32 -> {
          long l = integer(v, what, index);
          if (l < 0 || l > 0xffff_ffffL) {
            throw new ShapeException(name(what, index) + " is " + l + ", out of uint32 range");
          }
          yield (int) l;
        }
        case FLOAT -> (float) (v != null && v.getType() == UBValue.Type.Float32 ? v.asFloat32() : number(v, what, index));
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

  /** An enum: its value name as a string (proto/README.md), read back by name. */
  static final class EnumValue extends Value {
    final Class<? extends Enum> type;

    EnumValue(Class<? extends Enum> type) {
      this.type = type;
    }

    @Override
    UBValue write(Object v) {
      return UBValueFactory.createString(((Enum<?>) v).name());
    }

    @Override
    @SuppressWarnings("unchecked")
    Object read(UBValue v, String what, int index) {
      String text = text(v, what, index);
      try {
        return Enum.valueOf(type, text);
      } catch (IllegalArgumentException e) {
        throw new ShapeException(name(what, index) + " is '" + text + "', not a value of " + type.getSimpleName());
      }
    }
  }

  // ---- strict accessors -----------------------------------------------------------------------

  static String name(String what, int index) {
    return index < 0 ? what : what + "[" + index + "]";
  }

  static UBObject object(UBValue v, String what, int index) {
    if (v == null || !v.isObject()) {
      throw new ShapeException(name(what, index) + " is " + kind(v) + ", not an object");
    }
    return v.asObject();
  }

  /** A string; Draft 12's char (C) is a one-character string. */
  static String text(UBValue v, String what, int index) {
    if (v != null && v.isString()) {
      return v.asString();
    }
    if (v != null && v.isChar()) {
      return String.valueOf(v.asChar());
    }
    throw new ShapeException(name(what, index) + " is " + kind(v) + ", not a string");
  }

  static String kind(UBValue v) {
    return v == null ? "an unknown marker" : "a " + v.getType();
  }
}
