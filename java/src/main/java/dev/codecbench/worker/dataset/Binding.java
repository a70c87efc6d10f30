package dev.codecbench.worker.dataset;

import com.fasterxml.jackson.databind.JavaType;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.util.List;
import java.util.function.Function;

/**
 * How one record message meets its native model: the model's Jackson type, the list message
 * ({@code *Dataset}) that carries records in protobuf, and the conversions both ways. Typed
 * (no reflection), since protobuf's timed encode and decode run through them.
 *
 * @param record the record message
 * @param recordType the native model of one record
 * @param parser the list message's parser
 * @param recordsOf the list message's records
 * @param wrap records into a list message
 * @param toModel one record message to the native model
 * @param toProto one native record to its message
 */
public record Binding<D extends Message, P extends Message, R>(
    Descriptor record,
    JavaType recordType,
    Parser<D> parser,
    Function<D, List<P>> recordsOf,
    Function<List<P>, D> wrap,
    Function<P, R> toModel,
    Function<R, P> toProto) {}
