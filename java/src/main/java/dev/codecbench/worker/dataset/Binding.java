package dev.codecbench.worker.dataset;

import com.fasterxml.jackson.databind.JavaType;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How one record message meets its native model: the model's Jackson type, the list message
 * ({@code *Dataset}) that carries records in protobuf, and the conversions both ways. Typed
 * (no reflection), since protobuf's timed encode and decode run through them.
 *
 * <p>What the descriptors say about the record (its options, schema and fingerprint) the model
 * generator wrote as constants; the descriptor itself is built only when asked for ({@code
 * descriptor}), never on a trial's way to its timed region (Schema says why).
 *
 * @param options a built-in's {@code (codecbench.v1.dataset)} option; null for a user's record, whose manifest gives them
 * @param message the record message's full name
 * @param fingerprint the record schema's fingerprint (proto/README.md)
 * @param schema the record's schema
 * @param descriptor builds (once) and returns the record message's descriptor
 * @param recordType the native model of one record
 * @param parser the list message's parser
 * @param recordsOf the list message's records
 * @param wrap records into a list message
 * @param toModel one record message to the native model
 * @param toProto one native record to its message
 */
public record Binding<D extends Message, P extends Message, R>(
    Dataset.Options options,
    String message,
    String fingerprint,
    Schema schema,
    Supplier<Descriptor> descriptor,
    JavaType recordType,
    Parser<D> parser,
    Function<D, List<P>> recordsOf,
    Function<List<P>, D> wrap,
    Function<P, R> toModel,
    Function<R, P> toProto) {}
