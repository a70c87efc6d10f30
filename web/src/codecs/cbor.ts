// cbor-x's subpaths, not "cbor-x": under Node that entry loads the cbor-extract native addon for
// strings, which the page never has; tests, fuzzing and vectors then run the page's JS decoder.
// cbor-extract stays an optional install of cbor-x; package.json pins it to 2.2.2 (overrides),
// the newest whose platform packages the registry serves, so that `npm ci` finds a complete lock.
import { Decoder } from "cbor-x/decode";
import { Encoder } from "cbor-x/encode";
import type { Dataset } from "../datasets/dataset";
import { hasScalar, LONGS, requireOffered, SCHEMALESS_KINDS } from "../datasets/schema";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { binder } from "./bind";
import { decodeFresh, uint8View } from "./fresh-decode";
import { treeToRecords } from "./tree";
import { catalogued } from "./catalogue";

// cbor: cbor-x, one map {"records": [...]}, records as maps keyed by wire names, plain RFC 8949
// that ciborium and Jackson read. cbor-x's own extensions are off: useRecords: false (its default
// record extension writes objects as tag-0xdfff record definitions no other library reads), no
// structuredClone (tag 28/29 references), pack, bundleStrings, shared structures or
// self-described header (all off unless asked for); tagUint8Array: false (Node would tag 64).
// Objects are written as maps with a 2-byte count (0xb9 nnnn): valid, not the shortest form
// (variableMapSize would be), which is what the library does by default.
//
// 64-bit integers (int64, uint64 and their zigzag and fixed forms): the encoder writes a bigint as
// an 8-byte integer (0x1b / 0x3b, major type 0/1, so uint64 up to 2^64 - 1), and the decoder gives
// 8-byte integers back as bigint (int64AsNumber off, the default, in tree mode too); values
// another writer put in fewer bytes come back as numbers and are widened (bind.ts). Doubles and
// floats: the library writes an integral number in [-2^32, 2^32) (2166.0, and -0.0 as 0) as an
// integer and any other as float64 (a float field's value is a float32 held exactly); it reads
// float16/32/64 and integers alike into a JS number. Bytes are a byte string (major type 2, a
// Uint8Array both ways), a map a map keyed by the key's text, a Timestamp its RFC 3339 string.
//
// Corrupt input: cbor-x 1.6.9 checks every declared array, map, text and byte-string length
// against the bytes left before it allocates (arrays also against a per-decode budget, so nested
// headers cannot add up), and refuses 64-bit lengths over 2^32 outright; corrupt.test.ts proves
// it, so no guard is added here. Bytes after the value are an error ("Data read, but end of
// buffer not reached").

const options = { useRecords: false, mapsAsObjects: true, tagUint8Array: false } as const;

// Each decode reads a fresh view of the payload, and engine errors from inside the library (its tag
// decoders trust the tagged content's shape: `d8 69 62 69 69` fails in a TypeError, `c2 f6` on
// null, a regexp tag in RegExp's SyntaxError) come back as one Error: fresh-decode.ts says why.
const decodeWith = (decoder: Decoder, payload: Uint8Array): unknown => decodeFresh(decoder, payload, uint8View, "CBOR", "cbor-x");

export const cborCodec: Codec = {
  info: catalogued("cbor"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("cbor", dataset.record, SCHEMALESS_KINDS);
    const encoder = new Encoder({ ...options });
    const decoder = new Decoder({ ...options });
    const treeDecoder = new Decoder({ useRecords: false });
    // 64-bit integers another writer put in fewer bytes are widened; a oneof's members are checked.
    const widen = binder(dataset.record, { scalars: LONGS, typed: true });
    return {
      encode: (records) => encoder.encode({ records }),
      decodeTyped: widen ? (payload) => widen(recordsOf(decodeWith(decoder, payload))) : (payload) => recordsOf(decodeWith(decoder, payload)),
      decodeTree: (payload) => decodeWith(treeDecoder, payload),
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
