package dev.codecbench.worker.modelgen;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the model's records carry for the payload rules of proto/README.md ("The other proto3
 * features") beyond a field's name and presence: unsigned integers written and read as such
 * (dev.codecbench.worker.model.Unsigned), google.protobuf.Timestamp as its RFC 3339 string
 * (model.Timestamps), and a oneof with two members set refused
 * when a record is built (a payload holding both is a decode error).
 */
final class Payloads {
  private static final String UNSIGNED = "dev.codecbench.worker.model.Unsigned.";
  private static final String SER = "@com.fasterxml.jackson.databind.annotation.JsonSerialize(";
  private static final String DESER = "@com.fasterxml.jackson.databind.annotation.JsonDeserialize(";
  static final String TIMESTAMP = "google.protobuf.Timestamp";

  private Payloads() {}

  /** uint32/fixed32 -> "Int32", uint64/fixed64 -> "Int64", otherwise null. */
  private static String unsigned(FieldDescriptor f) {
    return switch (f.getType()) {
      case UINT32, FIXED32 -> "Int32";
      case UINT64, FIXED64 -> "Int64";
      default -> null;
    };
  }

  /** Jackson annotations of a component, before its type ("" for most). */
  static String annotations(FieldDescriptor f) {
    StringBuilder ser = new StringBuilder();
    StringBuilder deser = new StringBuilder();
    if (f.isMapField()) {
      String key = unsigned(f.getMessageType().findFieldByNumber(1));
      String value = unsigned(f.getMessageType().findFieldByNumber(2));
      if (key != null) {
        ser.append("keyUsing = ").append(UNSIGNED).append(key).append("KeySerializer.class");
        deser.append("keyUsing = ").append(UNSIGNED).append(key).append("KeyDeserializer.class");
      } else if (f.getMessageType().findFieldByNumber(1).getJavaType() == FieldDescriptor.JavaType.INT
          || f.getMessageType().findFieldByNumber(1).getJavaType() == FieldDescriptor.JavaType.LONG) {
        ser.append("keyUsing = dev.codecbench.worker.model.MapKeys.DecimalKeySerializer.class");
      }
      if (value != null) {
        ser.append(ser.isEmpty() ? "" : ", ").append("contentUsing = ").append(UNSIGNED).append(value).append("Serializer.class");
        deser.append(deser.isEmpty() ? "" : ", ").append("contentUsing = ").append(UNSIGNED).append(value)
            .append("Deserializer.class");
      }
    } else if (unsigned(f) != null) {
      String using = f.isRepeated() ? "contentUsing = " : "using = ";
      ser.append(using).append(UNSIGNED).append(unsigned(f)).append("Serializer.class");
      deser.append(using).append(UNSIGNED).append(unsigned(f)).append("Deserializer.class");
    }
    return ser.isEmpty() ? "" : SER + ser + ") " + DESER + deser + ") ";
  }

  /**
   * The record's compact constructor, or "": a oneof with more than one member set is refused
   * (a payload with two is a decode error), and an absent map (xml writes none when empty) is empty.
   */
  static String compactConstructor(Descriptor m, String indent) {
    StringBuilder b = new StringBuilder();
    for (OneofDescriptor o : m.getRealOneofs()) {
      List<FieldDescriptor> members = o.getFields();
      b.append(indent).append("    if (").append(members.stream().map(f -> "(" + Names.component(f) + " == null ? 0 : 1)")
          .collect(Collectors.joining(" + "))).append(" > 1) {\n").append(indent)
          .append("      throw new java.lang.IllegalArgumentException(\"oneof ").append(o.getFullName())
          .append(" has more than one member set (").append(members.stream().map(FieldDescriptor::getName)
              .collect(Collectors.joining(", "))).append(")\");\n").append(indent).append("    }\n");
    }
    for (FieldDescriptor f : m.getFields()) {
      if (f.isMapField()) {
        String c = Names.component(f);
        b.append(indent).append("    ").append(c).append(" = ").append(c).append(" == null ? java.util.Map.of() : ")
            .append(c).append(";\n");
      }
    }
    return b.isEmpty() ? "" : indent + "  public " + m.getName() + " {\n" + b + indent + "  }\n";
  }

  /** The Timestamp record's class annotations: written and read as its RFC 3339 string. */
  static String classAnnotations(Descriptor m, String indent) {
    if (!m.getFullName().equals(TIMESTAMP)) {
      return "";
    }
    return indent + SER + "using = " + m.getName() + ".Json.class)\n" + indent + DESER + "using = " + m.getName()
        + ".FromJson.class)\n";
  }

  /** The Timestamp record's serializer and deserializer (model.Timestamps). */
  static String timestampJson(Descriptor m, String indent) {
    if (!m.getFullName().equals(TIMESTAMP)) {
      return "";
    }
    return """

        public static final class Json extends dev.codecbench.worker.model.Timestamps.Serializer<Timestamp> {
          @Override protected long seconds(Timestamp t) { return t.seconds(); }
          @Override protected int nanos(Timestamp t) { return t.nanos(); }
        }

        public static final class FromJson extends dev.codecbench.worker.model.Timestamps.Deserializer<Timestamp> {
          @Override protected Timestamp of(long seconds, int nanos) { return new Timestamp(seconds, nanos); }
          @Override protected java.lang.Class<Timestamp> type() { return Timestamp.class; }
        }
        """.indent(indent.length() + 2);
  }
}
