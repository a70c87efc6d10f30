package dev.codecbench.worker.modelgen;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;

/**
 * The fingerprint of a record schema (proto/README.md, "Datasets and their schema fingerprint"):
 * the first 16 hex digits of the SHA-256 of a canonical text of the record message and every
 * message and enum it reaches. Every language computes it from its own descriptors; control pairs
 * a worker with a dataset only when their fingerprints agree.
 *
 * <p>Java computes it where it has the descriptors, in the model generator, which writes it into
 * the bindings class as a constant (dev.codecbench.worker.dataset.Schema says why).
 */
public final class SchemaFingerprint {
  /** Full names compare as UTF-8 bytes, as the specification sorts them. */
  private static final Comparator<String> BYTE_ORDER =
      (a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  private SchemaFingerprint() {}

  public static String of(Descriptor record) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(text(record).getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    return HexFormat.of().formatHex(digest, 0, 8);
  }

  /** The canonical text the fingerprint hashes. */
  public static String text(Descriptor record) {
    TreeMap<String, GenericDescriptor> reached = new TreeMap<>(BYTE_ORDER);
    Deque<GenericDescriptor> todo = new ArrayDeque<>(List.of(record));
    while (!todo.isEmpty()) {
      GenericDescriptor t = todo.pop();
      if (reached.putIfAbsent(t.getFullName(), t) == null && t instanceof Descriptor m) {
        for (FieldDescriptor f : m.getFields()) {
          GenericDescriptor ref = referenced(f);
          if (ref != null) {
            todo.push(ref);
          }
        }
      }
    }
    StringBuilder out = new StringBuilder();
    for (GenericDescriptor t : reached.values()) {
      if (t instanceof EnumDescriptor e) {
        out.append("enum ").append(e.getFullName()).append('\n');
        List<EnumValueDescriptor> values = new ArrayList<>(e.getValues());
        values.sort(Comparator.comparingInt(EnumValueDescriptor::getNumber)
            .thenComparing(EnumValueDescriptor::getName, BYTE_ORDER));
        for (EnumValueDescriptor v : values) {
          out.append(v.getNumber()).append(' ').append(v.getName()).append('\n');
        }
        continue;
      }
      Descriptor m = (Descriptor) t;
      out.append("message ").append(m.getFullName()).append('\n');
      List<FieldDescriptor> fields = new ArrayList<>(m.getFields());
      fields.sort(Comparator.comparingInt(FieldDescriptor::getNumber));
      for (FieldDescriptor f : fields) {
        GenericDescriptor ref = referenced(f);
        OneofDescriptor oneof = f.getRealContainingOneof();
        out.append(f.getNumber()).append(' ')
            .append(f.getName()).append(' ')
            .append(f.getJsonName()).append(' ')
            .append(f.getType().toProto().getNumber()).append(' ')
            .append(f.isRepeated() ? '1' : '0').append(' ')
            .append(ref == null ? "" : ref.getFullName()).append(' ')
            .append(f.toProto().getProto3Optional() ? '1' : '0').append(' ')
            .append(oneof == null ? "" : oneof.getName()).append('\n');
      }
    }
    return out.toString();
  }

  private static GenericDescriptor referenced(FieldDescriptor f) {
    return switch (f.getJavaType()) {
      case MESSAGE -> f.getMessageType();
      case ENUM -> f.getEnumType();
      default -> null;
    };
  }
}
