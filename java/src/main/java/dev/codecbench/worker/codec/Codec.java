package dev.codecbench.worker.codec;

import codecbench.v1.Results.TimedRegion;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.util.List;

/**
 * One codec. Its methods {@link #encode}, {@link #decodeTyped}, {@link #decodeTree} and {@link
 * #decodeLazy} are exactly what is timed (proto/README.md "Timing", DESIGN.md rule 1): the
 * application's objects are the POJO model records for every codec (one application, one domain
 * model), so encode is records -> bytes and typed decode is bytes -> records, model conversion
 * included where the library has types of its own (protobuf messages, the ubjson value tree).
 * Work that only verification needs ({@link #validate}, {@link #treeToRecords}) lives outside.
 * Implementations build every mapper, reader and writer in their constructor.
 */
public interface Codec {
  String TYPED = "typed";
  String TREE = "tree";
  String LAZY = "lazy";
  String ENCODE = "encode";

  /** Codec id as announced to control: json, bson, ... */
  String id();

  String mediaType();

  /** The decode modes this codec implements (typed, tree, lazy). */
  List<String> decodeModes();

  String library();

  String libraryVersion();

  /** What a reader of the results should know about how this codec runs. */
  String notes();

  /** What each timed region contains: encode and one per decode mode (results.proto TimedRegion). */
  List<TimedRegion> timedRegions();

  /** Timed: the model records to bytes in memory. */
  <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException;

  /** Timed: bytes to the model records, every field materialised. */
  <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException;

  /** Timed: bytes to the library's generic document (JsonNode, BsonDocument, UBValue...). */
  default Object decodeTree(byte[] payload) throws CodecException {
    throw new CodecException(id() + " has no tree decode mode");
  }

  /** Not timed (verification): a tree from {@link #decodeTree} to the model records. */
  default <R> Records<R> treeToRecords(Dataset<R> dataset, Object tree) throws CodecException {
    throw new CodecException(id() + " has no tree decode mode");
  }

  /** Receives every value a lazy decode reads. */
  @FunctionalInterface
  interface FieldSink {
    void accept(String value);
  }

  /**
   * Timed: for every record of {@code records}, read each of {@code fields} (a dotted path into
   * nested documents, or a cell index of a record that is an array) as a string, integers in
   * decimal, without materialising the record; values go to {@code sink} record by record. The
   * dataset says what the payload holds: a schema-bound format (flatbuffers) has no field names on
   * the wire.
   */
  default void decodeLazy(Dataset<?> dataset, byte[] payload, List<String> fields, FieldSink sink)
      throws CodecException {
    throw new CodecException(id() + " has no lazy decode mode");
  }

  /**
   * Not timed: checks that verification runs on a payload before decoding it, for what the
   * library itself does not check (none by default).
   */
  default void validate(byte[] payload) throws CodecException {}

  /** One TimedRegion entry. */
  static TimedRegion region(String operation, String note, String... contains) {
    return TimedRegion.newBuilder().setOperation(operation).addAllContains(List.of(contains)).setNote(note).build();
  }
}
