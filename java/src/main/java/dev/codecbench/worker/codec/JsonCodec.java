package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Consumer;

/**
 * json: Jackson databind into the model records (typed) or a JsonNode tree (tree). {@code
 * streaming}: Jackson's streaming JsonGenerator onto the caller's stream, each record written by
 * the record type's ObjectWriter; a JsonParser over the caller's stream walked to the records
 * array, then a MappingIterator reading one record at a time.
 */
public final class JsonCodec extends JacksonCodec {
  private static final String ID = "json";
  private static final String RECORDS = "records";

  private final ObjectReader treeReader;
  /** Per dataset: one record's reader and writer, for the streaming mode. */
  private final PerDataset<ObjectReader> recordReaders;
  private final PerDataset<ObjectWriter> recordWriters;

  public JsonCodec() {
    super(ID, JsonMapper.builder()
        // Shortest round-trip form for doubles (JDK 17's Double.toString is not always shortest).
        .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
        .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
        // Strict reading: a payload is exactly one value.
        .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(STRICT)
        // Streaming: the caller owns its stream (the generator flushes it at the end).
        .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
        .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
        .build());
    this.treeReader = mapper.reader();
    this.recordReaders = new PerDataset<>(ID, Dataset.carried(), d -> mapper.readerFor(d.recordsType().containedType(0)));
    // Written into a bounded buffer: a flush after every record would hand the drain one record
    // at a time instead of full buffers.
    this.recordWriters = new PerDataset<>(ID, Dataset.carried(),
        d -> mapper.writerFor(d.recordsType().containedType(0)).without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE));
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    Records<R> records;
    try {
      records = bindings.reader(dataset).readValue(payload);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    if (records == null) {
      // Jackson maps a top-level null to no value rather than an error.
      throw new CodecException(ID + " decode: the payload is null, not {\"records\": [...]}");
    }
    return records;
  }

  @Override
  public JsonNode decodeTree(byte[] payload) throws CodecException {
    JsonNode root;
    try {
      root = treeReader.readTree(payload);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    if (root == null || root.isMissingNode()) {
      throw new CodecException(ID + " decode: the payload holds no JSON value");
    }
    return root;
  }

  @Override
  public <R> void encodeStreaming(Dataset<R> dataset, Records<R> records, OutputStream out) throws CodecException {
    bindings.check(dataset);
    ObjectWriter writer = recordWriters.get(dataset).value();
    // The same bytes as encode: the wrapper by hand, each record by the databind writer.
    try (JsonGenerator g = writer.createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeFieldName(RECORDS);
      g.writeStartArray();
      for (R r : records.records()) {
        writer.writeValue(g, r);
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
  }

  @Override
  public <R> long decodeStreaming(Dataset<R> dataset, InputStream in, Consumer<? super R> sink)
      throws CodecException {
    bindings.check(dataset);
    ObjectReader reader = recordReaders.get(dataset).value();
    long n = 0;
    try (JsonParser p = reader.createParser(in)) {
      JsonToken t = p.nextToken();
      if (t != JsonToken.START_OBJECT) {
        throw new CodecException(ID + " decode: the payload is " + describe(t) + ", not {\"records\": [...]}");
      }
      t = p.nextToken();
      if (t != JsonToken.FIELD_NAME) {
        throw new CodecException(ID + " decode: the payload has no key \"records\"");
      }
      if (!RECORDS.equals(p.currentName())) {
        throw new CodecException(ID + " decode: unknown key \"" + p.currentName() + "\" in the payload (it has only \"records\")");
      }
      t = p.nextToken();
      if (t != JsonToken.START_ARRAY) {
        throw new CodecException(ID + " decode: \"records\" is " + describe(t) + ", not an array");
      }
      // The iterator takes the next token itself: the first record's start, or the array's end.
      p.clearCurrentToken();
      MappingIterator<R> records = reader.readValues(p);
      while (records.hasNextValue()) {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
          throw new CodecException(ID + " decode: record " + n + " is null");
        }
        sink.accept(records.nextValue());
        n++;
      }
      t = p.nextToken();
      if (t == JsonToken.FIELD_NAME) {
        throw new CodecException(ID + " decode: " + (RECORDS.equals(p.currentName()) ? "a second" : "unknown")
            + " key \"" + p.currentName() + "\" in the payload (it has only \"records\")");
      }
      if (t != JsonToken.END_OBJECT) {
        throw new CodecException(ID + " decode: the payload ends early: expected '}', found " + describe(t));
      }
      t = p.nextToken();
      if (t != null) {
        throw new CodecException(ID + " decode: " + describe(t) + " after the payload's value");
      }
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    return n;
  }

  private static String describe(JsonToken t) {
    return t == null ? "empty (end of input)" : t == JsonToken.VALUE_NULL ? "null" : "a " + t;
  }
}
