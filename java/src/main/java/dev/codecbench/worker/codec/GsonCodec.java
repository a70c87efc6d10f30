package dev.codecbench.worker.codec;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.Strictness;
import com.google.gson.TypeAdapter;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.Schema;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * json/gson: Google's Gson binding the same model records as Jackson's json does (a second
 * implementation of json, proto/README.md "Implementations"), typed, tree (JsonElement) and
 * streaming (JsonWriter/JsonReader record by record). Gson reads no Jackson annotation, so what
 * the models say in Jackson's words is said to Gson in {@link GsonAdapters}: wire names, base64
 * bytes, RFC 3339 Timestamps. Unsigned integers are refused: the models hold uint32/uint64 in a signed int/long (as
 * protobuf-java does) and Gson binds an adapter by Java type or by its own {@code @JsonAdapter}
 * only, so it would write 2^63 as a negative number.
 */
public final class GsonCodec implements Codec {
  private static final String ID = "json/gson";
  private static final String RECORDS = "records";

  /** Per dataset: the payload's adapter and one record's, built once (no lookup while timed). */
  private record Adapters(TypeAdapter<Records<?>> records, TypeAdapter<Object> record) {}

  private final Gson gson;
  private final TypeAdapter<JsonElement> tree;
  private final PerDataset<Adapters> byDataset;

