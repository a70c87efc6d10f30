package dev.codecbench.worker.verify;

import dev.codecbench.worker.model.Records;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Compares decoded records with the canonical ones field by field and names the first difference
 * ("record 3 field friends[1].name: expected "a", got "b""). Doubles compare exactly: they
 * round-trip in every codec. Runs outside any timed region, so reflection is fine here.
 */
public final class RecordDiff {
  private RecordDiff() {}

  public static Optional<String> firstDifference(Records<?> expected, Records<?> actual) {
    List<?> want = expected.records();
    List<?> got = actual == null ? null : actual.records();
    if (got == null) {
      return Optional.of("decoded payload has no records list");
    }
    if (want.size() != got.size()) {
      return Optional.of("expected " + want.size() + " records, got " + got.size());
    }
    for (int i = 0; i < want.size(); i++) {
      String d = diff(want.get(i), got.get(i), "");
      if (d != null) {
        return Optional.of("record " + i + (d.startsWith(":") ? d : " field " + d));
      }
    }
    return Optional.empty();
  }

  /** Lazy decodes: each of {@code fields} of every record, record by record, field by field. */
  public static Optional<String> firstLazyDifference(List<String> expected, List<String> actual, List<String> fields) {
    int n = fields.size();
    for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
      if (!Objects.equals(expected.get(i), actual.get(i))) {
        return Optional.of("record " + i / n + " field " + fields.get(i % n) + ": expected " + show(expected.get(i))
            + ", got " + show(actual.get(i)));
      }
    }
    if (expected.size() != actual.size()) {
      return Optional.of("expected " + expected.size() + " values (" + expected.size() / n + " records x " + n
          + " fields), got " + actual.size());
    }
    return Optional.empty();
  }

  /** Null when equal; otherwise "path: expected X, got Y" (path empty at the top). */
  private static String diff(Object want, Object got, String path) {
    if (want instanceof Record && got != null && want.getClass() == got.getClass()) {
      for (RecordComponent c : want.getClass().getRecordComponents()) {
        String d = diff(read(c, want), read(c, got), path.isEmpty() ? c.getName() : path + "." + c.getName());
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    if (want instanceof List<?> w && got instanceof List<?> g) {
      if (w.size() != g.size()) {
        return path + ": expected " + w.size() + " elements, got " + g.size();
      }
      for (int i = 0; i < w.size(); i++) {
        String d = diff(w.get(i), g.get(i), path + "[" + i + "]");
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    if (want instanceof Map<?, ?> w && got instanceof Map<?, ?> g) {
      // A map's values may be byte[] or records holding them: compared by key, then as values are.
      if (!w.keySet().equals(g.keySet())) {
        return path + ": expected keys " + w.keySet() + ", got " + g.keySet();
      }
      for (Map.Entry<?, ?> e : w.entrySet()) {
        String d = diff(e.getValue(), g.get(e.getKey()), path + "[" + e.getKey() + "]");
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    // Boxed Double.equals compares bits, so -0.0 != 0.0 and NaN == NaN: exact round-trip. A bytes
    // field is a byte[]: compared by content.
    return Objects.deepEquals(want, got) ? null : path + ": expected " + show(want) + ", got " + show(got);
  }

  private static Object read(RecordComponent c, Object record) {
    try {
      return c.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + c.getName() + " of " + record.getClass(), e);
    }
  }

  private static String show(Object v) {
    if (v instanceof byte[] b) {
      String hex = java.util.HexFormat.of().formatHex(b, 0, Math.min(b.length, 40));
      return "bytes " + hex + (b.length > 40 ? "... (" + b.length + " bytes)" : "");
    }
    if (v instanceof String s) {
      String shown = s.length() > 80 ? s.substring(0, 77) + "..." : s;
      return '"' + shown.replace("\r", "\\r").replace("\n", "\\n") + '"';
    }
    return String.valueOf(v);
  }
}
