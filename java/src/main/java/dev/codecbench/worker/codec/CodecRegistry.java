package dev.codecbench.worker.codec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The one place codecs are registered: adding a codec is adding a line here. Each codec is built
 * on first use, so a trial's child JVM builds only the codec it measures (a shorter JVM start).
 */
public final class CodecRegistry {
  private final Map<String, Supplier<Codec>> factories = new LinkedHashMap<>();
  private final Map<String, Codec> built = new LinkedHashMap<>();

  public CodecRegistry() {
    add("json", JsonCodec::new);
    add("bson", BsonCodec::new);
    add("protobuf", ProtobufCodec::new);
    add("ubjson", UbjsonCodec::new);
    add("msgpack", MsgpackCodec::new);
    add("cbor", CborCodec::new);
    add("xml", XmlCodec::new);
    add("flatbuffers", FlatbuffersCodec::new);
    add("json/gson", GsonCodec::new);
  }

  private void add(String id, Supplier<Codec> factory) {
    if (factories.putIfAbsent(id, factory) != null) {
      throw new IllegalStateException("codec registered twice: " + id);
    }
  }

  public synchronized Optional<Codec> byId(String id) {
    Supplier<Codec> f = factories.get(id);
    if (f == null) {
      return Optional.empty();
    }
    Codec c = built.computeIfAbsent(id, k -> f.get());
    if (!c.id().equals(id)) {
      throw new IllegalStateException("codec registered as '" + id + "' calls itself '" + c.id() + "'");
    }
    return Optional.of(c);
  }

  public List<Codec> all() {
    List<Codec> out = new ArrayList<>();
    for (String id : factories.keySet()) {
      out.add(byId(id).orElseThrow());
    }
    return out;
  }
}
