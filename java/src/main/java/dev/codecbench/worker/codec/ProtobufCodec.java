package dev.codecbench.worker.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.codecbench.worker.LibraryVersions;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.util.List;

/**
 * protobuf: protobuf-java on the generated {@code *Dataset} messages of proto/datasets.proto. The
 * payload is the {@code *Dataset} message's encoding, byte for byte what prost writes (fields in
 * field-number order, defaults omitted, no unknown fields).
 *
 * <p>protobuf-java serialises its own generated classes, not the native model. Converting between
 * the two is model conversion, which DESIGN.md rule 1 keeps out of every timed region: {@link
 * #encoder} converts once before timing and times {@code toByteArray()} alone; {@link
 * #typedDecoder} times {@code parseFrom()} alone (every field is materialised into the generated
 * message); {@link #decodeTyped}, which verification runs, also converts back to the native model.
 */
public final class ProtobufCodec implements Codec {
  private static final String ID = "protobuf";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String mediaType() {
    return "application/x-protobuf";
  }

  @Override
  public List<String> decodeModes() {
    return List.of(TYPED);
  }

  @Override
  public String library() {
    return "protobuf-java";
  }

  @Override
  public String libraryVersion() {
    return LibraryVersions.get("protobuf-java");
  }

  @Override
  public String notes() {
    return "generated *Dataset messages; timed: toByteArray() and parser().parseFrom() only; "
        + "converting the native model to and from the generated messages is outside the timed region";
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    return encodeMessage(toMessage(dataset, records));
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    Message message = parse(dataset, payload);
    try {
      return dataset.fromProto(message);
    } catch (RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }

  @Override
  public List<String> decodeLazy(byte[] payload, String field) throws CodecException {
    throw new CodecException(ID + " has no lazy decode mode");
  }

  @Override
  public <R> Timed encoder(Dataset<R> dataset, Records<R> records) throws CodecException {
    Message message = toMessage(dataset, records);
    return () -> encodeMessage(message);
  }

  @Override
  public <R> Timed typedDecoder(Dataset<R> dataset, byte[] payload) {
    return () -> parse(dataset, payload);
  }

  private static <R> Message toMessage(Dataset<R> dataset, Records<R> records) throws CodecException {
    try {
      return dataset.toProto(records);
    } catch (RuntimeException e) {
      // A null string or list in the model: protobuf has no null.
      throw CodecException.wrap(ID, "encode", e);
    }
  }

  private static byte[] encodeMessage(Message message) {
    return message.toByteArray();
  }

  private static Message parse(Dataset<?> dataset, byte[] payload) throws CodecException {
    try {
      return dataset.protoParser().parseFrom(payload);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw CodecException.wrap(ID, "decode", e);
    }
  }
}
