package dev.codecbench.worker.codec;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.google.gson.Gson;
import com.google.gson.TypeAdapter;
import com.google.gson.TypeAdapterFactory;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import dev.codecbench.worker.model.Timestamps;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Base64;

/**
 * What the model records say to Jackson in its annotations (dev.codecbench.worker.modelgen),
 * said to Gson in its own words, once per type: a field's wire name, bytes as base64, and
 * google.protobuf.Timestamp as its RFC 3339 string (proto/README.md "The other proto3 features").
 */
final class GsonAdapters {
  private GsonAdapters() {}

  /**
   * A field's wire name (Gson's FieldNamingStrategy): its {@code @JsonProperty} value, which is
   * the descriptors' JSON name (or the proto name for a user dataset asking for those); a record
   * component's annotation is also on its field.
   */
  static String wireName(Field f) {
    JsonProperty p = f.getAnnotation(JsonProperty.class);
    return p == null || p.value().isEmpty() ? f.getName() : p.value();
  }

  /** A Jackson JavaType as the java.lang.reflect.Type Gson takes (Records<OwnerRecord>, List<String>). */
  static Type typeOf(JavaType t) {
    if (t.containedTypeCount() == 0) {
      return t.getRawClass();
    }
    Type[] args = new Type[t.containedTypeCount()];
    for (int i = 0; i < args.length; i++) {
      args[i] = typeOf(t.containedType(i));
    }
    return TypeToken.getParameterized(t.getRawClass(), args).getType();
  }

  /** bytes: standard base64 with padding (RFC 4648 §4, as proto3 JSON). */
  static final class Base64Adapter extends TypeAdapter<byte[]> {
    @Override
    public void write(JsonWriter out, byte[] value) throws IOException {
      out.value(Base64.getEncoder().encodeToString(value));
    }

    @Override
    public byte[] read(JsonReader in) throws IOException {
      String text = in.nextString();
      try {
        return Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        throw new IOException("bytes are standard base64, not '" + text + "' (" + e.getMessage() + ")", e);
      }
    }
  }

  /**
   * google.protobuf.Timestamp's model record (the one whose Jackson serializer is a
   * Timestamps.Serializer, as the model generator writes it) as its RFC 3339 string.
   */
  static final class TimestampFactory implements TypeAdapterFactory {
    @Override
    @SuppressWarnings("unchecked")
    public <T> TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
      Class<? super T> raw = type.getRawType();
      JsonSerialize ser = raw.getAnnotation(JsonSerialize.class);
      if (ser == null || !Timestamps.Serializer.class.isAssignableFrom(ser.using()) || !raw.isRecord()) {
        return null;
      }
      try {
        Method seconds = raw.getMethod("seconds");
        Method nanos = raw.getMethod("nanos");
        Constructor<? super T> of = raw.getDeclaredConstructor(long.class, int.class);
        return (TypeAdapter<T>) new TypeAdapter<Object>() {
          @Override
          public void write(JsonWriter out, Object t) throws IOException {
            try {
              out.value(Timestamps.format((long) seconds.invoke(t), (int) nanos.invoke(t)));
            } catch (ReflectiveOperationException e) {
              throw new IllegalStateException(e);
            }
          }

          @Override
          public Object read(JsonReader in) throws IOException {
            String text = in.nextString();
            long[] sn;
            try {
              sn = Timestamps.parse(text);
            } catch (IllegalArgumentException e) {
              throw new IOException("a google.protobuf.Timestamp: " + e.getMessage(), e);
            }
            try {
              return of.newInstance(sn[0], (int) sn[1]);
            } catch (ReflectiveOperationException e) {
              throw new IllegalStateException(e);
            }
          }
        }.nullSafe();
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(raw + " is not a Timestamp record (long seconds, int nanos)", e);
      }
    }
  }
}
