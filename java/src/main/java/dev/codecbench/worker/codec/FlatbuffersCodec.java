package dev.codecbench.worker.codec;

import com.google.flatbuffers.FlatBufferBuilder;
import com.google.protobuf.Descriptors.Descriptor;
import dev.codecbench.worker.codec.FlatbuffersBuffer.Corrupt;
import dev.codecbench.worker.codec.FlatbuffersBuffer.Cursor;
import dev.codecbench.worker.codec.FlatbuffersBuffer.Reader;
import dev.codecbench.worker.codec.FlatbuffersMapping.Builder;
import dev.codecbench.worker.codec.FlatbuffersMapping.Field;
import dev.codecbench.worker.codec.FlatbuffersMapping.Kind;
import dev.codecbench.worker.codec.FlatbuffersMapping.Model;
import dev.codecbench.worker.codec.FlatbuffersMapping.Shape;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * flatbuffers: flatbuffers-java's FlatBufferBuilder and Table on the schema {@code flatc --proto}
 * makes of proto/datasets.proto at build time (pom.xml: datasets.fbs, then {@code flatc --java}
 * into target/generated-sources/flatbuffers). The payload is the {@code *Dataset} table as the root,
 * finished without a file identifier; every string, vector and nested table is written even when
 * empty; scalars equal to their default (0, false) are omitted, as the builder does.
 *
 * <p>The application's objects are the model records, as for every Java codec. flatc's classes
 * are accessors and static builder functions, one set per message, with no entry point a generic
 * mapper could call without reflection on every field; and their readers trust every offset and
 * length (flatbuffers-java has no verifier). So the mapping is generic and built once per dataset
 * in the constructor, from the proto descriptors (a message's fields in declaration order are
 * flatc's slots 0, 1, ...; their types give the FlatBuffers types) and reflection over the
 * record components (MethodHandles for the accessors and canonical constructors): encode makes the
 * builder calls the generated {@code create*} functions make (startTable, add*, createString,
 * startVector/endVector, endTable, finish; fields added largest first, as flatc orders them),
 * and decode reads through a {@link Table} subclass with the calls the generated accessors make
 * (__offset, __indirect, __string, __vector, __vector_len), each offset and length checked first.
 * FlatbuffersCodecTest proves the generated classes read these buffers and this codec reads the
 * generated builders' buffers. Adding a dataset touches nothing here.
 *
 * <p>Hostile input: before anything is read through the Table API, the offset or length it uses
 * is checked against the buffer (tables, vtables, fields inside their table, strings with their 0
 * terminator, vectors, alignment as flatc's verifiers check it); a finished buffer is a whole
 * number of 4-byte words; and what a decode reads may add up to at most {@link #SHARING} times the
 * buffer (objects may be shared in FlatBuffers: a small buffer whose records all point to one big
 * table would otherwise decode to gigabytes). A failure is a CodecException naming the place
 * ({@code records[3].cars[1].brand}) and the problem.
 */
public final class FlatbuffersCodec implements Codec {
  static final String ID = "flatbuffers";
  /** What the objects a decode reads may add up to, in multiples of the buffer's size. */
  static final int SHARING = 4;

  /**
   * Per dataset: the root shape (the list table over Records), or why the mapper does not offer
   * it (a feature it has no table for). One dataset the mapper cannot represent is refused
   * alone: the codec serves the others.
   */
  private final PerDataset<Shape> roots;

  public FlatbuffersCodec() {
    this(Dataset.carried());
  }

  /** The mapper for {@code all} (the worker's datasets, or in tests a schema of their own). */
  FlatbuffersCodec(List<Dataset<?>> all) {
    this.roots = new PerDataset<>(ID, all, d -> {
      Descriptor message = d.toProto(new Records<>(List.of())).getDescriptorForType();
      var recordType = d.recordsType().containedType(0);
      Model record = recordType.isCollectionLikeType()
          ? new Model(List.class, Model.of(recordType.getContentType().getRawClass()))
          : Model.of(recordType.getRawClass());
      return new Builder(record, d::wireName).shape(message, Model.of(Records.class));
    });
  }

  @Override
  public String refusal(Dataset<?> dataset) {
    return roots.get(dataset).refused();
  }

  /** The dataset's root shape, or the reason the mapper refused it. */
  private Shape root(Dataset<?> dataset, String what) throws CodecException {
    PerDataset.Entry<Shape> root = roots.get(dataset);
    if (root.value() == null) {
      throw new CodecException(ID + " " + what + ": dataset '" + dataset.id() + "' is not offered: " + root.refused());
    }
    return root.value();
  }

  @Override
  public String id() {
    return ID;
  }

  // ---------------------------------------------------------------------------------------------
  // Encode

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    try {
      FlatBufferBuilder b = new FlatBufferBuilder();
      int root = writeTable(b, new IntStack(), root(dataset, "encode"), records);
      b.finish(root);
      return b.sizedByteArray();
    } catch (CodecException e) {
      throw e;
    } catch (Error e) {
      throw e;
    } catch (Throwable t) {
      throw CodecException.wrap(ID, "encode", t);
    }
  }

  /** Offsets of what a table's fields point to, written before the table (a stack per encode). */
  private static final class IntStack {
    int[] values = new int[64];
    int size;

    void push(int v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }
  }

  private static int writeTable(FlatBufferBuilder b, IntStack stack, Shape s, Object record) throws Throwable {
    Field[] fields = s.fields;
    if (s.listRecord) {
      int vector = writeVector(b, stack, s, fields[0], (List<?>) record);
      b.startTable(1);
      b.addOffset(fields[0].slot, vector, 0);
      return b.endTable();
    }
    int base = stack.size;
    // Strings, vectors and tables first: a table's fields are written after what they point to.
    for (Field f : fields) {
      if (f.isOffset()) {
        Object v = (Object) f.get.invokeExact(record);
        if (v == null && f.optional) {
          stack.push(0); // unset: no field (a real offset is never 0)
          continue;
        }
        if (v == null) {
          throw nullField(s, f);
        }
        int offset;
        if (f.repeated) {
          offset = writeVector(b, stack, s, f, (List<?>) v);
        } else if (f.kind == Kind.STRING) {
          offset = b.createString((String) v);
        } else {
          offset = writeTable(b, stack, f.table, v);
        }
        stack.push(offset);
      }
    }
    b.startTable(fields.length);
    for (int i : s.addOrder) {
      Field f = fields[i];
      if (f.isOffset()) {
        b.addOffset(f.slot, stack.values[base + f.offsetIndex], 0);
        continue;
      }
      if (f.optional || f.kind == Kind.ENUM) {
        writeBoxed(b, f, (Object) f.get.invokeExact(record));
        continue;
      }
      switch (f.kind) {
        case INT -> b.addInt(f.slot, (int) f.get.invokeExact(record), 0);
        case LONG -> b.addLong(f.slot, (long) f.get.invokeExact(record), 0L);
        case BOOL -> b.addBoolean(f.slot, (boolean) f.get.invokeExact(record), false);
        case DOUBLE -> {
          double x = (double) f.get.invokeExact(record);
          // addDouble(slot, x, 0.0) would omit -0.0 (== 0.0), which then reads back as 0.0.
          if (Double.doubleToRawLongBits(x) != 0L) {
            b.addDouble(x);
            b.slot(f.slot);
          }
        }
        case FLOAT -> {
          float x = (float) f.get.invokeExact(record);
          if (Float.floatToRawIntBits(x) != 0) {
            b.addFloat(x);
            b.slot(f.slot);
          }
        }
        default -> throw new IllegalStateException(f.kind.toString());
      }
    }
    stack.size = base;
    return b.endTable();
  }

  /**
   * An optional scalar (absent when null; when set, written even at its default, as FlatBuffers'
   * optional scalars are) or an enum (its proto number, omitted at 0 as flatc's builder does).
   */
  private static void writeBoxed(FlatBufferBuilder b, Field f, Object v) {
    if (v == null) {
      return;
    }
    if (f.kind == Kind.ENUM && !f.optional) {
      b.addInt(f.slot, f.number(v), 0);
      return;
    }
    switch (f.kind) {
      case INT -> b.addInt((Integer) v);
      case LONG -> b.addLong((Long) v);
      case DOUBLE -> b.addDouble((Double) v);
      case FLOAT -> b.addFloat((Float) v);
      case BOOL -> b.addBoolean((Boolean) v);
      case ENUM -> b.addInt(f.number(v));
      default -> throw new IllegalStateException(f.kind.toString());
    }
    b.slot(f.slot);
  }

  private static int writeVector(FlatBufferBuilder b, IntStack stack, Shape s, Field f, List<?> list)
      throws Throwable {
    int n = list.size();
    switch (f.kind) {
      case STRING, TABLE -> {
        int base = stack.size;
        for (Object e : list) {
          if (e == null) {
            throw nullField(s, f);
          }
          stack.push(f.kind == Kind.STRING ? b.createString((String) e) : writeTable(b, stack, f.table, e));
        }
        b.startVector(4, n, 4);
        for (int i = n - 1; i >= 0; i--) {
          b.addOffset(stack.values[base + i]);
        }
        stack.size = base;
      }
      case INT -> {
        b.startVector(4, n, 4);
        for (int i = n - 1; i >= 0; i--) {
          b.addInt((Integer) list.get(i));
        }
      }
      case ENUM -> {
        b.startVector(4, n, 4);
        for (int i = n - 1; i >= 0; i--) {
          b.addInt(f.number(list.get(i)));
        }
      }
      case LONG -> {
        b.startVector(8, n, 8);
        for (int i = n - 1; i >= 0; i--) {
          b.addLong((Long) list.get(i));
        }
      }
      case DOUBLE -> {
        b.startVector(8, n, 8);
        for (int i = n - 1; i >= 0; i--) {
          b.addDouble((Double) list.get(i));
        }
      }
      case FLOAT -> {
        b.startVector(4, n, 4);
        for (int i = n - 1; i >= 0; i--) {
          b.addFloat((Float) list.get(i));
        }
      }
      case BOOL -> {
        b.startVector(1, n, 1);
        for (int i = n - 1; i >= 0; i--) {
          b.addBoolean((Boolean) list.get(i));
        }
      }
    }
    return b.endVector();
  }

  private static CodecException nullField(Shape s, Field f) {
    return new CodecException(ID + " encode: " + s.name + "." + f.name
        + " is null (FlatBuffers writes every string, vector and table; the model has no null)");
  }

  // ---------------------------------------------------------------------------------------------
  // Decode

  @Override
  @SuppressWarnings("unchecked")
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    Shape root = root(dataset, "decode");
    Reader r = new Reader(payload, root.depth, (long) SHARING * payload.length);
    try {
      return (Records<R>) readTable(r, root, r.root(), 0);
    } catch (Corrupt e) {
      throw e.toCodecException("decode");
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  private static Object readTable(Reader r, Shape s, int pos, int depth) {
    Cursor c = r.cursors[depth].at(pos);
    r.spend(c.objectSize);
    Field[] fields = s.fields;
    if (s.listRecord) {
      try {
        return readField(r, c, fields[0], depth);
      } catch (Corrupt e) {
        throw e.in("." + fields[0].name);
      }
    }
    Object[] args = new Object[fields.length];
    for (int i = 0; i < fields.length; i++) {
      try {
        args[i] = readField(r, c, fields[i], depth);
      } catch (Corrupt e) {
        throw e.in("." + fields[i].name);
      }
    }
    return FlatbuffersMapping.construct(s, args);
  }

  private static Object readField(Reader r, Cursor c, Field f, int depth) {
    int o = c.offset(f);
    if (o == 0) {
      return f.absent;
    }
    if (f.repeated) {
      int n = c.vectorLength(o, f.kind.size);
      r.spend(4L + (long) n * f.kind.size);
      int start = c.vectorStart(o);
      List<Object> out = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        int at = start + j * f.kind.size;
        try {
          out.add(switch (f.kind) {
            case STRING -> c.stringAt(at);
            case TABLE -> readTable(r, f.table, r.target(at, "table offset"), depth + 1);
            default -> f.fromWire(c.scalar(f.kind, at));
          });
        } catch (Corrupt e) {
          throw e.in("[" + j + "]");
        }
      }
      return out;
    }
    return switch (f.kind) {
      case STRING -> c.string(o);
      case TABLE -> readTable(r, f.table, c.table(o), depth + 1);
      default -> f.fromWire(c.scalar(f.kind, c.position() + o));
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Lazy

  @Override
  public void decodeLazy(Dataset<?> dataset, byte[] payload, List<String> fields, FieldSink sink)
      throws CodecException {
    FlatbuffersLazy.read(root(dataset, "lazy decode"), payload, fields, sink);
  }
}
