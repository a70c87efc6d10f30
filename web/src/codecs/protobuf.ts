import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Dataset } from "../datasets/dataset";
import type { Codec, PreparedCodec } from "./codec";
import { catalogued } from "./catalogue";

// protobuf: protobuf-es (@bufbuild/protobuf) on the generated `*Dataset` list messages of
// proto/datasets.proto; the payload is that message's binary encoding, as prost writes it in Rust.
//
// protobuf-es works on its own message objects, not on the page's model objects, so encode builds
// the list message from the model (create) and calls toBinary, and typed decode calls fromBinary
// and converts the messages back to model objects: both conversions are timed (DESIGN.md rule 1,
// one boundary) and declared. protobuf-es memoises no sizes across calls. Bytes are deterministic (fields in field-number
// order, proto3 defaults omitted, packed repeated scalars) and equal Rust's and Java's.

export const protobufCodec: Codec = {
  info: catalogued("protobuf"),
  prepare(dataset: Dataset): PreparedCodec {
    const schema = dataset.message;
    return {
      encode: (records) => toBinary(schema, dataset.toMessage(records)),
      decodeTyped: (payload) => dataset.fromMessage(fromBinary(schema, payload)),
    };
  },
};
