import { fromBinary, toBinary, type Message } from "@bufbuild/protobuf";
import type { Dataset } from "../model/dataset";
import type { Codec, PreparedCodec } from "./codec";
import { libraryVersion } from "./versions";

// protobuf: protobuf-es (@bufbuild/protobuf) on the generated `*Dataset` list messages of
// proto/datasets.proto; the payload is that message's binary encoding, as prost writes it in Rust.
//
// protobuf-es works on its own message objects, not on the native model, so the wire form is the
// list message: toWire/fromWire convert (once, untimed), and only toBinary/fromBinary are timed,
// like prost's encode/decode on prost structs. Bytes are deterministic (fields in field-number
// order, proto3 defaults omitted, packed repeated scalars) and equal Rust's and Java's.

export const protobufCodec: Codec = {
  info: {
    id: "protobuf",
    mediaType: "application/x-protobuf",
    decodeModes: ["typed"],
    library: "@bufbuild/protobuf",
    libraryVersion: libraryVersion("@bufbuild/protobuf"),
    notes: "payload = the dataset's *Dataset message; native model <-> protobuf-es messages converted outside timing; int64 as bigint",
  },
  prepare(dataset: Dataset): PreparedCodec<Message> {
    const schema = dataset.message;
    return {
      toWire: (records) => dataset.toMessage(records),
      encode: (message) => toBinary(schema, message),
      decodeTyped: (payload) => fromBinary(schema, payload),
      fromWire: (message) => dataset.fromMessage(message),
    };
  },
};
