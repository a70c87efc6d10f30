package dev.codecbench.worker.codec;

import dev.codecbench.worker.dataset.Schema;
import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * The model record behind a dataset message, for the codecs that map generically (flatbuffers,
 * ubjson): its components, checked against the schema's fields in declaration order, since
 * the model records are generated field for field from the descriptors (ModelGenerator). A
 * mismatch fails at start-up, naming both sides.
 */
final class ProtoRecords {
  private ProtoRecords() {}

  /** Flatbuffers' mapping, which is descriptor-driven (it builds the descriptors when a flatbuffers trial runs). */
  static RecordComponent[] components(String codec, Class<?> type, com.google.protobuf.Descriptors.Descriptor message) {
    List<Schema.Field> fields = message.getFields().stream().map(f -> new Schema.Field(message.getFullName(),
        f.getNumber(), f.getName(), f.getJsonName(), Schema.Type.valueOf(f.getType().name()), f.isRepeated(), "",
        false, "", f.isMapField())).toList();
    return components(codec, type, new Schema.Message(message.getFullName(), fields, false));
  }

  static RecordComponent[] components(String codec, Class<?> type, Schema.Message message) {
    RecordComponent[] comps = type.getRecordComponents();
    List<Schema.Field> fds = message.fields();
    if (comps == null || comps.length != fds.size()) {
      throw new IllegalStateException(codec + ": " + type.getName() + " is not a record of the " + fds.size()
          + " fields of " + message.fullName());
    }
    for (int i = 1; i < fds.size(); i++) {
      // The model's components are in field-number order, the mappers' slots in declaration order.
      if (fds.get(i).number() < fds.get(i - 1).number()) {
        throw new IllegalStateException(codec + ": message " + message.fullName() + " declares field "
            + fds.get(i).name() + " (" + fds.get(i).number() + ") after " + fds.get(i - 1).name() + " ("
            + fds.get(i - 1).number() + "); this mapper needs fields declared in field-number order");
      }
    }
    for (int i = 0; i < comps.length; i++) {
      Schema.Field fd = fds.get(i);
      // ModelGenerator suffixes a name Java reserves (a keyword, an Object method) with '_'.
      String name = comps[i].getName();
      if (!name.equals(camel(fd.name())) && !name.equals(camel(fd.name()) + "_")) {
        throw new IllegalStateException(codec + ": " + type.getName() + " component " + i + " is '"
            + comps[i].getName() + "', not '" + camel(fd.name()) + "' (" + message.fullName() + " field "
            + fd.name() + ")");
      }
    }
    return comps;
  }

  /** A proto field name as its record component is named: snake_case to lowerCamelCase, as protoc does. */
  private static String camel(String protoName) {
    StringBuilder b = new StringBuilder(protoName.length());
    boolean up = false;
    for (char ch : protoName.toCharArray()) {
      if (ch == '_') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(ch) : ch);
        up = false;
      }
    }
    return b.toString();
  }
}
