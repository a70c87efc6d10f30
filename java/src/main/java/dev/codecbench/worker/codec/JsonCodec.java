package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import codecbench.v1.Results.TimedRegion;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.codecbench.worker.LibraryVersions;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.util.List;

/** json: Jackson databind into the model records (typed) or a JsonNode tree (tree). */
public final class JsonCodec implements Codec {
  private static final String ID = "json";

  private final ObjectReader treeReader;
  private final JacksonBindings bindings;

  public JsonCodec() {
    ObjectMapper mapper =
        JsonMapper.builder()
            // Shortest round-trip form for doubles (JDK 17's Double.toString is not always shortest).
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            // Strict reading: a payload is exactly one value with every field present.
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
            .build();
    this.treeReader = mapper.reader();
    this.bindings = new JacksonBindings(mapper);
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String mediaType() {
    return "application/json";
  }

  @Override
  public List<String> decodeModes() {
    return List.of(TYPED, TREE);
  }

  @Override
  public String library() {
    return "jackson-databind";
  }

  @Override
  public String libraryVersion() {
    return LibraryVersions.get("jackson");
  }

  @Override
  public String notes() {
    return "one shared ObjectReader/ObjectWriter per dataset into Java records; fast double "
        + "writer/parser (shortest round-trip); tree = ObjectReader.readTree into a JsonNode tree; "
        + "no lazy mode (JSON has no index to skip a record by)";
  }

  @Override
  public List<TimedRegion> timedRegions() {
    return List.of(
        Codec.region(ENCODE, "", "serialize", "utf8", "copy"),
        Codec.region(TYPED, "", "parse", "utf8"),
        Codec.region(TREE, "", "parse", "utf8"));
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    try {
      return bindings.writer(dataset).writeValueAsBytes(records);
    } catch (JsonProcessingException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
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
  public <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    return JacksonBindings.treeToRecords(ID, bindings.reader(dataset), (JsonNode) tree);
  }
}
