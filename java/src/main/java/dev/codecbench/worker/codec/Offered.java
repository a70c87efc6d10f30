package dev.codecbench.worker.codec;

import dev.codecbench.worker.dataset.Schema;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The schema features a schema-less codec (json, bson, msgpack, cbor, xml, ubjson) has a payload
 * rule for (proto/README.md, "Payloads" and "The other proto3 features"): every scalar, enums,
 * messages, repeated and optional fields, maps, oneofs and google.protobuf.Timestamp; bson and
 * ubjson have no unsigned 64-bit integer, so they refuse uint64 and fixed64; no codec has a rule
 * for the other well-known types (Duration, Struct, wrappers, Any). What is refused is refused per
 * dataset, naming the field, instead of written in a form no other language reads back. Read from
 * the dataset's schema constants: no descriptor is built.
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
        // A map is named by its field; its key is a string in every codec, its value by its type's rule.
        Schema.Field value = f.map() ? schema.mapValue(f) : f;
        String kind = unoffered(codec, value);
        if (kind != null) {
          return reason(codec, kind, f);
        }
        if (value.type() == Schema.Type.MESSAGE && !value.isTimestamp()) {
          todo.add(schema.messageOf(value));
        }
      }
    }
    return null;
  }

  /**
   * xml's refusal beyond the others': a map of unsigned values (its entries are converted to
   * elements, and the model's unsigned annotation would then apply to an entry, not its value).
   */
  static String xmlRefusal(Schema schema) {
    for (Schema.Message m : schema.messages().values()) {
      for (Schema.Field f : m.fields()) {
        if (f.map()) {
          Schema.Type v = schema.mapValue(f).type();
          if (v == Schema.Type.UINT32 || v == Schema.Type.FIXED32 || v == Schema.Type.UINT64 || v == Schema.Type.FIXED64) {
            return reason("xml", "map of " + v.name().toLowerCase(Locale.ROOT), f);
          }
        }
      }
    }
    return null;
  }

  /** A refusal's reason: "bson: uint64 field acme.shop.v1.Order.total is not offered". */
  static String reason(String codec, String kind, Schema.Field f) {
    return codec + ": " + kind + " field " + f.fullName() + " is not offered";
  }

  /** The same, for flatbuffers' descriptor-driven mapping. */
  static String reason(String codec, String kind, com.google.protobuf.Descriptors.FieldDescriptor f) {
    return codec + ": " + kind + " field " + f.getFullName() + " is not offered";
  }

  /** The feature of {@code f} {@code codec} has no payload rule for (its kind, as refusals name it), or null. */
  static String unoffered(String codec, Schema.Field f) {
    return switch (f.type()) {
      // Neither has an unsigned 64-bit integer: a value past 2^63 - 1 has no faithful form.
      case UINT64, FIXED64 -> codec.equals("bson") || codec.equals("ubjson") ? f.type().name().toLowerCase(Locale.ROOT) : null;
      case MESSAGE -> f.typeName().startsWith("google.protobuf.") && !f.isTimestamp() ? f.typeName() : null;
      case GROUP -> "group";
      default -> null;
    };
  }
}
