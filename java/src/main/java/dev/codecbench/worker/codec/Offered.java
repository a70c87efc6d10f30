package dev.codecbench.worker.codec;

import dev.codecbench.worker.dataset.Schema;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * The schema features the Jackson codecs (json, bson, msgpack, cbor, xml) have a payload rule
 * for (proto/README.md, "Payloads"): int32, int64, double, bool, string, enums, messages,
 * repeated and proto3 optional fields. Any other is refused per dataset, naming the field, instead
 * of written in Jackson's default form, which no other language reads back. Read from the
 * dataset's schema constants: no descriptor is built.
 */
final class Offered {
  private Offered() {}

  /** Why {@code codec} does not offer a dataset of {@code schema}, or null when it does. */
  static String refusal(String codec, Schema schema) {
    Set<String> seen = new HashSet<>();
    Deque<Schema.Message> todo = new ArrayDeque<>();
    todo.add(schema.recordMessage());
    while (!todo.isEmpty()) {
      Schema.Message m = todo.pop();
      if (!seen.add(m.fullName())) {
        continue;
      }
      for (Schema.Field f : m.fields()) {
        String kind = unoffered(f);
        if (kind != null) {
          return reason(codec, kind, f);
        }
        if (f.type() == Schema.Type.MESSAGE) {
          todo.add(schema.messageOf(f));
        }
      }
    }
    return null;
  }

  /** A refusal's reason: "json: map field acme.shop.v1.Order.attributes is not offered". */
  static String reason(String codec, String kind, Schema.Field f) {
    return codec + ": " + kind + " field " + f.fullName() + " is not offered";
  }

  /** The same, for flatbuffers' descriptor-driven mapping. */
  static String reason(String codec, String kind, com.google.protobuf.Descriptors.FieldDescriptor f) {
    return codec + ": " + kind + " field " + f.getFullName() + " is not offered";
  }

  /** The feature of {@code f} no payload rule covers, or null. */
  static String unoffered(Schema.Field f) {
    if (f.map()) {
      return "map";
    }
    if (!f.oneof().isEmpty()) {
      return "oneof";
    }
    return switch (f.type()) {
      case INT32, INT64, DOUBLE, BOOL, STRING, ENUM -> null;
      case MESSAGE -> f.isTimestamp() ? Schema.TIMESTAMP : null;
      default -> f.type().name().toLowerCase(java.util.Locale.ROOT); // bytes, float, uint32, sfixed64, ...
    };
  }
}
