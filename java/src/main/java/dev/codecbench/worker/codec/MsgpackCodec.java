package dev.codecbench.worker.codec;

import codecbench.v1.Results.TimedRegion;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.codecbench.worker.LibraryVersions;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.util.List;
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
public final class MsgpackCodec implements Codec {
  private static final String ID = "msgpack";

  private final MessagePackFactory factory;
  private final JacksonBindings bindings;
  private final ObjectMapper mapper;

  public MsgpackCodec() {
    this.factory = new MessagePackFactory();
    ObjectMapper mapper = new ObjectMapper(factory);
    mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    // Every field is required and non-null but a proto3 optional one, which may be absent: the
    // model's annotations say which (ModelGenerator). An enum is its name, never a number.
    mapper.enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
    // 1.5 into an int field is an error, not 1.
    mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    this.bindings = new JacksonBindings(ID, mapper);
    this.mapper = mapper;
  }

  @Override
  public String refusal(Dataset<?> dataset) {
    return bindings.refusal(dataset);
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String mediaType() {
    return "application/msgpack";
  }

  @Override
  public List<String> decodeModes() {
    return List.of(TYPED, TREE);
  }

  @Override
  public String library() {
    return "jackson-dataformat-msgpack";
  }

  @Override
  public String libraryVersion() {
    return LibraryVersions.get("jackson-dataformat-msgpack");
  }

  @Override
  public String notes() {
    return "jackson-dataformat-msgpack " + LibraryVersions.get("jackson-dataformat-msgpack")
        + " on jackson-databind " + LibraryVersions.get("jackson")
        + "; one shared ObjectReader/ObjectWriter per dataset into Java records; records as maps "
        + "with wire names; smallest integer forms, doubles as float64; tree = a Jackson JsonNode "
        + "tree read through the msgpack parser; no lazy mode (msgpack has no index to skip by); a "
        + "pass checking declared lengths against the payload (msgpack-core allocates them up front) "
        + "runs in verification, outside timing";
  }

  @Override
  public List<TimedRegion> timedRegions() {
    return List.of(
        Codec.region(ENCODE, "", "serialize", "copy"),
        Codec.region(TYPED, "", "parse"),
        Codec.region(TREE, "", "parse"));
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    try {
      return bindings.writer(dataset).writeValueAsBytes(records);
    } catch (IOException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    Records<R> records;
    try (JsonParser parser = factory.createParser(payload)) {
      records = bindings.reader(dataset).readValue(parser);
      rejectTrailing(parser);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    if (records == null) {
      throw new CodecException(ID + " decode: the payload is nil or empty, not {\"records\": [...]}");
    }
    return records;
  }

  @Override
  public JsonNode decodeTree(byte[] payload) throws CodecException {
    JsonNode root;
    try (JsonParser parser = factory.createParser(payload)) {
      root = mapper.readTree(parser);
      rejectTrailing(parser);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new CodecException(ID + " decode: the payload is nil or empty, not {\"records\": [...]}");
    }
    return root;
  }

  @Override
  public <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    return JacksonBindings.treeToRecords(ID, bindings.reader(dataset), (JsonNode) tree);
  }

  /**
   * FAIL_ON_TRAILING_TOKENS cannot be used: this parser reports the end of its input as an EOF
   * error rather than as no token. A whole value after the payload's value is rejected.
   */
  private static void rejectTrailing(JsonParser parser) throws IOException, CodecException {
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
