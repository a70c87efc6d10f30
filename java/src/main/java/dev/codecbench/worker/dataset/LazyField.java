package dev.codecbench.worker.dataset;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * The expected result of a lazy decode: each named field of every canonical record, record by
 * record, as a string, read from the protobuf messages by their wire names (json_name, or the
 * .proto name for a dataset whose fieldNames say so; a dotted path into nested messages; for matrix
 * rows, the cell at that index).
 */
public final class LazyField {
  private LazyField() {}

  public static List<String> expected(Canonical<?> canonical, List<String> fields) {
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("no lazy fields");
    }
    List<String> out = new ArrayList<>(canonical.size() * fields.size());
    int i = 0;
    for (Message record : canonical.proto()) {
      for (String field : fields) {
        out.add(valueOf(canonical.dataset(), record, field, i));
      }
      i++;
    }
    return out;
  }

  private static String valueOf(Dataset<?> dataset, Message record, String path, int index) {
    int dot = path.indexOf('.');
    while (dot >= 0) {
      String key = path.substring(0, dot);
      FieldDescriptor fd = byWireName(dataset, record, key);
      if (fd == null || fd.isRepeated() || fd.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        throw new IllegalArgumentException("lazy field '" + path + "': '" + key + "' is not a message field of "
            + record.getDescriptorForType().getName());
      }
      record = (Message) record.getField(fd);
      path = path.substring(dot + 1);
      dot = path.indexOf('.');
    }
    String field = path;
    FieldDescriptor fd = byWireName(dataset, record, field);
    if (fd == null) {
      throw new IllegalArgumentException(
          "lazy field '" + field + "' is not a field of " + record.getDescriptorForType().getName());
    }
    if (fd.isRepeated()) {
      // Matrix rows: the field is a cell index into the one repeated field.
      int cell = cellIndex(field);
      int n = record.getRepeatedFieldCount(fd);
      if (cell >= n) {
        throw new IllegalArgumentException(
            "lazy field " + cell + " is out of range: record " + index + " has " + n + " cells");
      }
      return scalarText(fd, record.getRepeatedField(fd, cell));
    }
    if (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      throw new IllegalArgumentException("lazy field '" + field + "' is a message, not a scalar");
    }
    if (fd.hasPresence() && !record.hasField(fd)) {
      // An unset optional field is absent on the wire: a lazy read finds no value to compare.
      throw new IllegalArgumentException("lazy field '" + field + "' is unset in record " + index);
    }
    return scalarText(fd, record.getField(fd));
  }

  private static FieldDescriptor byWireName(Dataset<?> dataset, Message record, String field) {
    List<FieldDescriptor> fields = record.getDescriptorForType().getFields();
    // A record that is a single repeated field (a matrix row) is addressed by index.
    if (fields.size() == 1 && fields.get(0).isRepeated() && cellIndex(field) >= 0) {
      return fields.get(0);
    }
    for (FieldDescriptor fd : fields) {
      if (dataset.wireName(fd).equals(field)) {
        return fd;
      }
    }
    return null;
  }

  /**
   * The element index a lazy field names inside a record that is an array (a matrix row), or -1
   * when it names a key. Codecs and expectations read the field the same way through this.
   */
  public static int cellIndex(String field) {
    if (field.isEmpty() || field.length() > 9 || !field.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    return Integer.parseInt(field);
  }

  /**
   * The text form codecs use for a scalar: strings as they are, an enum as its value name (as
   * schema-less codecs write it), numbers and bools in Java's form, an unsigned integer (which
   * protobuf-java holds in a signed int or long) in its unsigned decimal.
   */
  private static String scalarText(FieldDescriptor fd, Object value) {
    if (value instanceof EnumValueDescriptor e) {
      return e.getName();
    }
    return switch (fd.getType()) {
      case UINT32, FIXED32 -> Integer.toUnsignedString((Integer) value);
      case UINT64, FIXED64 -> Long.toUnsignedString((Long) value);
      default -> value instanceof String s ? s : String.valueOf(value);
    };
  }

  /**
   * Why {@code path} is not a field a lazy decode of {@code dataset} reads (a dotted path of
   * wire names through singular message fields to a scalar, or a cell index of a bare-list
   * record), or null when it is one.
   */
  public static String problem(Dataset<?> dataset, String path) {
    Descriptor m = dataset.record();
    if (dataset.bareList()) {
      return cellIndex(path) >= 0 ? null : "lazy field '" + path + "' is not a cell index of " + m.getFullName();
    }
    String[] keys = path.split("\\.", -1);
    for (int i = 0; i < keys.length; i++) {
      FieldDescriptor fd = null;
      for (FieldDescriptor f : m.getFields()) {
        if (dataset.wireName(f).equals(keys[i])) {
          fd = f;
        }
      }
      if (fd == null) {
        return "lazy field '" + path + "': " + m.getFullName() + " has no field named '" + keys[i] + "'";
      }
      boolean last = i == keys.length - 1;
      if (fd.isRepeated() || fd.getRealContainingOneof() != null
          || (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE) == last) {
        return "lazy field '" + path + "': " + fd.getFullName() + " is not "
            + (last ? "a singular scalar field" : "a singular message field");
      }
      if (!last) {
        m = fd.getMessageType();
      }
    }
    return null;
  }
}
