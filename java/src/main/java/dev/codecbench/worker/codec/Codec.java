package dev.codecbench.worker.codec;

import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.util.List;

/**
 * One codec over the native model. Implementations build every mapper, reader and writer in their
 * constructor: the methods below are the timed regions and do no set-up of their own.
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
}
