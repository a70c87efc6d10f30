package dev.codecbench.worker.codec;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * The model record behind a dataset message, for the codecs that map generically (flatbuffers,
 * ubjson): its components, checked against the descriptor's fields in declaration order, since
 * the model records are generated field for field from the descriptors (ModelGenerator). A
 * mismatch fails at start-up, naming both sides.
 */
final class ProtoRecords {
  private ProtoRecords() {}

  static RecordComponent[] components(String codec, Class<?> type, Descriptor message) {
    RecordComponent[] comps = type.getRecordComponents();
    List<FieldDescriptor> fds = message.getFields();
    if (comps == null || comps.length != fds.size()) {
      throw new IllegalStateException(codec + ": " + type.getName() + " is not a record of the " + fds.size()
          + " fields of " + message.getName());
    }
    for (int i = 1; i < fds.size(); i++) {
      // The model's components are in field-number order, the mappers' slots in declaration order.
      if (fds.get(i).getNumber() < fds.get(i - 1).getNumber()) {
        throw new IllegalStateException(codec + ": message " + message.getFullName() + " declares field "
            + fds.get(i).getName() + " (" + fds.get(i).getNumber() + ") after " + fds.get(i - 1).getName() + " ("
            + fds.get(i - 1).getNumber() + "); this mapper needs fields declared in field-number order");
      }
    }
    for (int i = 0; i < comps.length; i++) {
      FieldDescriptor fd = fds.get(i);
      // ModelGenerator suffixes a name Java reserves (a keyword, an Object method) with '_'.
      String name = comps[i].getName();
      if (!name.equals(camel(fd.getName())) && !name.equals(camel(fd.getName()) + "_")) {
        throw new IllegalStateException(codec + ": " + type.getName() + " component " + i + " is '"
            + comps[i].getName() + "', not '" + camel(fd.getName()) + "' (" + message.getName() + " field "
            + fd.getName() + ")");
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
