package dev.codecbench.worker.dataset;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A dataset's record schema as plain constants: the record message and every message its fields
 * reach (map entries included), each field with what the codecs, lazy reads and refusals need.
 * The model generator writes it into the bindings class from the descriptors, so that a trial's
 * JVM never builds protobuf descriptors: building them parses the embedded file descriptors
 * through protobuf-java's own parsing code and skews the JIT profile the protobuf codec is then
 * timed with (a built-in's typed decode measured ×1.37 slower).
 *
 * @param record the record message's full name
 * @param messages every reached message, by full name
 */
public record Schema(String record, Map<String, Message> messages) {
  /** FieldDescriptorProto.Type, by the names protobuf-java's FieldDescriptor.Type gives them. */
  public enum Type {
    DOUBLE, FLOAT, INT64, UINT64, INT32, FIXED64, FIXED32, BOOL, STRING, GROUP, MESSAGE, BYTES, UINT32, ENUM,
    SFIXED32, SFIXED64, SINT32, SINT64
  }

  /** The well-known type every schema-less codec carries (as its RFC 3339 string). */
  public static final String TIMESTAMP = "google.protobuf.Timestamp";

  /** A message: its fields in declaration order. */
  public record Message(String fullName, List<Field> fields, boolean mapEntry) {
    /** The field whose name in payloads ({@code protoNames}: its .proto name, else json_name) is {@code wire}. */
    public Field byWireName(String wire, boolean protoNames) {
      for (Field f : fields) {
        if ((protoNames ? f.name() : f.jsonName()).equals(wire)) {
          return f;
        }
      }
      return null;
    }

    public Field byNumber(int number) {
      for (Field f : fields) {
        if (f.number() == number) {
          return f;
        }
      }
      return null;
    }
  }

  /**
   * One field.
   *
   * @param message the full name of the message declaring it
   * @param typeName the full name of its message or enum type, "" for a scalar
   * @param oneof the real (not synthetic) oneof holding it, "" for none
   * @param map a map field (its type is the entry message: key = 1, value = 2)
   */
  public record Field(String message, int number, String name, String jsonName, Type type, boolean repeated,
      String typeName, boolean proto3Optional, String oneof, boolean map) {
    public String fullName() {
      return message + "." + name;
    }

    /** Presence in the model: null when unset (proto3 optional, a oneof member). */
    public boolean nullable() {
      return !repeated && !oneof.isEmpty() || proto3Optional;
    }

    public boolean isTimestamp() {
      return type == Type.MESSAGE && typeName.equals(TIMESTAMP);
    }
  }

  /** The schema of {@code messages}, the record's first. */
  public static Schema of(List<Message> messages) {
    Map<String, Message> byName = new LinkedHashMap<>();
    for (Message m : messages) {
      byName.put(m.fullName(), m);
    }
    return new Schema(messages.get(0).fullName(), java.util.Collections.unmodifiableMap(byName));
  }

  public Message recordMessage() {
    return message(record);
  }

  public Message message(String fullName) {
    Message m = messages.get(fullName);
    if (m == null) {
      throw new IllegalStateException("schema of " + record + " has no message " + fullName);
    }
    return m;
  }

  /** The message type of a message (or map) field. */
  public Message messageOf(Field f) {
    return message(f.typeName());
  }

  public Field mapKey(Field map) {
    return messageOf(map).byNumber(1);
  }

  public Field mapValue(Field map) {
    return messageOf(map).byNumber(2);
  }
}
