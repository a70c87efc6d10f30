package dev.codecbench.worker.codec;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * The schema features the Jackson codecs (json, bson, msgpack, cbor, xml) have a payload rule
 * for (proto/README.md, "Payloads"): int32, int64, double, bool, string, enums, messages,
 * repeated and proto3 optional fields. Any other is refused per dataset, naming the field, instead
 * of written in Jackson's default form, which no other language reads back.
 */
final class Offered {
  private Offered() {}

  /** Why {@code codec} does not offer a dataset of {@code record}, or null when it does. */
  static String refusal(String codec, Descriptor record) {
    Set<String> seen = new HashSet<>();
    Deque<Descriptor> todo = new ArrayDeque<>();
    todo.add(record);
    while (!todo.isEmpty()) {
      Descriptor m = todo.pop();
      if (!seen.add(m.getFullName())) {
        continue;
      }
      for (FieldDescriptor f : m.getFields()) {
        String kind = unoffered(f);
        if (kind != null) {
          return reason(codec, kind, f);
        }
        if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
          todo.add(f.getMessageType());
        }
      }
    }
    return null;
  }

  /** A refusal's reason: "json: map field acme.shop.v1.Order.attributes is not offered". */
  static String reason(String codec, String kind, FieldDescriptor f) {
    return codec + ": " + kind + " field " + f.getFullName() + " is not offered";
  }

  /** The feature of {@code f} no payload rule covers, or null. */
  static String unoffered(FieldDescriptor f) {
    if (f.isMapField()) {
      return "map";
    }
    if (f.getRealContainingOneof() != null) {
      return "oneof";
    }
    return switch (f.getType()) {
      case INT32, INT64, DOUBLE, BOOL, STRING, ENUM -> null;
      case MESSAGE -> f.getMessageType().getFullName().equals("google.protobuf.Timestamp")
          ? "google.protobuf.Timestamp" : null;
      default -> f.getType().name().toLowerCase(java.util.Locale.ROOT); // bytes, float, uint32, sfixed64, ...
    };
  }
}
