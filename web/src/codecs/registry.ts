import { bsonCodec } from "./bson";
import { cborCodec } from "./cbor";
import type { Codec } from "./codec";
import { flatbuffersCodec } from "./flatbuffers";
import { jsonCodec } from "./json";
import { msgpackCodec } from "./msgpack";
import { msgpackrCodec } from "./msgpackr";
import { protobufCodec } from "./protobuf";
import { ubjsonCodec } from "./ubjson";
import { xmlCodec } from "./xml";

// Every codec the browser and Node workers offer, by id (a format's reference implementation by
// the format, another library as `<format>/<name>`). Adding a codec = one module + one line here.
export const codecs: ReadonlyMap<string, Codec> = new Map(
  [jsonCodec, bsonCodec, protobufCodec, ubjsonCodec, msgpackCodec, cborCodec, xmlCodec, flatbuffersCodec, msgpackrCodec].map((codec) => [codec.info.id, codec]),
);

export function codecById(id: string): Codec {
  const codec = codecs.get(id);
  if (!codec) throw new Error(`unknown codec ${JSON.stringify(id)} (this worker offers ${[...codecs.keys()].join(", ")})`);
  return codec;
}
