package dev.codecbench.worker.codec;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.databind.util.Converter;
import dev.codecbench.worker.model.Unsigned;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * xml's form of a map field (proto/README.md): one element per entry, named by the field and
 * unwrapped like a repeated message, holding {@code <key>} (the key as a string: integers in
 * decimal, bools true/false) and {@code <value>} (by its type's rule). The model's Map is turned
 * into a list of {@link Entry} on the way out and back on the way in (XmlMapping's introspector
 * puts these converters on every Map component).
 */
final class XmlMapEntries {
  private XmlMapEntries() {}

  @JsonPropertyOrder({"key", "value"})
  record Entry<V>(String key, V value) {}

  static boolean isMap(AnnotatedMember m) {
    return m.getType() != null && m.getType().isMapLikeType();
  }

  /** The key's class and whether it is unsigned (the model generator's keyUsing says so). */
  private static boolean unsignedKey(AnnotatedMember m) {
    JsonSerialize s = m.getAnnotation(JsonSerialize.class);
    return s != null && (s.keyUsing() == Unsigned.Int32KeySerializer.class
        || s.keyUsing() == Unsigned.Int64KeySerializer.class);
  }

  /** A map's values unsigned (contentUsing): xml has no form for them yet (see XmlCodec). */
  static boolean unsignedValues(AnnotatedMember m) {
    JsonSerialize s = m.getAnnotation(JsonSerialize.class);
    return s != null && s.contentUsing() != com.fasterxml.jackson.databind.JsonSerializer.None.class;
  }

  /** A map key as a string (proto3 JSON): integers in decimal (unsigned ones unsigned), bools true/false. */
  static String keyText(Object k, boolean unsigned) {
    if (unsigned && k instanceof Integer i) {
      return Integer.toUnsignedString(i);
    }
    if (unsigned && k instanceof Long l) {
      return Long.toUnsignedString(l);
    }
    return String.valueOf(k);
  }

  /** A key's string as the model's key type {@code k}; IllegalArgumentException when it is not one. */
  static Object parseKey(Class<?> k, boolean unsigned, String s) {
    if (k == String.class) {
      return s;
    }
    if (k == Boolean.class) {
      if (!s.equals("true") && !s.equals("false")) {
        throw new IllegalArgumentException("map key '" + s + "' is not true or false");
      }
      return Boolean.valueOf(s);
    }
    if (!s.matches(unsigned ? "[0-9]{1,20}" : "-?[0-9]{1,20}")) {
      throw new IllegalArgumentException("map key '" + s + "' is not an integer in decimal");
    }
    BigInteger v = new BigInteger(s);
    int bits = k == Integer.class ? 32 : 64;
    if (unsigned ? v.bitLength() > bits : v.bitLength() > bits - 1) {
      throw new IllegalArgumentException("map key '" + s + "' is out of range");
    }
    return k == Integer.class ? (Object) v.intValue() : (Object) v.longValue();
  }

  static Converter<?, ?> writer(AnnotatedMember m) {
    return new ToEntries(m.getType(), unsignedKey(m));
  }

  static Converter<?, ?> reader(AnnotatedMember m) {
    return new FromEntries(m.getType(), unsignedKey(m));
  }

  private static JavaType entries(TypeFactory types, JavaType map) {
    return types.constructCollectionType(List.class,
        types.constructParametricType(Entry.class, map.getContentType()));
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class ToEntries implements Converter<Object, Object> {
    private final JavaType map;
    private final boolean unsigned;

    ToEntries(JavaType map, boolean unsigned) {
      this.map = map;
      this.unsigned = unsigned;
    }

    @Override
    public Object convert(Object value) {
      List<Entry> out = new ArrayList<>();
      ((Map<Object, Object>) value).forEach((k, v) -> out.add(new Entry(key(k), v)));
      return out;
    }

    private String key(Object k) {
      return keyText(k, unsigned);
    }

    @Override
    public JavaType getInputType(TypeFactory types) {
      return map;
    }

    @Override
    public JavaType getOutputType(TypeFactory types) {
      return entries(types, map);
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class FromEntries implements Converter<Object, Object> {
    private final JavaType map;
    private final boolean unsigned;

    FromEntries(JavaType map, boolean unsigned) {
      this.map = map;
      this.unsigned = unsigned;
    }

    @Override
    public Object convert(Object value) {
      Map<Object, Object> out = new LinkedHashMap<>();
      for (Entry e : (List<Entry>) value) {
        if (e == null || e.key() == null || e.value() == null) {
          throw new IllegalArgumentException("a map entry needs a <key> and a <value>");
        }
        if (out.put(key(e.key()), e.value()) != null) {
          throw new IllegalArgumentException("map key '" + e.key() + "' appears twice");
        }
      }
      return out;
    }

    private Object key(String s) {
      return parseKey(map.getKeyType().getRawClass(), unsigned, s);
    }

    @Override
    public JavaType getInputType(TypeFactory types) {
      return entries(types, map);
    }

    @Override
    public JavaType getOutputType(TypeFactory types) {
      return map;
    }
  }
}
