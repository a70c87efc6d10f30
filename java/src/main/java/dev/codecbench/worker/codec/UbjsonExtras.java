package dev.codecbench.worker.codec;

import static dev.codecbench.worker.codec.UbjsonValues.kind;
import static dev.codecbench.worker.codec.UbjsonValues.name;
import static dev.codecbench.worker.codec.UbjsonValues.object;
import static dev.codecbench.worker.codec.UbjsonValues.text;

import com.devsmart.ubjson.UBArray;
import com.devsmart.ubjson.UBObject;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBValueFactory;
import com.devsmart.ubjson.UBWriter;
import dev.codecbench.worker.codec.UbjsonMapping.ShapeException;
import dev.codecbench.worker.codec.UbjsonValues.Value;
import dev.codecbench.worker.model.Timestamps;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * ubjson's forms of the proto3 features beyond the built-ins' (proto/README.md, "The other proto3
 * features"): bytes as an optimized array of uint8 ({@code [$U#<length><bytes>}, which the
 * library has no value for: {@link Writer} writes it), google.protobuf.Timestamp as its RFC 3339
 * string, a map as an object keyed by the key's string.
 */
final class UbjsonExtras {
  private UbjsonExtras() {}

  /** A bytes value, written by {@link Writer} as {@code [$U#n} and its bytes. */
  static final class Bytes extends UBValue {
    private static final long serialVersionUID = 1L;
    final byte[] data;

    Bytes(byte[] data) {
      this.data = data;
    }

    @Override
    public Type getType() {
      return Type.Array;
    }
  }

  /** UBWriter with bytes values ({@link Bytes}); everything else as the library writes it. */
  static final class Writer extends UBWriter {
    private final OutputStream out;

    Writer(OutputStream out) {
      super(out);
      this.out = out;
    }

    @Override
    public void write(UBValue v) throws IOException {
      if (v instanceof Bytes b) {
        out.write(new byte[] {'[', '$', 'U', '#'});
        writeInt(b.data.length);
        out.write(b.data);
      } else {
        super.write(v);
      }
    }
  }

  /** bytes: written {@code [$U#}; read from any array of integers 0..255. */
  static final class BytesValue extends Value {
    @Override
    UBValue write(Object v) {
      return new Bytes((byte[]) v);
    }

    @Override
    Object read(UBValue v, String what, int index) {
      if (v == null || !v.isArray()) {
        throw new ShapeException(name(what, index) + " is " + kind(v) + ", not an array of uint8 (bytes)");
      }
      UBArray a = v.asArray();
      byte[] out = new byte[a.size()];
      for (int i = 0; i < out.length; i++) {
        UBValue e = a.get(i);
        long b = e != null && e.isInteger() ? e.asLong() : -1;
        if (b < 0 || b > 255) {
          throw new ShapeException(name(what, index) + " byte " + i + " is not an integer 0..255");
        }
        out[i] = (byte) b;
      }
      return out;
    }
  }

  /** google.protobuf.Timestamp: its RFC 3339 string; the model's record is built from seconds and nanos. */
  static final class TimestampValue extends Value {
    private final MethodHandle seconds;
    private final MethodHandle nanos;
    private final MethodHandle construct;

    /** Handles of the model record: (Object) -> long, (Object) -> int, (long, int) -> Object. */
    TimestampValue(MethodHandle seconds, MethodHandle nanos, MethodHandle construct) {
      this.seconds = seconds;
      this.nanos = nanos;
      this.construct = construct;
    }

    @Override
    UBValue write(Object v) throws Throwable {
      return UBValueFactory.createString(Timestamps.format((long) seconds.invokeExact(v), (int) nanos.invokeExact(v)));
    }

    @Override
    Object read(UBValue v, String what, int index) {
      String s = text(v, what, index);
      long[] sn;
      try {
        sn = Timestamps.parse(s);
      } catch (IllegalArgumentException e) {
        throw new ShapeException(name(what, index) + ": " + e.getMessage());
      }
      try {
        return (Object) construct.invokeExact(sn[0], (int) sn[1]);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  }

  /** A map: an object keyed by the key's string (integers in decimal, bools true/false), values by their rule. */
  static final class MapValue extends Value {
    private final Class<?> keyType;
    private final boolean unsignedKey;
    private final Value value;

    MapValue(Class<?> keyType, boolean unsignedKey, Value value) {
      this.keyType = keyType;
      this.unsignedKey = unsignedKey;
      this.value = value;
    }

    @Override
    UBValue write(Object v) throws Throwable {
      UBObject o = UBValueFactory.createObject();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        o.put(XmlMapEntries.keyText(e.getKey(), unsignedKey), value.write(e.getValue()));
      }
      return o;
    }

    @Override
    Object read(UBValue v, String what, int index) {
      UBObject o = object(v, what, index);
      Map<Object, Object> out = new LinkedHashMap<>();
      for (Map.Entry<String, UBValue> e : o.entrySet()) {
        Object key;
        try {
          key = XmlMapEntries.parseKey(keyType, unsignedKey, e.getKey());
        } catch (IllegalArgumentException x) {
          throw new ShapeException(name(what, index) + ": " + x.getMessage());
        }
        out.put(key, value.read(e.getValue(), what + "[" + e.getKey() + "]", -1));
      }
      return out;
    }
  }
}
