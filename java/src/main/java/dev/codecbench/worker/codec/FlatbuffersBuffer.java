package dev.codecbench.worker.codec;

import com.google.flatbuffers.Table;
import dev.codecbench.worker.codec.FlatbuffersMapping.Field;
import dev.codecbench.worker.codec.FlatbuffersMapping.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * FlatbuffersCodec's checked reading: a Table subclass (the generated classes' base class),
 * every offset and length checked against the buffer before the Table call that uses it, and a
 * budget on what one decode may read (shared objects).
 */
final class FlatbuffersBuffer {
  private FlatbuffersBuffer() {}

  /** A corrupt buffer: the problem, and the path to it, built on the way out. Unchecked, no stack. */
  static final class Corrupt extends RuntimeException {
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
      return new CodecException(FlatbuffersCodec.ID + " " + what + ": " + (at.isEmpty() ? "" : at + ": ") + getMessage());
    }
  }

  /** One decode call: the buffer and what may still be read of it. */
  static final class Reader {
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
        throw new Corrupt("the buffer's objects read so far add up to more than " + FlatbuffersCodec.SHARING + " times its "
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
  static final class Cursor extends Table {
    private final Reader r;
    /** The table's inline size, from its vtable. */
    int objectSize;

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
        case INT, ENUM -> b.getInt(at);
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
}
