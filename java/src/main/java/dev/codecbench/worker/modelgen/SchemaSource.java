package dev.codecbench.worker.modelgen;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The source of a record's {@code dev.codecbench.worker.dataset.Schema}: the record message and
 * every message its fields reach (map entries included), as constructor calls, so that the worker
 * reads what it needs of the descriptors without building them (Schema says why).
 */
final class SchemaSource {
  private static final String SCHEMA = "dev.codecbench.worker.dataset.Schema";

  private SchemaSource() {}

  /** A method body's statement returning the schema of {@code record}. */
  static String of(Descriptor record) {
    List<Descriptor> reached = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    Deque<Descriptor> todo = new ArrayDeque<>(List.of(record));
    while (!todo.isEmpty()) {
      Descriptor m = todo.removeFirst();
      if (!seen.add(m.getFullName())) {
        continue;
      }
      reached.add(m);
      for (FieldDescriptor f : m.getFields()) {
        if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
          todo.addLast(f.getMessageType());
        }
      }
    }
    StringBuilder b = new StringBuilder("    return ").append(SCHEMA).append(".of(java.util.List.of(");
    for (int i = 0; i < reached.size(); i++) {
      Descriptor m = reached.get(i);
      b.append(i == 0 ? "\n" : ",\n").append("        new ").append(SCHEMA).append(".Message(").append(quote(m.getFullName()))
          .append(", java.util.List.of(");
      List<FieldDescriptor> fields = m.getFields();
      for (int j = 0; j < fields.size(); j++) {
        b.append(j == 0 ? "\n" : ",\n").append("            ").append(field(fields.get(j)));
      }
      b.append("), ").append(m.getOptions().getMapEntry()).append(")");
    }
    return b.append("));\n").toString();
  }

  private static String field(FieldDescriptor f) {
    String typeName = switch (f.getJavaType()) {
      case MESSAGE -> f.getMessageType().getFullName();
      case ENUM -> f.getEnumType().getFullName();
      default -> "";
    };
    OneofDescriptor oneof = f.getRealContainingOneof();
    return "new " + SCHEMA + ".Field(" + quote(f.getContainingType().getFullName()) + ", " + f.getNumber() + ", "
        + quote(f.getName()) + ", " + quote(f.getJsonName()) + ", " + SCHEMA + ".Type." + f.getType().name() + ", "
        + f.isRepeated() + ", " + quote(typeName) + ", " + f.toProto().getProto3Optional() + ", "
        + quote(oneof == null ? "" : oneof.getName()) + ", " + f.isMapField() + ")";
  }

  /** A Java string literal (names are identifiers, json names may hold any character). */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