  public GsonCodec() {
    this.gson = new GsonBuilder()
        // A payload is exactly one strict RFC 8259 value (Gson's default also takes NaN, unquoted
        // names and single quotes when reading).
        .setStrictness(Strictness.STRICT)
        // Written as the other libraries write it: Gson's default escapes < > & = ' for HTML pages.
        .disableHtmlEscaping()
        .setFieldNamingStrategy(GsonAdapters::wireName)
        .registerTypeAdapter(byte[].class, new GsonAdapters.Base64Adapter().nullSafe())
        .registerTypeAdapterFactory(new GsonAdapters.TimestampFactory())
        .create();
    this.tree = gson.getAdapter(JsonElement.class);
    this.byDataset = new PerDataset<>(ID, Dataset.carried(), d -> {
      String why = refusalOf(d.schema());
      if (why != null) {
        throw new IllegalStateException(why);
      }
      @SuppressWarnings("unchecked")
      TypeAdapter<Records<?>> records = (TypeAdapter<Records<?>>) gson.getAdapter(TypeToken.get(GsonAdapters.typeOf(d.recordsType())));
      @SuppressWarnings("unchecked")
      TypeAdapter<Object> record = (TypeAdapter<Object>) gson.getAdapter(TypeToken.get(GsonAdapters.typeOf(d.recordsType().containedType(0))));
      return new Adapters(records, record);
    });
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String refusal(Dataset<?> dataset) {
    return byDataset.get(dataset).refused();
  }

  private Adapters adapters(Dataset<?> dataset) throws CodecException {
    PerDataset.Entry<Adapters> e = byDataset.get(dataset);
    if (e.refused() != null) {
      throw new CodecException(e.refused());
    }
    return e.value();
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    TypeAdapter<Records<?>> adapter = adapters(dataset).records();
    // What Gson.toJson(records, type) does, with the adapter looked up once per dataset.
    StringWriter text = new StringWriter();
    try {
      adapter.write(gson.newJsonWriter(text), records);
      return text.toString().getBytes(StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    TypeAdapter<Records<?>> adapter = adapters(dataset).records();
    Records<R> records;
    try (JsonReader reader = reader(new StringReader(new String(payload, StandardCharsets.UTF_8)))) {
      records = (Records<R>) read(reader, adapter);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    return checked(records, "the payload");
  }

  @Override
  public JsonElement decodeTree(byte[] payload) throws CodecException {
    try (JsonReader reader = reader(new StringReader(new String(payload, StandardCharsets.UTF_8)))) {
      return read(reader, tree);
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    TypeAdapter<Records<?>> adapter = adapters(dataset).records();
    Records<R> records;
    try {
      records = (Records<R>) adapter.fromJsonTree((JsonElement) tree);
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "tree to records", e);
    }
    return checked(records, "the tree");
  }

  @Override
  public <R> void encodeStreaming(Dataset<R> dataset, Records<R> records, OutputStream out) throws CodecException {
    TypeAdapter<Object> record = adapters(dataset).record();
    // The same bytes as encode: the wrapper by hand, each record by its adapter.
    OutputStreamWriter chars = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    try {
      JsonWriter w = gson.newJsonWriter(chars);
      w.beginObject().name(RECORDS).beginArray();
      for (R r : records.records()) {
        record.write(w, r);
      }
      w.endArray().endObject();
      // Not closed: the caller owns its stream.
      w.flush();
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> long decodeStreaming(Dataset<R> dataset, InputStream in, Consumer<? super R> sink) throws CodecException {
    TypeAdapter<Object> record = adapters(dataset).record();
    long n = 0;
    try {
      JsonReader r = reader(new InputStreamReader(in, StandardCharsets.UTF_8));
      expect(r, JsonToken.BEGIN_OBJECT, "the payload", "{\"records\": [...]}");
      r.beginObject();
      if (!r.hasNext()) {
        throw new CodecException(ID + " decode: the payload has no key \"records\"");
      }
      String name = r.nextName();
      if (!RECORDS.equals(name)) {
        throw new CodecException(ID + " decode: unknown key \"" + name + "\" in the payload (it has only \"records\")");
      }
      expect(r, JsonToken.BEGIN_ARRAY, "\"records\"", "an array");
      r.beginArray();
      while (r.hasNext()) {
        if (r.peek() == JsonToken.NULL) {
          throw new CodecException(ID + " decode: record " + n + " is null");
        }
        sink.accept((R) record.read(r));
        n++;
      }
      r.endArray();
      if (r.hasNext()) {
        name = r.nextName();
        throw new CodecException(ID + " decode: " + (RECORDS.equals(name) ? "a second" : "unknown") + " key \"" + name
            + "\" in the payload (it has only \"records\")");
      }
      r.endObject();
      if (r.peek() != JsonToken.END_DOCUMENT) {
        throw new CodecException(ID + " decode: " + r.peek() + " after the payload's value");
      }
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
    return n;
  }

  private JsonReader reader(Reader in) {
    JsonReader r = gson.newJsonReader(in);
    r.setStrictness(Strictness.STRICT);
    return r;
  }

  /** One value, and nothing after it (as Gson.fromJson(Reader) checks). */
  private static <T> T read(JsonReader reader, TypeAdapter<T> adapter) throws IOException, CodecException {
    if (reader.peek() == JsonToken.END_DOCUMENT) {
      throw new CodecException(ID + " decode: the payload holds no JSON value");
    }
    T value = adapter.read(reader);
    if (reader.peek() != JsonToken.END_DOCUMENT) {
      throw new CodecException(ID + " decode: " + reader.peek() + " after the payload's value");
    }
    return value;
  }

  private static void expect(JsonReader r, JsonToken token, String what, String shape) throws IOException, CodecException {
    JsonToken t = r.peek();
    if (t != token) {
      throw new CodecException(ID + " decode: " + what + " is " + (t == JsonToken.END_DOCUMENT ? "empty (end of input)"
          : "a " + t) + ", not " + shape);
    }
  }

  /**
   * What Jackson's required fields check and Gson does not: a payload that is null, has no
   * "records" or holds a null record. A missing field inside a record is left to verification.
   */
  private static <R> Records<R> checked(Records<R> records, String what) throws CodecException {
    if (records == null) {
      throw new CodecException(ID + " decode: " + what + " is null, not {\"records\": [...]}");
    }
    if (records.records() == null) {
      throw new CodecException(ID + " decode: " + what + " has no key \"records\"");
    }
    for (int i = 0; i < records.records().size(); i++) {
      if (records.records().get(i) == null) {
        throw new CodecException(ID + " decode: record " + i + " is null");
      }
    }
    return records;
  }

  /**
   * The schema-less codecs' refusals (Offered), and every unsigned integer, map keys and values
   * included (see the class comment).
   */
  private static String refusalOf(Schema schema) {
    String why = Offered.refusal(ID, schema);
    if (why != null) {
      return why;
    }
    for (Schema.Message m : schema.messages().values()) {
      for (Schema.Field f : m.fields()) {
        for (Schema.Field v : f.map() ? List.of(schema.mapKey(f), schema.mapValue(f)) : List.of(f)) {
          if (unsigned(v.type())) {
            return Offered.reason(ID, v.type().name().toLowerCase(Locale.ROOT), f);
          }
        }
      }
    }
    return null;
  }

  private static boolean unsigned(Schema.Type t) {
    return t == Schema.Type.UINT32 || t == Schema.Type.FIXED32 || t == Schema.Type.UINT64 || t == Schema.Type.FIXED64;
  }
}
