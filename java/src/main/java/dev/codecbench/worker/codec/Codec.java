package dev.codecbench.worker.codec;

import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.util.List;

/**
 * One codec over the native model. Implementations build every mapper, reader and writer in their
 * constructor: encode, decode and the prepared operations do no set-up of their own.
 *
 * <p>Timed regions: {@link #encoder} and {@link #typedDecoder} return exactly what is timed. Most
 * codecs work on the native model itself, so their timed operations are {@link #encode} and
 * {@link #decodeTyped}. A codec whose library works on types of its own (protobuf's generated
 * messages) converts between those and the native model outside the timed region: DESIGN.md rule
 * 1 keeps model conversion out of every codec's timing, so protobuf times {@code toByteArray()}
 * and {@code parseFrom()} only, while {@link #encode}/{@link #decodeTyped} (used to produce and
 * verify payloads) include the conversion.
 */
public interface Codec {
  String TYPED = "typed";
  String LAZY = "lazy";

  /** Codec id as announced to control: json, bson, ... */
  String id();

  String mediaType();

  /** The decode modes this codec implements (typed, lazy). */
  List<String> decodeModes();

  String library();

  String libraryVersion();

  /** What a reader of the results should know about how this codec runs. */
  String notes();

  /** Native model to bytes in memory. */
  <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException;

  /** Bytes to the native model, every field materialised. */
  <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException;

  /**
   * Bytes to the library's raw/lazy document, then {@code field} of every record of {@code
   * records} as a string (for a record that is an array, the element at index {@code field}).
   */
  List<String> decodeLazy(byte[] payload, String field) throws CodecException;

  /** A prepared codec operation: the whole of it is the timed region. */
  @FunctionalInterface
  interface Timed {
    Object run() throws CodecException;
  }

  /**
   * The timed encode of {@code records}. Anything the codec needs before its library can write
   * (converting to the library's own types) happens here, once, before timing starts.
   */
  default <R> Timed encoder(Dataset<R> dataset, Records<R> records) throws CodecException {
    return () -> encode(dataset, records);
  }

  /**
   * The timed typed decode of {@code payload}: bytes to the library's materialised form. For a
   * codec with its own types, the conversion back to the native model is not part of it; {@link
   * #decodeTyped} (what verification runs before timing) does both.
   */
  default <R> Timed typedDecoder(Dataset<R> dataset, byte[] payload) {
    return () -> decodeTyped(dataset, payload);
  }
}
