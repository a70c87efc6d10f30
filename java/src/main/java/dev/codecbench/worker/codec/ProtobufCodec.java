package dev.codecbench.worker.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;

/**
 * protobuf: protobuf-java on the generated {@code *Dataset} messages of proto/datasets.proto. The
 * payload is the {@code *Dataset} message's encoding, byte for byte what prost writes (fields in
 * field-number order, defaults omitted, no unknown fields).
 *
 * <p>One boundary (the lead's decision for Java): the application's objects are the model records
 * for every codec, so encode builds fresh generated messages from the records and serialises them
 * (a fresh message every operation: no memoised serialized size is reused), and typed decode
 * parses and converts the messages back to records. Both declare "model-conversion".
 */
public final class ProtobufCodec implements Codec {
  private static final String ID = "protobuf";

  @Override
  public String id() {
    return ID;
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
