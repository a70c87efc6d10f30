package dev.codecbench.worker.dataset;

import dev.codecbench.worker.model.Timestamps;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The expected result of a lazy decode: each named field of every canonical record, record by
 * record, as a string, read from the model records by their wire names (json_name, or the .proto
 * name for a dataset whose fieldNames say so; a dotted path into nested messages; for matrix
 * rows, the cell at that index). It reads the dataset's schema constants and the model, never a
 * protobuf descriptor or protobuf's reflection (Schema says why).
 */
public final class LazyField {
  private LazyField() {}

  public static List<String> expected(Canonical<?> canonical, List<String> fields) {
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("no lazy fields");
    }
    Dataset<?> dataset = canonical.dataset();
    List<String> out = new ArrayList<>(canonical.size() * fields.size());
    int i = 0;
    for (Object record : canonical.model().records()) {
      for (String field : fields) {
        out.add(valueOf(dataset, record, field, i));
      }
      i++;
    }
    return out;
  }

  private static String valueOf(Dataset<?> dataset, Object record, String path, int index) {
    Schema schema = dataset.schema();
    Schema.Message m = schema.recordMessage();
    if (dataset.bareList()) {
      // Matrix rows: the field is a cell index into the one repeated field.
      int cell = cellIndex(path);
      List<?> cells = (List<?>) record;
      if (cell < 0) {
        throw new IllegalArgumentException("lazy field '" + path + "' is not a cell index of " + m.fullName());
      }
      if (cell >= cells.size()) {
        throw new IllegalArgumentException(
            "lazy field " + cell + " is out of range: record " + index + " has " + cells.size() + " cells");
      }
      return text(m.fields().get(0), cells.get(cell));
    }
    String[] keys = path.split("\\.", -1);
    Object value = record;
    for (int k = 0; k < keys.length; k++) {
      Schema.Field f = m.byWireName(keys[k], dataset.protoNames());
      boolean last = k == keys.length - 1;
      if (f == null || f.repeated() || (f.type() == Schema.Type.MESSAGE && !f.isTimestamp()) == last
          || !last && f.isTimestamp()) {
        throw new IllegalArgumentException("lazy field '" + path + "': '" + keys[k] + "' is not a "
            + (last ? "singular scalar" : "message") + " field of " + m.fullName());
      }
      value = component(m, f, value);
      if (value == null) {
        // An unset optional field is absent on the wire: a lazy read finds no value to compare.
        throw new IllegalArgumentException("lazy field '" + path + "' is unset in record " + index);
      }
      if (last) {
        return text(f, value);
      }
      m = schema.messageOf(f);
    }
    throw new IllegalArgumentException("lazy field '" + path + "' is empty");
  }

  /** The model record's component of field {@code f} (components are in field-number order). */
  private static Object component(Schema.Message m, Schema.Field f, Object record) {
    List<Schema.Field> byNumber = new ArrayList<>(m.fields());
    byNumber.sort(Comparator.comparingInt(Schema.Field::number));
    RecordComponent c = record.getClass().getRecordComponents()[byNumber.indexOf(f)];
    try {
      return c.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + c.getName() + " of " + record.getClass(), e);
    }
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
   * The text form codecs use for a scalar (proto/README.md, "Decode modes"): strings as they are,
   * an enum as its value name (as schema-less codecs write it), numbers and bools in Java's form,
   * an unsigned integer (which the model holds in a signed int or long, as protobuf-java does) in
   * its unsigned decimal, bytes in standard base64 with padding, a Timestamp as its RFC 3339 string.
   */
  public static String text(Schema.Field f, Object value) {
    if (value instanceof Enum<?> e) {
      return e.name();
    }
    if (value instanceof byte[] b) {
      return Base64.getEncoder().encodeToString(b);
    }
    if (f.isTimestamp()) {
      RecordComponent[] c = value.getClass().getRecordComponents();
      try {
        return Timestamps.format((long) c[0].getAccessor().invoke(value), (int) c[1].getAccessor().invoke(value));
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read " + value.getClass(), e);
      }
    }
    return switch (f.type()) {
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
  /** The scalar field {@code path} reads (null for a cell index or a path that is not one). */
  public static Schema.Field field(Dataset<?> dataset, String path) {
    if (dataset.bareList()) {
      return dataset.schema().recordMessage().fields().get(0);
    }
    Schema.Message m = dataset.schema().recordMessage();
    Schema.Field f = null;
    for (String key : path.split("\\.", -1)) {
      if (m == null) {
        return null;
      }
      f = m.byWireName(key, dataset.protoNames());
      if (f == null) {
        return null;
      }
      m = f.type() == Schema.Type.MESSAGE && !f.isTimestamp() ? dataset.schema().messageOf(f) : null;
    }
    return f;
  }

  public static String problem(Dataset<?> dataset, String path) {
    Schema schema = dataset.schema();
    Schema.Message m = schema.recordMessage();
    if (dataset.bareList()) {
      return cellIndex(path) >= 0 ? null : "lazy field '" + path + "' is not a cell index of " + m.fullName();
    }
    String[] keys = path.split("\\.", -1);
    for (int i = 0; i < keys.length; i++) {
      Schema.Field fd = m.byWireName(keys[i], dataset.protoNames());
      if (fd == null) {
        return "lazy field '" + path + "': " + m.fullName() + " has no field named '" + keys[i] + "'";
      }
      boolean last = i == keys.length - 1;
      // A Timestamp is read whole, as its string; a oneof member or a map has no one place to read.
      boolean message = fd.type() == Schema.Type.MESSAGE && !fd.isTimestamp();
      if (fd.repeated() || !fd.oneof().isEmpty() || message == last || !last && fd.isTimestamp()) {
        return "lazy field '" + path + "': " + fd.fullName() + " is not "
            + (last ? "a singular scalar field" : "a singular message field");
      }
      if (!last) {
        m = schema.messageOf(fd);
      }
    }
    return null;
  }
}
