import { DecodeError, Decoder, Encoder } from "@msgpack/msgpack";
import type { Dataset } from "../datasets/dataset";
import { hasScalar, LONGS, requireOffered, SCHEMALESS_KINDS } from "../datasets/schema";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { binder } from "./bind";
import { treeToRecords } from "./tree";
import { catalogued } from "./catalogue";

// msgpack: @msgpack/msgpack, one map {"records": [...]}, records as maps keyed by wire names.
//
// 64-bit integers (int64, uint64 and their zigzag and fixed forms): useBigInt64 makes the encoder
// write a bigint as a 64-bit integer (uint 64 when >= 0, so up to 2^64 - 1; int 64 otherwise: the
// library always uses 8 bytes for a bigint, where rmp-serde picks the smallest width) and the
// decoder give 64-bit integers back as bigint; values that another writer put in fewer bytes come
// back as numbers and are widened (bind.ts). Tree mode decodes with useBigInt64 too for a schema
// with 64-bit integers: without it the library reads a uint 64 / int 64 as a double, rounding
// anything beyond 2^53. Doubles and floats: the library writes an integral number (2166.0) as an
// integer and any other as float 64 (a float field's value is a float32 held exactly); both decode
// to the same JS number, and Rust/Java read an integer into a double field. Bytes are bin
// (Uint8Array both ways), a map a map keyed by the key's text, a Timestamp its RFC 3339 string.

// An array header declares its length and the library allocates new Array(length) before it reads
// an element: `dd 00 ff ff ff` (5 bytes) took 129 MiB, four of them nested 385 MiB, so a few
// hundred bytes could run the page out of memory. Every element takes at least one byte, so a
// length beyond the bytes left is refused first (valid input never is). The library has no hook:
// its pushArrayState method is wrapped by name (the version is pinned; checked on load).
interface DecoderInternals {
  pushArrayState(size: number): void;
  view: DataView;
  pos: number;
}
const pushArrayState = (Decoder.prototype as unknown as DecoderInternals).pushArrayState;
if (typeof pushArrayState !== "function" || !/maxArrayLength/.test(String(pushArrayState))) {
  throw new Error(`@msgpack/msgpack ${catalogued("msgpack").libraryVersion}: Decoder.pushArrayState changed; src/codecs/msgpack.ts must be adapted`);
}
class BoundedDecoder extends Decoder {}
(BoundedDecoder.prototype as unknown as DecoderInternals).pushArrayState = function (this: DecoderInternals, size: number): void {
  const left = this.view.byteLength - this.pos;
  if (size > left) throw new DecodeError(`array of ${size} elements exceeds the ${left} bytes left in the input`);
  pushArrayState.call(this, size);
};

export const msgpackCodec: Codec = {
  info: catalogued("msgpack"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("msgpack", dataset.record, SCHEMALESS_KINDS);
    const encoder = new Encoder({ useBigInt64: true });
    const decoder = new BoundedDecoder({ useBigInt64: true });
    const treeDecoder = hasScalar(dataset.record, LONGS) ? new BoundedDecoder({ useBigInt64: true }) : new BoundedDecoder();
    // 64-bit integers another writer put in fewer bytes are widened; a oneof's members are checked.
    const widen = binder(dataset.record, { scalars: LONGS, typed: true });
    return {
      encode: (records) => encoder.encode({ records }),
      decodeTyped: widen ? (payload) => widen(recordsOf(decoder.decode(payload))) : (payload) => recordsOf(decoder.decode(payload)),
      decodeTree: (payload) => treeDecoder.decode(payload),
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
