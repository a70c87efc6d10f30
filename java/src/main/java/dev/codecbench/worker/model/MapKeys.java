package dev.codecbench.worker.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import java.io.IOException;

/**
 * A signed integer map key as its decimal text in every codec (proto/README.md, "map": keys are
 * strings, as proto3 JSON writes them). Jackson writes an Integer or Long key through
 * {@code writeFieldId}, which CBOR's generator writes as an integer key that no other language
 * reads as a map key of text.
 */
public final class MapKeys {
  private MapKeys() {}

  public static final class DecimalKeySerializer extends JsonSerializer<Number> {
    @Override
    public void serialize(Number v, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeFieldName(v.toString());
    }
  }
}
