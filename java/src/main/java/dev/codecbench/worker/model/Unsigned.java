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
      if (fits(p, c, "uint32", 32)) {
        return (int) p.getLongValue();
      }
      return (Integer) c.handleWeirdNumberValue(Integer.class, p.getBigIntegerValue(), "out of uint32 range");
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
      if (fits(p, c, "uint64", 64)) {
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue().longValue() : p.getLongValue();
      }
      return (Long) c.handleWeirdNumberValue(Long.class, p.getBigIntegerValue(), "out of uint64 range");
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

  /**
   * Whether the integer token (xml's text is made one when it reads as an integer) is an unsigned
   * value of {@code bits}; anything but an integer is an error. Read as a long when it is one, so
   * a decode inside a timed region allocates no BigInteger for a value below 2^63.
   */
  private static boolean fits(JsonParser p, DeserializationContext c, String type, int bits) throws IOException {
    if (!p.isExpectedNumberIntToken()) {
      c.handleUnexpectedToken(BigInteger.class, p.currentToken(), p, "a " + type + " is an integer, not %s", p.currentToken());
    }
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      BigInteger v = p.getBigIntegerValue();
      return v.signum() >= 0 && v.bitLength() <= bits;
    }
    long v = p.getLongValue();
    return v >= 0 && (bits == 64 || v >>> bits == 0);
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
