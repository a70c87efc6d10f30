package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import de.undercouch.bson4jackson.BsonFactory;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.dataset.Schema;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;

/**
 * bson: encode and typed decode through bson4jackson (Jackson over BSON) into the same Java
 * records as json; tree decode into org.mongodb:bson's BsonDocument; lazy decode with its
 * RawBsonDocument. Java int fields are written as BSON int32 and long fields as int64, as the
 * contract requires.
 *
 * <p>Validation: bson4jackson trusts embedded sizes, terminators and boolean bytes, so
 * verification runs BsonValidator's strict pass ({@link #validate}) before the first decode,
 * outside timing. Every timed decode checks only the outer size and terminator (O(1)). Lazy
 * decode validates lazily, like RawBsonDocument and Rust's RawDocument: only the elements it reads.
 */
public final class BsonCodec extends JacksonCodec {
  private static final String ID = "bson";

  private final ObjectReader genericReader;
  private final ObjectWriter genericWriter;
  private final BsonDocumentCodec documentCodec = new BsonDocumentCodec();
  private final DecoderContext decoderContext = DecoderContext.builder().build();

  public BsonCodec() {
    super(ID, JsonMapper.builder(new BsonFactory()).enable(STRICT).build());
    this.genericReader = mapper.readerFor(new TypeReference<LinkedHashMap<String, Object>>() {});
    this.genericWriter = mapper.writer();
  }

  @Override
  public void validate(byte[] payload) throws CodecException {
    checkDocumentSize(payload);
    BsonValidator.validate(payload);
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    checkDocumentSize(payload);
    try {
      return bindings.reader(dataset).readValue(payload);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  @Override
  public BsonDocument decodeTree(byte[] payload) throws CodecException {
    checkDocumentSize(payload);
    try {
      return documentCodec.decode(new BsonBinaryReader(ByteBuffer.wrap(payload)), decoderContext);
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  /** Verification: the tree written back to BSON and read by the typed path (bson4jackson). */
  @Override
  public <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    RawBsonDocument bytes;
    try {
      bytes = new RawBsonDocument((BsonDocument) tree, documentCodec);
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "tree to records", e);
    }
    ByteBuffer b = bytes.getByteBuffer().asNIO();
    byte[] copy = new byte[b.remaining()];
    b.get(copy);
    return decodeTyped(dataset, copy);
  }

  @Override
  public void decodeLazy(Dataset<?> dataset, byte[] payload, List<String> fields, FieldSink sink)
      throws CodecException {
    checkDocumentSize(payload);
    String[][] paths = new String[fields.size()][];
    int[] cells = new int[fields.size()];
    // A float field is a BSON double holding a float32: read as the float it is.
    boolean[] floats = new boolean[fields.size()];
    for (int f = 0; f < paths.length; f++) {
      paths[f] = fields.get(f).split("\\.");
      cells[f] = LazyField.cellIndex(fields.get(f));
      Schema.Field field = LazyField.field(dataset, fields.get(f));
      floats[f] = field != null && field.type() == Schema.Type.FLOAT;
    }
    try {
      BsonValue records = new RawBsonDocument(payload).get("records");
      if (records == null || !records.isArray()) {
        throw new CodecException(ID + " lazy decode: payload has no \"records\" array");
      }
      int i = 0;
      // A RawBsonArray decodes each element on iteration: records stay raw documents.
      for (BsonValue record : (BsonArray) records) {
        for (int f = 0; f < paths.length; f++) {
          BsonValue value = lazyValue(record, paths[f], cells[f]);
          if (value == null) {
            throw CodecException.missingField(ID, i, fields.get(f));
          }
          sink.accept(text(value, floats[f], i, fields.get(f)));
        }
        i++;
      }
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  /**
   * The typed path (bson4jackson, with this codec's size check and mapper settings) on any
   * document: into nested maps and lists instead of a dataset's records. The BSON corpus test
   * goes through here.
   */
  Map<String, Object> decodeGeneric(byte[] payload) throws CodecException {
    checkDocumentSize(payload);
    BsonValidator.validate(payload);
    try {
      return genericReader.readValue(payload);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  /** The typed path's writer on what {@link #decodeGeneric} returns. */
  byte[] encodeGeneric(Map<String, Object> document) throws CodecException {
    try {
      return genericWriter.writeValueAsBytes(document);
    } catch (IOException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
  }

  /**
   * The lazy path's library, made to validate everything. RawBsonDocument validates lazily: it
   * checks only the outer size when built and decodes an element when it is read, so the lazy
   * decode of a task validates the records array and the one field it reads of each record, no
   * more. This validates the whole document explicitly (BsonValidator: org.mongodb:bson itself
   * decodes invalid UTF-8 to replacement characters) and then decodes every element, recursively
   * (RawBsonDocument's own full decode, to a BsonDocument).
   */
  static BsonDocument decodeRawFully(byte[] payload) throws CodecException {
    checkDocumentSize(payload);
    BsonValidator.validate(payload);
    try {
      return new RawBsonDocument(payload).decode(new BsonDocumentCodec());
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  private static BsonValue lazyValue(BsonValue record, String[] path, int cell) {
    if (record.isDocument()) {
      // Nested values of a RawBsonDocument are raw documents too: each step scans one level.
      BsonValue v = record;
      for (String key : path) {
        if (v == null || !v.isDocument()) {
          return null;
        }
        v = v.asDocument().get(key);
      }
      return v;
    }
    if (record.isArray() && cell >= 0) {
      // Walk to the cell only: size() or get() on a raw array would scan the whole row.
      int k = 0;
      for (BsonValue v : record.asArray()) {
        if (k++ == cell) {
          return v;
        }
      }
    }
    return null;
  }

  /** A scalar as lazy reads give it (LazyField.text): bytes in base64, a float as the float32 it holds. */
  private static String text(BsonValue v, boolean asFloat, int record, String field) throws CodecException {
    return switch (v.getBsonType()) {
      case STRING -> v.asString().getValue();
      case INT32 -> Integer.toString(v.asInt32().getValue());
      case INT64 -> Long.toString(v.asInt64().getValue());
      case DOUBLE -> asFloat ? Float.toString((float) v.asDouble().getValue()) : Double.toString(v.asDouble().getValue());
      case BINARY -> java.util.Base64.getEncoder().encodeToString(v.asBinary().getData());
      case BOOLEAN -> Boolean.toString(v.asBoolean().getValue());
      default -> throw new CodecException(ID + " lazy decode: record " + record + " field '"
          + field + "' is a " + v.getBsonType() + ", not a scalar");
    };
  }

  /**
   * A BSON document starts with its own total size. Checking it against the payload first rejects
   * truncated or padded payloads before either library reads past the end.
   */
  private static void checkDocumentSize(byte[] payload) throws CodecException {
    if (payload.length < 5) {
      throw new CodecException(ID + " decode: payload of " + payload.length
          + " bytes is shorter than the smallest BSON document (5 bytes)");
    }
    int declared = (payload[0] & 0xff) | (payload[1] & 0xff) << 8 | (payload[2] & 0xff) << 16
        | (payload[3] & 0xff) << 24;
    if (declared != payload.length) {
      throw new CodecException(ID + " decode: document declares " + Integer.toUnsignedString(declared)
          + " bytes but the payload has " + payload.length);
    }
    if (payload[payload.length - 1] != 0) {
      throw new CodecException(ID + " decode: document does not end with a 0x00 terminator");
    }
  }
}
