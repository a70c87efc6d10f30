package dev.codecbench.worker.codec;

import com.devsmart.ubjson.UBReader;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBWriter;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * ubjson (Draft 12): com.dev-smart:ubjson. The library has no data binding: it reads and writes
 * its own value tree ({@code UBValue}, {@code UBObject}, {@code UBArray}). Mapping the native
 * model to and from that tree is therefore part of this codec, as it is for anyone using the
 * library, and it is inside the timed region: encode = native model -> UBValue tree -> UBWriter
 * bytes; typed decode = UBReader -> UBValue tree -> native model (UbjsonMapping: generic, built
 * once per dataset from the proto descriptors and the record components); tree decode =
 * UBReader -> UBValue tree.
 *
 * <p>What the library writes: integers in the smallest marker that holds them (U, i, I, l, L),
 * doubles as float64 (D), strings with S, lists of strings as strongly typed arrays ({@code [$S#n}),
 * other arrays with a count ({@code [#n}), objects unsized with their keys in sorted order (the
 * library keeps objects in a TreeMap). Reading takes every integer marker for an integer field
 * (range-checked), any number for a double field (a JavaScript encoder writes 2.0 as an integer),
 * and sized, typed or unsized containers.
 */
public final class UbjsonCodec implements Codec {
  private static final String ID = "ubjson";

  /** Built once: the generic mapping of every dataset's records to and from the value tree. */
  private final UbjsonMapping mapping;

  public UbjsonCodec() {
    this(Dataset.carried());
  }

  /** The codec for {@code datasets} (the worker's datasets, or in tests a schema of their own). */
  UbjsonCodec(List<Dataset<?>> datasets) {
    this.mapping = new UbjsonMapping(datasets);
  }

  @Override
  public String refusal(Dataset<?> dataset) {
    return mapping.refusal(dataset);
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (UBWriter writer = new UbjsonExtras.Writer(out)) {
      writer.write(mapping.toTree(dataset, records));
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "encode", e);
    }
    return out.toByteArray();
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    return treeToRecords(dataset, decodeTree(payload));
  }

  @Override
  public UBValue decodeTree(byte[] payload) throws CodecException {
    ByteArrayInputStream in = new ByteArrayInputStream(payload);
    UBValue root;
    try {
      root = new UBReader(in).read();
    } catch (IOException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    } catch (OutOfMemoryError e) {
      // The library allocates a string's or a sized container's declared length before reading
      // it; a corrupt length can ask for more than the heap has. That one allocation fails and
      // leaves the heap as it was.
      throw new CodecException(ID + " decode: a declared length does not fit in memory (" + e.getMessage()
          + "); the payload has " + payload.length + " bytes", e);
    } catch (StackOverflowError e) {
      // The reader recurses per nested container; '[[[[...' deeper than the stack is not a payload.
      throw new CodecException(ID + " decode: containers nested deeper than the reader's stack");
    }
    if (in.available() != 0) {
      throw new CodecException(ID + " decode: " + in.available() + " bytes after the payload's value");
    }
    return root;
  }

  @Override
  public <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    try {
      return mapping.fromTree(dataset, (UBValue) tree);
    } catch (UbjsonMapping.ShapeException e) {
      throw new CodecException(ID + " decode: " + e.getMessage());
    }
  }

  /**
   * Not timed (verification runs it before the first decode, as for bson): a walk over the payload
   * that follows UBReader's grammar exactly and rejects what it would mis-handle. UBReader allocates
   * a string's or a container's declared length before reading it (fuzzing: a 31-byte payload made
   * it allocate 1.8 GB; 2^31-1 ran out of memory), so every declared length and count must fit in
   * the bytes left (at least one byte per element: typed containers of Z/T/F longer than the
   * payload are refused, and no payload has them). Unknown markers (UBReader returns a null
   * value for them) are errors here, and nesting is capped below the reader's stack.
   */
  @Override
  public void validate(byte[] payload) throws CodecException {
    try {
      Scan s = new Scan(payload);
      s.value(s.control(), 0);
      if (s.p != payload.length) {
        throw new CodecException(ID + " decode: " + (payload.length - s.p) + " bytes after the payload's value");
      }
    } catch (Scan.Invalid e) {
      throw new CodecException(ID + " decode: " + e.getMessage());
    }
  }

  /** UBReader's grammar (com.dev-smart:ubjson 0.1.8), reading nothing into memory. */
  private static final class Scan {
    /** Deeper than any payload (records are 3 levels down), far below a thread's stack. */
    static final int MAX_DEPTH = 256;

    static final class Invalid extends RuntimeException {
      Invalid(String message) {
        super(message, null, false, false);
      }
    }

    final byte[] b;
    int p;

    Scan(byte[] b) {
      this.b = b;
    }

    Invalid error(String what) {
      return new Invalid(what + " at byte " + p);
    }

    byte control() {
      if (p >= b.length) {
        throw error("payload ends early");
      }
      return b[p++];
    }

    void skip(long n, String what) {
      if (n < 0 || n > b.length - p) {
        throw error(what + " of " + n + " bytes does not fit in the " + (b.length - p) + " bytes left");
      }
      p += (int) n;
    }

    /** A length or count after an integer marker, as UBReader reads it (the long cast to int). */
    int length(byte marker, String what) {
      int size = switch (marker) {
        case 'i', 'U' -> 1;
        case 'I' -> 2;
        case 'l' -> 4;
        case 'L' -> 8;
        default -> throw error(what + " has marker 0x" + Integer.toHexString(marker & 0xff) + ", not an integer");
      };
      if (size > b.length - p) {
        throw error(what + " runs past the end of the payload");
      }
      long v = marker == 'i' ? b[p] : marker == 'I' ? (short) ((b[p] & 0xff) << 8 | (b[p + 1] & 0xff)) : 0;
      if (marker == 'U' || marker == 'l' || marker == 'L') {
        for (int k = 0; k < size; k++) {
          v = v << 8 | (b[p + k] & 0xff);
        }
        if (marker == 'l') {
          v = (int) v;
        }
      }
      p += size;
      int n = (int) v;
      if (n < 0 || n > b.length - p) {
        throw error(what + " " + n + " exceeds the " + (b.length - p) + " bytes left");
      }
      return n;
    }

    void string(byte lengthMarker, String what) {
      skip(length(lengthMarker, what + " length"), what);
    }

    void value(byte marker, int depth) {
      switch (marker) {
        case 'Z', 'T', 'F' -> {}
        case 'i', 'U', 'C' -> skip(1, "value");
        case 'I' -> skip(2, "value");
        case 'l', 'd' -> skip(4, "value");
        case 'L', 'D' -> skip(8, "value");
        case 'S' -> string(control(), "string");
        case '[' -> array(depth + 1);
        case '{' -> object(depth + 1);
        default -> {
          p--;
          throw error("unknown marker 0x" + Integer.toHexString(marker & 0xff));
        }
      }
    }

    void array(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("containers nested deeper than " + MAX_DEPTH);
      }
      byte c = control();
      if (c == '$') {
        byte type = control();
        if (control() != '#') {
          throw error("typed array without a count");
        }
        int n = length(control(), "array count");
        for (int i = 0; i < n; i++) {
          value(type, depth);
        }
      } else if (c == '#') {
        int n = length(control(), "array count");
        for (int i = 0; i < n; i++) {
          value(control(), depth);
        }
      } else {
        while (c != ']') {
          value(c, depth);
          c = control();
        }
      }
    }

    void object(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("containers nested deeper than " + MAX_DEPTH);
      }
      byte c = control();
      if (c == '$' || c == '#') {
        byte type = 0;
        if (c == '$') {
          type = control();
          if (control() != '#') {
            throw error("typed object without a count");
          }
        }
        int n = length(control(), "object count");
        for (int i = 0; i < n; i++) {
          string(control(), "key");
          value(c == '$' ? type : control(), depth);
        }
      } else {
        while (c != '}') {
          string(c, "key");
          value(control(), depth);
          c = control();
        }
      }
    }
  }
}
