package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * msgpack: jackson-dataformat-msgpack (Jackson over msgpack-core) into the same Java records as
 * json and bson, one pre-built reader and writer per dataset. Records are maps keyed by the wire
 * names, matrix rows arrays of strings. Integers are written in the smallest msgpack form that
 * holds them, doubles as float64; reading accepts every integer width, and an integer where a
 * double is expected (JavaScript encoders write whole-number doubles as integers).
 */
public final class MsgpackCodec extends JacksonCodec {
  private static final String ID = "msgpack";

  public MsgpackCodec() {
    super(ID, JsonMapper.builder(new MessagePackFactory())
        .enable(STRICT)
        // 1.5 into an int field is an error, not 1.
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .build());
  }

  @Override
  String nullName() {
    return "nil";
  }

  /**
   * FAIL_ON_TRAILING_TOKENS cannot be used: this parser reports the end of its input as an EOF
   * error rather than as no token. A whole value after the payload's value is rejected.
   */
  @Override
  void rejectTrailing(JsonParser parser) throws IOException, CodecException {
    JsonToken trailing;
    try {
      trailing = parser.nextToken();
    } catch (JsonEOFException end) {
      trailing = null;
    }
    if (trailing != null) {
      throw new CodecException(ID + " decode: data after the payload's value (" + trailing + ")");
    }
  }

  /**
   * Not timed (verification runs it before the first decode, as for bson): msgpack-core's reader
   * allocates a string's, binary's or extension's declared length before reading it (fuzzing: a
   * 5-byte payload, bin32 of 0x781eb71d bytes, made it allocate 2 GB; 2^31-1 ran out of memory),
   * so every declared string, binary and extension length, and every array and map count (at
   * least one byte per element), must fit in the bytes left. A walk of msgpack-core's own
   * unpacker, which reads headers and skips payloads without copying them.
   */
  @Override
  public void validate(byte[] payload) throws CodecException {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(payload)) {
      // Every value to the end, flat (a container's elements are the values after its header):
      // the typed and tree decodes read one value past the payload's to reject trailing data.
      while (u.hasNext()) {
        MessageFormat format = u.getNextFormat();
        switch (format.getValueType()) {
          case STRING -> skip(u, u.unpackRawStringHeader(), payload.length, "string");
          case BINARY -> skip(u, u.unpackBinaryHeader(), payload.length, "binary");
          case EXTENSION -> skip(u, u.unpackExtensionTypeHeader().getLength(), payload.length, "extension");
          case ARRAY -> fits(u.unpackArrayHeader(), 1, u, payload.length, "array");
          case MAP -> fits(u.unpackMapHeader(), 2, u, payload.length, "map");
          default -> u.skipValue();
        }
      }
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  /** {@code n} entries of {@code values} values each, at least one byte per value. */
  private static void fits(int n, int values, MessageUnpacker u, int size, String what) throws CodecException {
    long left = size - u.getTotalReadBytes();
    if (n < 0 || (long) n * values > left) {
      throw new CodecException(ID + " decode: " + what + " of " + Integer.toUnsignedString(n)
          + " entries at byte " + u.getTotalReadBytes() + " cannot fit in the " + left + " bytes left");
    }
  }

  private static void skip(MessageUnpacker u, int n, int size, String what) throws IOException, CodecException {
    long left = size - u.getTotalReadBytes();
    if (n < 0 || n > left) {
      throw new CodecException(ID + " decode: " + what + " of " + Integer.toUnsignedString(n) + " bytes at byte "
          + u.getTotalReadBytes() + " runs past the " + left + " bytes left");
    }
    u.readPayloadAsReference(n);
  }
}
