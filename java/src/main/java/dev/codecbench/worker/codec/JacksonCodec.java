package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;

/**
 * The codecs on Jackson's ObjectMapper family (json, bson, msgpack, cbor): one mapper configured
 * for the format, one pre-built reader and writer per dataset ({@link JacksonBindings}), and the
 * same encode, typed and tree decodes, so an implementation's file holds only its mapper and what
 * its format adds (a validation pass, its own tree or a lazy or streaming mode). What each decode
 * does is the format's parser reading one value into the model records (or a JsonNode tree) and
 * then one token more, to reject data after the value.
 */
abstract class JacksonCodec implements Codec {
  /**
   * The read rules every Jackson codec enables: every field is required and non-null but a proto3
   * optional one, which may be absent (the model's annotations say which: ModelGenerator), and an
   * enum is its name, never a number.
   */
  static final DeserializationFeature[] STRICT = {
    DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS
  };

  private final String id;
  final ObjectMapper mapper;
  final JacksonBindings bindings;
  private final JsonFactory factory;

  JacksonCodec(String id, ObjectMapper mapper) {
    this.id = id;
    this.mapper = mapper;
    this.factory = mapper.getFactory();
    this.bindings = new JacksonBindings(id, mapper);
  }

  @Override
  public final String id() {
    return id;
  }

  @Override
  public String refusal(Dataset<?> dataset) {
    return bindings.refusal(dataset);
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    try {
      return bindings.writer(dataset).writeValueAsBytes(records);
    } catch (IOException e) {
      throw CodecException.wrap(id, "encode", e);
    }
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    Records<R> records;
    try (JsonParser parser = factory.createParser(payload)) {
      records = bindings.reader(dataset).readValue(parser);
      rejectTrailing(parser);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(id, "decode", e);
    }
    if (records == null) {
      throw noValue();
    }
    return records;
  }

  @Override
  public Object decodeTree(byte[] payload) throws CodecException {
    JsonNode root;
    try (JsonParser parser = factory.createParser(payload)) {
      root = mapper.readTree(parser);
      rejectTrailing(parser);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(id, "decode", e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw noValue();
    }
    return root;
  }

  @Override
  public <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    return JacksonBindings.treeToRecords(id, bindings.reader(dataset), (JsonNode) tree);
  }

  /** A payload that is the format's null, or nothing (Jackson reads both as no value). */
  CodecException noValue() {
    return new CodecException(id + " decode: the payload is " + nullName() + " or empty, not {\"records\": [...]}");
  }

  /** The format's word for null, for messages. */
  String nullName() {
    return "null";
  }

  /** readValue/readTree stop after one value; anything after it is an error, not ignored. */
  void rejectTrailing(JsonParser parser) throws IOException, CodecException {
    JsonToken trailing = parser.nextToken();
    if (trailing != null) {
      throw new CodecException(id + " decode: data after the payload's value (" + trailing + ")");
    }
  }
}
