package dev.codecbench.worker.codec;

import codecbench.v1.Results.TimedRegion;
import com.devsmart.ubjson.UBReader;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBWriter;
import dev.codecbench.worker.LibraryVersions;
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
 * bytes; typed decode = UBReader -> UBValue tree -> native model (UbjsonMapping); tree decode =
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

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String mediaType() {
    return "application/ubjson";
  }

  @Override
  public List<String> decodeModes() {
    return List.of(TYPED, TREE);
  }

  @Override
  public String library() {
    return "com.dev-smart:ubjson";
  }

  @Override
  public String libraryVersion() {
    return LibraryVersions.get("ubjson");
  }

  @Override
  public String notes() {
    return "the library has no data binding, so the mapping between the Java records and its "
        + "UBValue tree is part of the codec and timed: encode = records -> UBValue tree -> UBWriter, "
        + "decode = UBReader -> UBValue tree -> records; smallest integer markers, float64 doubles, "
        + "object keys sorted (the library's TreeMap); tree = the UBReader's UBValue tree";
  }

  @Override
  public List<TimedRegion> timedRegions() {
    String note = "the library has no data binding: records <-> its UBValue tree by hand (UbjsonMapping)";
    return List.of(
        Codec.region(ENCODE, note, "model-conversion", "serialize", "copy"),
        Codec.region(TYPED, note, "parse", "model-conversion"),
        Codec.region(TREE, "", "parse"));
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (UBWriter writer = new UBWriter(out)) {
      writer.write(UbjsonMapping.toTree(dataset, records));
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
          + "); the payload has " + payload.length + " bytes");
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
      return UbjsonMapping.fromTree(dataset, (UBValue) tree);
    } catch (UbjsonMapping.ShapeException e) {
      throw new CodecException(ID + " decode: " + e.getMessage());
    }
  }
}
