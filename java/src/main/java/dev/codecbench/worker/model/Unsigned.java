package dev.codecbench.worker.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.KeyDeserializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import java.io.IOException;
import java.math.BigInteger;

/**
 * uint32/fixed32 and uint64/fixed64 in the schema-less codecs (proto/README.md, "The other proto3
 * features"): the model holds them in a signed int or long, as protobuf-java does, and they are
 * written as the unsigned integer they are (json 18446744073709551615, never a string; msgpack
 * and cbor natively), and read back from any integer in range. The model generator puts these on
 * the fields ({@code using}, {@code contentUsing}, {@code keyUsing}).
 */
public final class Unsigned {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private Unsigned() {}

  /** uint32: an int read as unsigned, written as a long (bson: int64, as the contract says). */
  public static final class Int32Serializer extends JsonSerializer<Integer> {
    @Override
    public void serialize(Integer v, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeNumber(Integer.toUnsignedLong(v));
    }
  }

  public static final class Int32Deserializer extends JsonDeserializer<Integer> {
    @Override
    public Integer deserialize(JsonParser p, DeserializationContext c) throws IOException {
      BigInteger v = integer(p, c, "uint32");
      if (v.signum() < 0 || v.bitLength() > 32) {
        return (Integer) c.handleWeirdNumberValue(Integer.class, v, "out of uint32 range");
      }
      return v.intValue();
    }
  }

  /** uint64: a long read as unsigned; past 2^63 - 1 written as a BigInteger (json digits, msgpack uint64). */
  public static final class Int64Serializer extends JsonSerializer<Long> {
    @Override
    public void serialize(Long v, JsonGenerator g, SerializerProvider p) throws IOException {
      if (v >= 0) {
        g.writeNumber((long) v);
      } else {
        g.writeNumber(new BigInteger(Long.toUnsignedString(v)));
      }
    }
  }

  public static final class Int64Deserializer extends JsonDeserializer<Long> {
    @Override
    public Long deserialize(JsonParser p, DeserializationContext c) throws IOException {
      BigInteger v = integer(p, c, "uint64");
      if (v.signum() < 0 || v.bitLength() > 64) {
        return (Long) c.handleWeirdNumberValue(Long.class, v, "out of uint64 range");
      }
      return v.longValue();
    }
  }

  /** A map key of uint32 or uint64: its unsigned decimal (proto3 JSON). */
  public static final class Int32KeySerializer extends JsonSerializer<Integer> {
    @Override
    public void serialize(Integer v, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeFieldName(Integer.toUnsignedString(v));
    }
  }

  public static final class Int64KeySerializer extends JsonSerializer<Long> {
    @Override
    public void serialize(Long v, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeFieldName(Long.toUnsignedString(v));
    }
  }

  public static final class Int32KeyDeserializer extends KeyDeserializer {
    @Override
    public Object deserializeKey(String key, DeserializationContext c) throws IOException {
      BigInteger v = decimal(key);
      if (v == null || v.bitLength() > 32) {
        return c.handleWeirdKey(Integer.class, key, "not a uint32 in decimal");
      }
      return v.intValue();
    }
  }

  public static final class Int64KeyDeserializer extends KeyDeserializer {
    @Override
    public Object deserializeKey(String key, DeserializationContext c) throws IOException {
      BigInteger v = decimal(key);
      if (v == null || v.bitLength() > 64) {
        return c.handleWeirdKey(Long.class, key, "not a uint64 in decimal");
      }
      return v.longValue();
    }
  }

  /** An integer token (xml's text is made one when it reads as an integer); anything else is an error. */
  private static BigInteger integer(JsonParser p, DeserializationContext c, String type) throws IOException {
    if (!p.isExpectedNumberIntToken()) {
      return (BigInteger) c.handleUnexpectedToken(BigInteger.class, p.currentToken(), p,
          "a " + type + " is an integer, not %s", p.currentToken());
    }
    return p.getBigIntegerValue();
  }

  /** Plain decimal digits (no sign), else null. */
  private static BigInteger decimal(String s) {
    if (s.isEmpty() || s.length() > 20 || !s.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
      return null;
    }
    return new BigInteger(s);
  }

  /** The unsigned value of a uint64 held in a long (for writers that need a BigInteger). */
  public static BigInteger of(long v) {
    BigInteger b = BigInteger.valueOf(v);
    return v >= 0 ? b : b.add(TWO_64);
  }
}
