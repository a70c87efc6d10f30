package dev.codecbench.worker.codec;

import codecbench.v1.Results.TimedRegion;
import com.google.flatbuffers.FlatBufferBuilder;
import com.google.flatbuffers.Table;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.codecbench.worker.LibraryVersions;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
  private static final String ID = "flatbuffers";
  /** What the objects a decode reads may add up to, in multiples of the buffer's size. */
  static final int SHARING = 4;

  /** Per dataset (Dataset.index()): the root shape, the *Dataset table over Records. */
  private final Shape[] roots;
  /** Per dataset: why the mapper does not offer it (a feature it has no table for), or null. */
  private final String[] refused;

  public FlatbuffersCodec() {
    this(Dataset.all());
  }

  /** The mapper for {@code all} (the worker's datasets, or in tests a schema of their own). */
  FlatbuffersCodec(List<Dataset<?>> all) {
    this.roots = new Shape[all.size()];
    this.refused = new String[all.size()];
    for (Dataset<?> d : all) {
      Descriptor message = d.toProto(new Records<>(List.of())).getDescriptorForType();
      var recordType = d.recordsType().containedType(0);
      Model record = recordType.isCollectionLikeType()
          ? new Model(List.class, Model.of(recordType.getContentType().getRawClass()))
          : Model.of(recordType.getRawClass());
      // One dataset the mapper cannot represent is refused alone: the codec serves the others.
      try {
        roots[d.index()] = new Builder(record).shape(message, Model.of(Records.class));
      } catch (IllegalStateException e) {
        refused[d.index()] = e.getMessage();
      }
    }
  }

  /** The dataset's root shape, or the reason the mapper refused it. */
  private Shape root(Dataset<?> dataset, String what) throws CodecException {
    Shape root = roots[dataset.index()];
    if (root == null) {
      throw new CodecException(ID + " " + what + ": dataset '" + dataset.id() + "' is not offered: "
          + refused[dataset.index()]);
    }
    return root;
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String mediaType() {
    return "application/x-flatbuffers";
  }

  @Override
  public List<String> decodeModes() {
    return List.of(TYPED, LAZY);
  }

  @Override
  public String library() {
    return "flatbuffers-java";
  }

  @Override
  public String libraryVersion() {
    return LibraryVersions.get("flatbuffers-java");
  }

  @Override
  public String notes() {
    return "flatbuffers-java " + LibraryVersions.get("flatbuffers-java") + " on the schema flatc "
        + LibraryVersions.get("flatbuffers-java") + " --proto makes of datasets.proto at build time; a "
        + "generic mapper built per dataset from the proto descriptors and the record components "
        + "(MethodHandles) writes the records through FlatBufferBuilder's table API (a fresh builder of "
        + "the default 1 KiB per encode, every string/vector/table written, default scalars omitted, "
        + "-0.0 kept; sizedByteArray() copies the bytes out) and reads them through a Table subclass; "
        + "flatbuffers-java has no verifier, so every offset, length, 0 terminator, alignment and "
        + "bool is checked as it is read, and what one decode reads is bounded by " + SHARING
        + " times the buffer (shared objects); lazy reads each field of every record through the "
        + "vtables of the buffer in place, without building a record";
  }

  @Override
  public List<TimedRegion> timedRegions() {
    String note = "the application's objects are the model records, as for every Java codec; there is "
        + "no intermediate message object: the records are written straight into the builder and built "
        + "straight from the buffer's tables";
    String checks = "validation: flatbuffers-java has no verifier; every offset, length, 0 terminator, "
        + "alignment and bool is bounds-checked as it is read, and the bytes read are bounded by "
        + SHARING + " times the buffer's size";
    return List.of(
        Codec.region(ENCODE, note + "; copy: sizedByteArray() out of the builder", "model-conversion",
            "serialize", "copy"),
        Codec.region(TYPED, note + "; parse: reading every field through the vtables (FlatBuffers has "
            + "no parse pass); " + checks, "parse", "model-conversion", "validation"),
        Codec.region(LAZY, "each lazy field's path is resolved once per call to a chain of slots, then "
            + "read from every record in place; " + checks, "field-lookup", "validation"));
  }

  // ---------------------------------------------------------------------------------------------
  // The mapping: one Shape per message (a table), built once.

  /** The FlatBuffers type of a field (or of a vector's elements) and its inline size in bytes. */
  enum Kind {
    BOOL(1), INT(4), FLOAT(4), LONG(8), DOUBLE(8), STRING(4), TABLE(4);

    final int size;

    Kind(int size) {
      this.size = size;
    }

    boolean isScalar() {
      return this != STRING && this != TABLE;
    }
  }

  /** A model type: a class, or List of an element type. */
  record Model(Class<?> raw, Model element) {
    static Model of(Class<?> c) {
      return new Model(c, null);
    }
  }

  /** One field of a table: its slot, its type and how the model record holds it. */
  static final class Field {
    final String name; // the proto JSON name (wire name; lazy paths use it)
    final int slot;
    final int voffset; // the field's entry in a vtable: 4 + 2 * slot
    final Kind kind; // of the value, or of a vector's elements
    final boolean repeated;
    final Shape table; // kind TABLE
    /** The record component's accessor, (Object) -> int/long/float/double/boolean/Object by kind. */
    final MethodHandle get;
    /** The model value when the field is absent: the proto default. */
    Object absent;
    /** This field's index among its table's offset fields (strings, vectors, tables), or -1. */
    int offsetIndex = -1;

    Field(String name, int slot, Kind kind, boolean repeated, Shape table, MethodHandle get) {
      this.name = name;
      this.slot = slot;
      this.voffset = 4 + 2 * slot;
      this.kind = kind;
      this.repeated = repeated;
      this.table = table;
      this.get = get;
    }

    /** Inline size in the table: a vector, string or table is a 4-byte offset. */
    int inlineSize() {
      return repeated ? 4 : kind.size;
    }

    boolean isOffset() {
      return repeated || !kind.isScalar();
    }
  }

  /** One message: a record type, or (a matrix row) a List that is the message's one repeated field. */
  static final class Shape {
    final String name;
    Field[] fields;
    /** Field indexes in the order the builder adds them: largest first, then last field first. */
    int[] addOrder;
    int offsetFields;
    /** The canonical constructor, (Object[]) -> Object; null for a list record. */
    MethodHandle construct;
    boolean listRecord;
    /** The record every field of which is absent (the proto default message). */
    Object defaultValue;
    /** Tables below this one, itself included. */
    int depth;

    Shape(String name) {
      this.name = name;
    }
  }

  /** Builds the shapes of one dataset; {@code typeVariable} is what Records' R stands for. */
  private static final class Builder {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private final Model typeVariable;
    private final Set<String> inProgress = new HashSet<>();

    Builder(Model typeVariable) {
      this.typeVariable = typeVariable;
    }

    Shape shape(Descriptor message, Model model) {
      if (!inProgress.add(message.getFullName())) {
        throw new IllegalStateException("flatbuffers: message " + message.getFullName()
            + " contains itself; the mapper has no recursive tables");
      }
      Shape s = new Shape(message.getName());
      List<FieldDescriptor> fds = message.getFields();
      if (model.raw() == List.class) {
        if (fds.size() != 1 || !fds.get(0).isRepeated()) {
          throw new IllegalStateException("flatbuffers: " + message.getName() + " is modelled as a List, so it must "
              + "be one repeated field");
        }
        s.listRecord = true;
        s.fields = new Field[] {field(message, fds.get(0), model, null)};
      } else {
        RecordComponent[] comps = ProtoRecords.components("flatbuffers", model.raw(), message);
        s.fields = new Field[fds.size()];
        Class<?>[] types = new Class<?>[comps.length];
        for (int i = 0; i < comps.length; i++) {
          FieldDescriptor fd = fds.get(i);
          s.fields[i] = field(message, fd, modelOf(comps[i].getGenericType()), comps[i]);
          types[i] = comps[i].getType();
        }
        try {
          Constructor<?> c = model.raw().getDeclaredConstructor(types);
          s.construct = LOOKUP.unreflectConstructor(c)
              .asType(MethodType.methodType(Object.class, types))
              .asSpreader(Object[].class, types.length);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("flatbuffers: no canonical constructor of " + model.raw().getName(), e);
        }
      }
      int depth = 0;
      int offsets = 0;
      for (Field f : s.fields) {
        if (f.table != null) {
          depth = Math.max(depth, f.table.depth);
        }
        if (f.isOffset()) {
          f.offsetIndex = offsets++;
        }
      }
      s.depth = depth + 1;
      s.offsetFields = offsets;
      // flatc's create* functions add 8-byte fields, then 4-, 2- and 1-byte ones, each size from the
      // last field back: the fewest padding bytes.
      s.addOrder = java.util.stream.IntStream.range(0, s.fields.length).boxed()
          .sorted(Comparator.<Integer>comparingInt(i -> -s.fields[i].inlineSize()).thenComparing(i -> -i))
          .mapToInt(Integer::intValue).toArray();
      for (Field f : s.fields) {
        f.absent = absentValue(f);
      }
      s.defaultValue = s.listRecord ? List.of() : construct(s, Arrays.stream(s.fields).map(f -> f.absent).toArray());
      inProgress.remove(message.getFullName());
      return s;
    }

    private Field field(Descriptor message, FieldDescriptor fd, Model model, RecordComponent comp) {
      String where = message.getName() + "." + fd.getName();
      if (fd.isMapField() || fd.getRealContainingOneof() != null) {
        throw new IllegalStateException("flatbuffers: " + where + ": maps and oneofs are not mapped");
      }
      Model value = model;
      if (fd.isRepeated()) {
        if (model.raw() != List.class || model.element() == null) {
          throw new IllegalStateException("flatbuffers: " + where + " is repeated; its model is not a List");
        }
        value = model.element();
      }
      Kind kind = switch (fd.getType()) {
        case BOOL -> Kind.BOOL;
        case INT32, SINT32, SFIXED32, UINT32, FIXED32 -> Kind.INT;
        case INT64, SINT64, SFIXED64, UINT64, FIXED64 -> Kind.LONG;
        case FLOAT -> Kind.FLOAT;
        case DOUBLE -> Kind.DOUBLE;
        case STRING -> Kind.STRING;
        case MESSAGE -> Kind.TABLE;
        default -> throw new IllegalStateException("flatbuffers: " + where + ": " + fd.getType() + " is not mapped");
      };
      Class<?> want = switch (kind) {
        case BOOL -> fd.isRepeated() ? Boolean.class : boolean.class;
        case INT -> fd.isRepeated() ? Integer.class : int.class;
        case LONG -> fd.isRepeated() ? Long.class : long.class;
        case FLOAT -> fd.isRepeated() ? Float.class : float.class;
        case DOUBLE -> fd.isRepeated() ? Double.class : double.class;
        case STRING -> String.class;
        case TABLE -> value.raw();
      };
      if (kind != Kind.TABLE && value.raw() != want) {
        throw new IllegalStateException("flatbuffers: " + where + " is " + fd.getType() + "; its model is "
            + value.raw().getName() + ", not " + want.getName());
      }
      Shape table = kind == Kind.TABLE ? shape(fd.getMessageType(), value) : null;
      MethodHandle get = null;
      if (comp != null) {
        Class<?> result = fd.isRepeated() || !kind.isScalar() ? Object.class : comp.getType();
        try {
          get = LOOKUP.unreflect(comp.getAccessor()).asType(MethodType.methodType(result, Object.class));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("flatbuffers: cannot read " + comp, e);
        }
      }
      return new Field(fd.getJsonName(), fd.getIndex(), kind, fd.isRepeated(), table, get);
    }

    private Model modelOf(Type t) {
      if (t instanceof Class<?> c) {
        return Model.of(c);
      }
      if (t instanceof ParameterizedType p && p.getRawType() == List.class) {
        return new Model(List.class, modelOf(p.getActualTypeArguments()[0]));
      }
      if (t instanceof TypeVariable<?>) {
        return typeVariable; // Records<R>.records: R is the dataset's record
      }
      throw new IllegalStateException("flatbuffers: no mapping for model type " + t);
    }

    private static Object absentValue(Field f) {
      if (f.repeated) {
        return List.of();
      }
      return switch (f.kind) {
        case BOOL -> false;
        case INT -> 0;
        case LONG -> 0L;
        case FLOAT -> 0f;
        case DOUBLE -> 0d;
        case STRING -> "";
        case TABLE -> f.table.defaultValue;
      };
    }
  }

  private static Object construct(Shape s, Object[] args) {
    try {
      return (Object) s.construct.invokeExact(args);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
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
  // Decode: a Table subclass, every offset and length checked before the Table call that uses it.

  /** A corrupt buffer: the problem, and the path to it, built on the way out. Unchecked, no stack. */
  private static final class Corrupt extends RuntimeException {
    private String path = "";

    Corrupt(String problem) {
      super(problem, null, false, false);
    }

    Corrupt in(String step) {
      path = step + path;
      return this;
    }

    CodecException toCodecException(String what) {
      String at = path.startsWith(".") ? path.substring(1) : path;
      return new CodecException(ID + " " + what + ": " + (at.isEmpty() ? "" : at + ": ") + getMessage());
    }
  }

  /** One decode call: the buffer and what may still be read of it. */
  private static final class Reader {
    final ByteBuffer bb;
    final int length;
    long budget;
    final Cursor[] cursors;

    Reader(byte[] payload, int depth, long budget) {
      this.bb = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
      this.length = payload.length;
      this.budget = budget;
      this.cursors = new Cursor[depth + 1];
      for (int i = 0; i < cursors.length; i++) {
        cursors[i] = new Cursor(this);
      }
    }

    void spend(long bytes) {
      budget -= bytes;
      if (budget < 0) {
        throw new Corrupt("the buffer's objects read so far add up to more than " + SHARING + " times its "
            + length + " bytes (objects shared over and over); refused");
      }
    }

    /** The root table's position, from the buffer's first word. */
    int root() {
      if (length % 4 != 0) {
        throw new Corrupt("payload of " + length + " bytes is not a whole number of 4-byte words (a finished "
            + "FlatBuffer is padded to its alignment): truncated or padded");
      }
      if (length < 4) {
        throw new Corrupt("payload of " + length + " bytes has no root offset");
      }
      return target(0, "root offset");
    }

    /** Where the uoffset at {@code at} points, checked to leave room for a 4-byte word there. */
    int target(int at, String what) {
      long to = at + (bb.getInt(at) & 0xffffffffL);
      if (to > length - 4) {
        throw new Corrupt(what + " at byte " + at + " points to byte " + to + ", past the end of the " + length
            + "-byte buffer");
      }
      if ((to & 3) != 0) {
        throw new Corrupt(what + " at byte " + at + " points to byte " + to + ", not 4-byte aligned");
      }
      return (int) to;
    }

    /** A string's bytes at position {@code s} (its length word): checked, then decoded by the library. */
    void checkString(int s) {
      int n = bb.getInt(s);
      if (n < 0 || s + 4L + n + 1 > length) {
        throw new Corrupt("string at byte " + s + " declares " + Integer.toUnsignedString(n) + " bytes; with its "
            + "0 terminator that runs past the end of the " + length + "-byte buffer");
      }
      if (bb.get(s + 4 + n) != 0) {
        throw new Corrupt("string at byte " + s + " of " + n + " bytes has no 0 terminator");
      }
      spend(5L + n);
    }

    /** A vector's length at position {@code v}, checked against the buffer before anything is sized by it. */
    int vectorLength(int v, int elementSize) {
      int n = bb.getInt(v);
      if (n < 0 || v + 4L + (long) n * elementSize > length) {
        throw new Corrupt("vector at byte " + v + " declares " + Integer.toUnsignedString(n) + " elements of "
            + elementSize + " bytes, past the end of the " + length + "-byte buffer");
      }
      if (elementSize == 8 && ((v + 4) & 7) != 0) {
        throw new Corrupt("vector at byte " + v + " of 8-byte elements starts at byte " + (v + 4)
            + ", not 8-byte aligned");
      }
      return n;
    }
  }

  /** The generated classes' base class, pointed at one checked table at a time. */
  private static final class Cursor extends Table {
    private final Reader r;
    /** The table's inline size, from its vtable. */
    private int objectSize;

    Cursor(Reader r) {
      this.r = r;
    }

    /** Checks the table at {@code pos} and its vtable lie inside the buffer, then points at it. */
    Cursor at(int pos) {
      ByteBuffer b = r.bb;
      long vtable = (long) pos - b.getInt(pos);
      if (vtable < 0 || vtable > r.length - 4) {
        throw new Corrupt("table at byte " + pos + " has its vtable at byte " + vtable + ", outside the "
            + r.length + "-byte buffer");
      }
      if ((vtable & 1) != 0) {
        throw new Corrupt("table at byte " + pos + " has its vtable at byte " + vtable + ", not 2-byte aligned");
      }
      int vt = (int) vtable;
      int vtableSize = b.getShort(vt) & 0xffff;
      int size = b.getShort(vt + 2) & 0xffff;
      if (vtableSize < 4 || (vtableSize & 1) != 0 || vtableSize > 0x7fff || vt + vtableSize > r.length) {
        throw new Corrupt("table at byte " + pos + " has a vtable at byte " + vt + " of " + vtableSize
            + " bytes (an even size from 4, inside the " + r.length + "-byte buffer)");
      }
      if (size < 4 || (long) pos + size > r.length) {
        throw new Corrupt("table at byte " + pos + " declares " + size + " bytes (from 4, inside the "
            + r.length + "-byte buffer)");
      }
      objectSize = size;
      __reset(pos, b);
      return this;
    }

    /** The field's offset in the table (as generated accessors use it), or 0 when absent; checked. */
    int offset(Field f) {
      int o = __offset(f.voffset);
      if (o != 0) {
        int size = f.inlineSize();
        if (o < 4 || o + size > objectSize) {
          throw new Corrupt("field at offset " + o + " of " + size + " bytes lies outside its table of " + objectSize
              + " bytes at byte " + bb_pos);
        }
        if (((bb_pos + o) & (size - 1)) != 0) {
          throw new Corrupt("field at byte " + (bb_pos + o) + " is not " + size + "-byte aligned");
        }
      }
      return o;
    }

    int position() {
      return bb_pos;
    }

    /** The table a field (offset {@code o}) points to. */
    int table(int o) {
      return r.target(bb_pos + o, "table offset");
    }

    String string(int o) {
      return stringAt(bb_pos + o);
    }

    /** The string the uoffset at absolute position {@code at} points to. */
    String stringAt(int at) {
      r.checkString(r.target(at, "string offset"));
      try {
        return __string(at);
      } catch (IllegalArgumentException e) { // Utf8Safe: "Invalid UTF-8"
        throw new Corrupt("string at byte " + __indirect(at) + " is not valid UTF-8");
      }
    }

    /** The length of the vector a field (offset {@code o}) points to, checked. */
    int vectorLength(int o, int elementSize) {
      return r.vectorLength(r.target(bb_pos + o, "vector offset"), elementSize);
    }

    /** The position of a vector's first element (its length already checked). */
    int vectorStart(int o) {
      return __vector(o);
    }

    Object scalar(Kind kind, int at) {
      ByteBuffer b = r.bb;
      return switch (kind) {
        case INT -> b.getInt(at);
        case LONG -> b.getLong(at);
        case DOUBLE -> b.getDouble(at);
        case FLOAT -> b.getFloat(at);
        case BOOL -> bool(at);
        default -> throw new IllegalStateException(kind.toString());
      };
    }

    boolean bool(int at) {
      byte v = r.bb.get(at);
      if ((v & ~1) != 0) {
        throw new Corrupt("bool at byte " + at + " is " + (v & 0xff) + ", not 0 or 1");
      }
      return v != 0;
    }
  }

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
    return construct(s, args);
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
            default -> c.scalar(f.kind, at);
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
      default -> c.scalar(f.kind, c.position() + o);
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Lazy

  /** A lazy field resolved against a record's shape: the tables to go through, then the value. */
  private record Path(String field, Field[] chain, int cell) {}

  @Override
  public void decodeLazy(Dataset<?> dataset, byte[] payload, List<String> fields, FieldSink sink)
      throws CodecException {
    Shape root = root(dataset, "lazy decode");
    Field records = root.fields[0];
    Shape record = records.table;
    Path[] paths = new Path[fields.size()];
    for (int i = 0; i < paths.length; i++) {
      paths[i] = resolve(record, fields.get(i));
    }
    // Lazy reads a few fields of each record: the strings it reads are what can add up (tables and
    // vectors it only steps through, at most records x fields x depth of them).
    Reader r = new Reader(payload, root.depth, (long) SHARING * payload.length * Math.max(1, paths.length));
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
        return text(chain[chain.length - 1].absent);
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
      return f.kind == Kind.STRING ? c.stringAt(at) : text(c.scalar(f.kind, at));
    }
    if (o == 0) {
      return text(f.absent);
    }
    return f.kind == Kind.STRING ? c.string(o) : text(c.scalar(f.kind, c.position() + o));
  }

  /** A scalar in the text form of LazyField (Java's toString), a string as it is. */
  private static String text(Object v) {
    return v instanceof String s ? s : String.valueOf(v);
  }
}
