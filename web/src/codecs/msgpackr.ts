import { Packr, Unpackr, isNativeAccelerationEnabled } from "msgpackr";
import type { Dataset } from "../datasets/dataset";
import { hasScalar, LONGS, requireOffered, SCHEMALESS_KINDS } from "../datasets/schema";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { binder } from "./bind";
import { decodeFresh, uint8View, type FreshView } from "./fresh-decode";
import { treeToRecords } from "./tree";
import { catalogued } from "./catalogue";

// msgpack/msgpackr: the same MessagePack wire as msgpack (@msgpack/msgpack), written and read by
// msgpackr, the library Node services choose for speed. One map {"records": [...]}, records as
// maps keyed by wire names. Its own extension is off: useRecords: false (its record extension
// writes objects as record definitions no other library reads); no structured clone, bundled
// strings or shared structures (off unless asked for). Maps are written with a 2-byte count (0xde
// nnnn), valid, not the shortest form (variableMapSize would be): the library's default.
//
// Where it runs decides what it is (package.json "exports"): under Node, "msgpackr" is its Node
// entry, which loads the msgpackr-extract native add-on (prebuilt, an optional dependency) to read
// strings, and the library reads from Buffers with Node's own string slicing; in the page it is
// pure JavaScript. So each decode gets a fresh Buffer view of the payload under Node (Node's
// sockets hand an application Buffers) and a fresh Uint8Array in the page (fresh-decode.ts says
// why fresh). Its notes say which (RUN_TIME), before the catalogue's.
//
// 64-bit integers: a bigint is written as int 64 (0xd3) or, at 2^63 and above, uint 64 (0xcf),
// always 8 bytes; int64AsType "bigint" gives 8-byte integers back as bigint; values another
// writer put in fewer bytes come back as numbers and are widened (bind.ts). Doubles: an integral
// number in the 32-bit range is written as an integer, any other as float 64 (a float field's value
// is a float32 held exactly). Bytes are bin (a Buffer under Node, a Uint8Array in the page), a
// map a map keyed by the key's text, a Timestamp its RFC 3339 string.
//
// Corrupt input: msgpackr 2.1.3 checks every declared array and map length against the bytes left
// before it allocates (arrays also against a per-decode budget), and bytes after the value are an
// error ("Data read, but end of buffer not reached"); corrupt.test.ts proves both.

const NODE_BUFFER = (globalThis as { Buffer?: typeof Buffer }).Buffer;
const view: FreshView = NODE_BUFFER ? (payload) => NODE_BUFFER.from(payload.buffer, payload.byteOffset, payload.byteLength) : uint8View;
const decodeWith = (unpackr: Unpackr, payload: Uint8Array): unknown => decodeFresh(unpackr, payload, view, "MessagePack", "msgpackr");

const CATALOGUED = catalogued("msgpack/msgpackr");
// What only run time knows comes first: whether the add-on loaded, and which views.
const RUN_TIME =
  (isNativeAccelerationEnabled ? "native add-on loaded (msgpackr-extract reads strings)" : "pure JavaScript (no native add-on here)") +
  (NODE_BUFFER ? ", Buffer views" : ", Uint8Array views");

export const msgpackrCodec: Codec = {
  info: { ...CATALOGUED, notes: `${RUN_TIME}; ${CATALOGUED.notes}` },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("msgpack/msgpackr", dataset.record, SCHEMALESS_KINDS);
    const packr = new Packr({ useRecords: false });
    const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "bigint" });
    const treeUnpackr = new Unpackr(hasScalar(dataset.record, LONGS) ? { useRecords: false, int64AsType: "bigint" } : { useRecords: false });
    // 64-bit integers another writer put in fewer bytes are widened; a oneof's members are checked.
    const widen = binder(dataset.record, { scalars: LONGS, typed: true });
    return {
      encode: (records) => packr.pack({ records }),
      decodeTyped: widen ? (payload) => widen(recordsOf(decodeWith(unpackr, payload))) : (payload) => recordsOf(decodeWith(unpackr, payload)),
      decodeTree: (payload) => decodeWith(treeUnpackr, payload),
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
