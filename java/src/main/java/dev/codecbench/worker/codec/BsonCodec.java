package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import de.undercouch.bson4jackson.BsonFactory;
import dev.codecbench.worker.LibraryVersions;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * bson: encode and typed decode through bson4jackson (Jackson over BSON) into the same Java
 * records as json; lazy decode with org.mongodb:bson's RawBsonDocument. Java int fields are
 * written as BSON int32 and long fields as int64, as the contract requires.
 *
 * <p>Validation: bson4jackson trusts embedded sizes, terminators and boolean bytes, so typed
 * decode runs BsonValidator's strict pass over the payload first (inside the timed region). Lazy
 * decode validates lazily, like RawBsonDocument and Rust's RawDocument: the outer size and
 * terminator, then only the elements it reads (the records array and one field per record).
 */
public final class BsonCodec implements Codec {
  private static final String ID = "bson";

  private final JacksonBindings bindings;
  private final ObjectReader genericReader;
  private final ObjectWriter genericWriter;

  public BsonCodec() {
    ObjectMapper mapper = new ObjectMapper(new BsonFactory());
    mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    mapper.enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);
    mapper.enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES);
    this.genericReader = mapper.readerFor(new TypeReference<LinkedHashMap<String, Object>>() {});
    this.genericWriter = mapper.writer();
    this.bindings = new JacksonBindings(mapper);
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String mediaType() {
    return "application/bson";
  }

  @Override
  public List<String> decodeModes() {
    return List.of(TYPED, LAZY);
  }

  @Override
  public String library() {
    return "bson4jackson";
  }

  @Override
  public String libraryVersion() {
    return LibraryVersions.get("bson4jackson");
  }

  @Override
  public String notes() {
    return "encode and typed decode: bson4jackson " + LibraryVersions.get("bson4jackson")
        + " on jackson-databind " + LibraryVersions.get("jackson")
        + "; lazy decode: org.mongodb:bson " + LibraryVersions.get("mongodb-bson")
        + " RawBsonDocument; lazy shares the typed (bson4jackson) encoder; typed decode includes a "
        + "strict validation pass (bson4jackson does not check embedded sizes, terminators, booleans or "
        + "UTF-8); lazy validates only what it reads";
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
    checkDocumentSize(payload);
    BsonValidator.validate(payload);
    try {
      return bindings.reader(dataset).readValue(payload);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  @Override
  public List<String> decodeLazy(byte[] payload, String field) throws CodecException {
    checkDocumentSize(payload);
    try {
      BsonValue records = new RawBsonDocument(payload).get("records");
      if (records == null || !records.isArray()) {
        throw new CodecException(ID + " lazy decode: payload has no \"records\" array");
      }
      int cell = LazyField.cellIndex(field);
      List<String> out = new ArrayList<>();
      int i = 0;
      // A RawBsonArray decodes each element on iteration: records stay raw documents.
      for (BsonValue record : (BsonArray) records) {
        BsonValue value = lazyValue(record, field, cell);
        if (value == null) {
          throw CodecException.missingField(ID, i, field);
        }
        out.add(text(value, i, field));
        i++;
      }
      return out;
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

  private static BsonValue lazyValue(BsonValue record, String field, int cell) {
    if (record.isDocument()) {
      return record.asDocument().get(field);
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

  private static String text(BsonValue v, int record, String field) throws CodecException {
    return switch (v.getBsonType()) {
      case STRING -> v.asString().getValue();
      case INT32 -> Integer.toString(v.asInt32().getValue());
      case INT64 -> Long.toString(v.asInt64().getValue());
      case DOUBLE -> Double.toString(v.asDouble().getValue());
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
