package dev.codecbench.worker.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * google.protobuf.Timestamp in every schema-less codec (proto/README.md): its proto3 JSON string,
 * RFC 3339 in UTC with Z and 0, 3, 6 or 9 fractional digits, as protobuf's JsonFormat writes it
 * ("2026-11-27T10:00:00Z", "2026-11-27T10:00:00.120Z"); read back from any RFC 3339 form and
 * compared as seconds and nanos. The model generator puts the serializer and deserializer on the
 * Timestamp record; ubjson and lazy reads call {@link #format} and {@link #parse}.
 */
public final class Timestamps {
  /** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z: proto3 JSON's range. */
  private static final long MIN_SECONDS = -62_135_596_800L;
  private static final long MAX_SECONDS = 253_402_300_799L;

  private Timestamps() {}

  /** The proto3 JSON string of (seconds, nanos). */
  public static String format(long seconds, int nanos) {
    if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999_999_999) {
      throw new IllegalArgumentException("Timestamp (" + seconds + " s, " + nanos + " ns) is out of proto3 JSON's range");
    }
    String whole = DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
        Instant.ofEpochSecond(seconds).atOffset(ZoneOffset.UTC).toLocalDateTime());
    // ISO_LOCAL_DATE_TIME leaves out zero seconds ("10:00"): RFC 3339 needs them.
    if (whole.length() == 16) {
      whole += ":00";
    }
    if (nanos == 0) {
      return whole + "Z";
    }
    String digits = String.format("%09d", nanos);
    int n = nanos % 1_000_000 == 0 ? 3 : nanos % 1_000 == 0 ? 6 : 9;
    return whole + "." + digits.substring(0, n) + "Z";
  }

  /** (seconds, nanos) of an RFC 3339 string; IllegalArgumentException when it is not one. */
  public static long[] parse(String text) {
    try {
      Instant i = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
      if (i.getEpochSecond() < MIN_SECONDS || i.getEpochSecond() > MAX_SECONDS) {
        throw new IllegalArgumentException("'" + text + "' is out of proto3 JSON's Timestamp range");
      }
      return new long[] {i.getEpochSecond(), i.getNano()};
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("'" + text + "' is not an RFC 3339 timestamp");
    }
  }

  /** Writes a Timestamp model record (any record of components long seconds, int nanos). */
  public abstract static class Serializer<T> extends JsonSerializer<T> {
    protected abstract long seconds(T t);

    protected abstract int nanos(T t);

    @Override
    public void serialize(T t, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeString(format(seconds(t), nanos(t)));
    }
  }

  /** Reads a Timestamp model record from its string. */
  public abstract static class Deserializer<T> extends JsonDeserializer<T> {
    protected abstract T of(long seconds, int nanos);

    protected abstract Class<T> type();

    @Override
    public T deserialize(JsonParser p, DeserializationContext c) throws IOException {
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        @SuppressWarnings("unchecked")
        T t = (T) c.handleUnexpectedToken(type(), p.currentToken(), p,
            "a google.protobuf.Timestamp is its RFC 3339 string, not %s", p.currentToken());
        return t;
      }
      try {
        long[] sn = parse(p.getText());
        return of(sn[0], (int) sn[1]);
      } catch (IllegalArgumentException e) {
        @SuppressWarnings("unchecked")
        T t = (T) c.handleWeirdStringValue(type(), p.getText(), e.getMessage());
        return t;
      }
    }
  }
}
