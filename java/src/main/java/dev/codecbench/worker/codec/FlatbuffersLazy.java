package dev.codecbench.worker.codec;

import dev.codecbench.worker.codec.FlatbuffersBuffer.Corrupt;
import dev.codecbench.worker.codec.FlatbuffersBuffer.Cursor;
import dev.codecbench.worker.codec.FlatbuffersBuffer.Reader;
import dev.codecbench.worker.codec.FlatbuffersMapping.Field;
import dev.codecbench.worker.codec.FlatbuffersMapping.Kind;
import dev.codecbench.worker.codec.FlatbuffersMapping.Shape;
import dev.codecbench.worker.dataset.LazyField;
import java.util.List;

/**
 * FlatbuffersCodec's lazy mode: each lazy field (a dotted path, or a cell index of a matrix row)
 * resolved once per call to a chain of slots and read from every record table in place.
 */
final class FlatbuffersLazy {
  private static final String ID = FlatbuffersCodec.ID;

  private FlatbuffersLazy() {}

  /** A lazy field resolved against a record's shape: the tables to go through, then the value. */
  private record Path(String field, Field[] chain, int cell) {}

  /** Each of {@code fields} of every record of the payload of {@code root}, to {@code sink}. */
  static void read(Shape root, byte[] payload, List<String> fields, Codec.FieldSink sink) throws CodecException {
    Field records = root.fields[0];
    Shape record = records.table;
    Path[] paths = new Path[fields.size()];
    for (int i = 0; i < paths.length; i++) {
      paths[i] = resolve(record, fields.get(i));
    }
    // Lazy reads a few fields of each record: the strings it reads are what can add up (tables and
    // vectors it only steps through, at most records x fields x depth of them).
    Reader r = new Reader(payload, root.depth, (long) FlatbuffersCodec.SHARING * payload.length * Math.max(1, paths.length));
    try {
      Cursor top = r.cursors[0].at(r.root());
      int n;
      int start;
      try {
        int o = top.offset(records);
        n = o == 0 ? 0 : top.vectorLength(o, 4);
        start = o == 0 ? 0 : top.vectorStart(o);
      } catch (Corrupt e) {
        throw e.in(records.name);
      }
      for (int i = 0; i < n; i++) {
        try {
          int pos = r.target(start + 4 * i, "table offset");
          for (Path p : paths) {
            if (p.chain() == null) {
              throw CodecException.missingField(ID, i, p.field());
            }
            String v;
            try {
              v = lazyValue(r, pos, p);
            } catch (Corrupt e) {
              throw e.in("." + p.field());
            }
            if (v == null) {
              throw CodecException.missingField(ID, i, p.field());
            }
            sink.accept(v);
          }
        } catch (Corrupt e) {
          throw e.in(records.name + "[" + i + "]");
        }
      }
    } catch (Corrupt e) {
      throw e.toCodecException("lazy decode");
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "lazy decode", e);
    }
  }

  /** The chain of fields a lazy field names (a JSON-name path, or a cell index of a list record). */
  private static Path resolve(Shape record, String field) throws CodecException {
    if (record.listRecord) {
      int cell = LazyField.cellIndex(field);
      Field items = record.fields[0];
      if (cell >= 0 && items.kind != Kind.TABLE) {
        return new Path(field, new Field[] {items}, cell);
      }
      return new Path(field, null, -1);
    }
    String[] names = field.split("\\.", -1);
    Field[] chain = new Field[names.length];
    Shape s = record;
    for (int k = 0; k < names.length; k++) {
      if (s == null) {
        return new Path(field, null, -1);
      }
      Field found = null;
      for (Field f : s.fields) {
        if (f.name.equals(names[k])) {
          found = f;
        }
      }
      if (found == null) {
        return new Path(field, null, -1);
      }
      chain[k] = found;
      s = found.repeated ? null : found.table;
    }
    Field last = chain[chain.length - 1];
    if (last.repeated || last.kind == Kind.TABLE) {
      throw new CodecException(ID + " lazy decode: field '" + field + "' is a " + (last.repeated ? "vector" : "table")
          + ", not a scalar or string");
    }
    return new Path(field, chain, -1);
  }

  /** The field's text in the record table at {@code pos}, read in place; null when it has none. */
  private static String lazyValue(Reader r, int pos, Path p) {
    Field[] chain = p.chain();
    Cursor c = r.cursors[1].at(pos);
    for (int k = 0; k < chain.length - 1; k++) {
      int o = c.offset(chain[k]);
      if (o == 0) { // an absent table is the default message: its fields are their defaults
        return text(chain[chain.length - 1], chain[chain.length - 1].absent);
      }
      c = r.cursors[k + 2].at(c.table(o));
    }
    Field f = chain[chain.length - 1];
    int o = c.offset(f);
    if (p.cell() >= 0) {
      int n = o == 0 ? 0 : c.vectorLength(o, f.kind.size);
      if (p.cell() >= n) {
        return null;
      }
      int at = c.vectorStart(o) + p.cell() * f.kind.size;
      return f.kind == Kind.STRING ? c.stringAt(at) : text(f, f.fromWire(c.scalar(f.kind, at)));
    }
    if (o == 0) {
      return text(f, f.absent); // an unset optional field has no value: null
    }
    return f.kind == Kind.STRING ? c.string(o) : text(f, f.fromWire(c.scalar(f.kind, c.position() + o)));
  }

  /**
   * A scalar in the text form of LazyField (Java's toString, an enum's name, an unsigned integer
   * in unsigned decimal), a string as it is; null as null.
   */
  private static String text(Field f, Object v) {
    if (f.unsigned && v instanceof Integer i) {
      return Integer.toUnsignedString(i);
    }
    if (f.unsigned && v instanceof Long l) {
      return Long.toUnsignedString(l);
    }
    return v == null || v instanceof String ? (String) v : String.valueOf(v);
  }
}
