package dev.codecbench.worker.codec;

import codecbench.v1.Results.TimedRegion;
import dev.codecbench.worker.LibraryVersions;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.function.Consumer;

/**
 * One codec. Its methods {@link #encode}, {@link #decodeTyped}, {@link #decodeTree}, {@link
 * #decodeLazy}, {@link #encodeStreaming} and {@link #decodeStreaming} are exactly what is timed (proto/README.md "Timing", DESIGN.md rule 1): the
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
  /**
   * Offered by a codec that can also encode into a bounded buffer drained as a socket would be and
   * decode record by record from a stream ({@link #encodeStreaming}, {@link #decodeStreaming}).
   */
  String STREAMING = "streaming";
  String ENCODE = "encode";
  /** The timed region of {@link #encodeStreaming}, declared just before the streaming decode's. */
  String ENCODE_STREAMING = "encode streaming";

  /** Codec id as announced to control: json, bson, json/gson, ... (its codecs/catalogue.yaml entry). */
  String id();

  /** The format's media type, from codecs/catalogue.yaml. */
  default String mediaType() {
    return Catalogue.entry(id()).mediaType();
  }

  /**
   * The format a codec id names (proto/README.md "Implementations"): the id itself for a
   * language's reference library of it ({@code json}), the part before '/' for another library of
   * the same format ({@code json/gson}). Payloads of one format are one wire; vectors are per format.
   */
  static String formatOf(String id) {
    int slash = id.indexOf('/');
    return slash < 0 ? id : id.substring(0, slash);
  }

  /**
   * The decode modes this codec implements (typed, tree, lazy, streaming), as codecs/catalogue.yaml
   * lists them for Java; a mode listed there and not implemented fails its trial with the default
   * methods' "has no ... mode" (and CodecRoundTripTest).
   */
  default List<String> decodeModes() {
    return Catalogue.java(id()).modes();
  }

  /** The library, as codecs/catalogue.yaml names it for Java. */
  default String library() {
    return Catalogue.java(id()).library();
  }

  /** The library's version this worker was built with (pom.xml, keyed by the catalogue's name). */
  default String libraryVersion() {
    return LibraryVersions.get(library());
  }

  /**
   * What a reader of the results should know about how this codec runs, from codecs/catalogue.yaml
   * (its {@code {version:NAME}} replaced by this build's versions).
   */
  default String notes() {
    return Catalogue.java(id()).notes();
  }

  /**
   * What each timed region contains (results.proto TimedRegion), from codecs/catalogue.yaml:
   * encode, then one per decode mode in order, with "encode streaming" just before "streaming".
   */
  default List<TimedRegion> timedRegions() {
    return Catalogue.java(id()).timedRegions().stream()
        .map(r -> TimedRegion.newBuilder().setOperation(r.operation()).addAllContains(r.contains())
            .setNote(r.note()).build())
        .toList();
  }

  /**
   * Why this codec does not carry {@code dataset} (a schema feature it has no payload rule or
   * mapping for, naming the first such field: "json: map field acme.Order.attributes is not
   * offered"), or null when it does. Announced on attach (DatasetInfo.refused), so control plans
   * none of its cells; a refused dataset reaching the codec anyway fails with this reason.
   */
  default String refusal(Dataset<?> dataset) {
    return null;
  }

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
   * Timed ({@code streaming} mode): writes the payload of {@code records} onto {@code out} as it
   * goes, record by record, never holding the whole payload; {@code out} is a bounded buffer
   * drained as a socket would be. The bytes are the same as {@link #encode}'s. Flushes {@code out}
   * at the end; does not close it.
   */
  default <R> void encodeStreaming(Dataset<R> dataset, Records<R> records, OutputStream out) throws CodecException {
    throw new CodecException(id() + " offers no streaming mode");
  }

  /**
   * Timed ({@code streaming} mode): reads a payload of {@code dataset} from {@code in} (fed in
   * chunks, as a socket would) and hands each record to {@code sink} as soon as it is complete,
   * holding no more than one record and the reader's buffers; returns the number of records. As
   * strict as {@link #decodeTyped}: anything after the payload's value is an error.
   */
  default <R> long decodeStreaming(Dataset<R> dataset, InputStream in, Consumer<? super R> sink)
      throws CodecException {
    throw new CodecException(id() + " offers no streaming mode");
  }

  /**
   * Not timed: checks that verification runs on a payload before decoding it, for what the
   * library itself does not check (none by default).
   */
  default void validate(byte[] payload) throws CodecException {}
}
