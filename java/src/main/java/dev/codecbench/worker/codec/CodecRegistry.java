package dev.codecbench.worker.codec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The one place codecs are registered: adding a codec is adding a line here. */
public final class CodecRegistry {
  private final Map<String, Codec> byId = new LinkedHashMap<>();

  public CodecRegistry() {
    add(new JsonCodec());
    add(new BsonCodec());
    add(new ProtobufCodec());
    add(new UbjsonCodec());
    add(new MsgpackCodec());
  }

  private void add(Codec codec) {
    if (byId.putIfAbsent(codec.id(), codec) != null) {
      throw new IllegalStateException("codec registered twice: " + codec.id());
    }
  }

  public Optional<Codec> byId(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  public List<Codec> all() {
    return List.copyOf(byId.values());
  }
}
