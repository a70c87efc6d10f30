import { UbjsonDecoder, UbjsonEncoder } from "@shelacek/ubjson/dist/ubjson.es.js";
import type { Dataset } from "../model/dataset";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { int64Widener } from "./int64";
import { treeToRecords } from "./tree";
import { libraryVersion } from "./versions";

// ubjson (Draft 12): @shelacek/ubjson, one object {"records": [...]}, unsized containers (the
// library's default, as Rust writes). Decoding accepts any Draft-12 form (sized/typed containers).
//
// What the library gets wrong for this data, and what this file does about it:
// - int64, encode: it throws on a bigint, and writes an integer number beyond int32 as a float
//   ('D', or 'd' when float32 holds it): an int64 would arrive as a double or be rejected.
//   The encoder below writes a bigint in the smallest integer marker that holds it (i/U/I/l, as
//   Rust does) and otherwise as 'L' (int64, big-endian).
// - int64, decode: it has no int64 type either; its documented `int64Handling` hook reads 'L' as a
//   bigint here, and int64 fields that came in narrower markers are widened (int64.ts).
// - A container's declared count is capped by the input's size (see below): a 9-byte payload
//   could declare 2^31 nulls and run the page out of memory.
// - A payload cut inside an unsized container could crash the page: at the end of the input the
//   decoder's look-ahead steps back a byte and reads the last byte again as a marker, so `[Z` (an
//   array cut after a null) grows an array of nulls until memory runs out. The decoder below
//   treats the end of the input where a marker is due as an error.
// The library exposes no hook for either patch, so two methods of its minified ES build are
// wrapped by their built names; the version is pinned and the names are checked when this module
// loads, so an upgrade that moves them fails loudly here, not with wrong bytes.
// Doubles: an integral double (2166.0) is written as an integer marker and one float32 holds
// exactly as 'd'; both decode to the same number, and Rust/Java read them into a double field.

type Packer = { storer: (storage: { view: DataView }, offset: number) => void; byteLength: number };

interface EncoderInternals {
  /** _getType(value): the marker for a value. */
  u(value: unknown): string;
  /** _encodeValue(value, type): packers writing the value after its marker. */
  l(value: unknown, type: string): Packer[];
}

interface DecoderInternals {
  /** _readType(lookahead): the next marker, skipping no-ops; 'N' only at the end of the input. */
  m(lookahead: boolean): string;
  /** _readContainerHeader(): a container's optional $type and #count. */
  Z(): { type: string | undefined; count: number | undefined };
  /** The input being decoded, and the read position in it. */
  D: { array: Uint8Array };
  S: number;
}

const encoderProto = UbjsonEncoder.prototype as unknown as EncoderInternals;
const decoderProto = UbjsonDecoder.prototype as unknown as DecoderInternals;
// Fingerprints that survive re-minification by the page's bundler (which rewrites quotes).
const fingerprints = [
  [encoderProto.u, /Value cannot be serialized/],
  [encoderProto.l, /setFloat64/],
  [decoderProto.m, /fromCharCode\(.*getInt8/],
  [decoderProto.Z, /Expected count marker/],
  // The bounds check, which names the input (D.array) and the position (S).
  [(decoderProto as unknown as { R: unknown }).R, /this\.S\s*\+\s*\w+\s*>\s*this\.D\.array\.byteLength/],
] as const;
if (!fingerprints.every(([method, pattern]) => typeof method === "function" && pattern.test(String(method)))) {
  throw new Error(`@shelacek/ubjson ${libraryVersion("@shelacek/ubjson")}: its built method names changed; src/codecs/ubjson.ts must be adapted`);
}

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

class Int64Encoder extends UbjsonEncoder {}
const int64EncoderProto = Int64Encoder.prototype as unknown as EncoderInternals;
int64EncoderProto.u = function (this: EncoderInternals, value: unknown): string {
  if (typeof value !== "bigint") return encoderProto.u.call(this, value);
  return value >= INT32_MIN && value <= INT32_MAX ? encoderProto.u.call(this, Number(value)) : "L";
};
int64EncoderProto.l = function (this: EncoderInternals, value: unknown, type: string): Packer[] {
  if (typeof value !== "bigint") return encoderProto.l.call(this, value, type);
  if (type !== "L") return encoderProto.l.call(this, Number(value), type);
  return [{ storer: ({ view }, offset) => view.setBigInt64(offset, value), byteLength: 8 }];
};

class CheckedDecoder extends UbjsonDecoder {
  emptyElementsLeft = 0;
  override decode(buffer: ArrayBuffer) {
    this.emptyElementsLeft = buffer.byteLength;
    try {
      return super.decode(buffer);
    } catch (error) {
      // The library recurses per container: ~10^5 nested '[' overflow the stack. That is the
      // input's fault, reported as the library's own Error type.
      if (error instanceof RangeError && /call stack/i.test(error.message)) throw new Error(`containers nested too deep for the decoder (${error.message})`);
      throw error;
    }
  }
}
(CheckedDecoder.prototype as unknown as DecoderInternals).m = function (this: DecoderInternals, lookahead: boolean): string {
  const marker = decoderProto.m.call(this, lookahead);
  if (marker === "N") throw new Error("Unexpected EOF");
  return marker;
};
// A container's declared #count is checked before the library uses it. Elements of a typed
// container of Z/T/F take no bytes and the library fills Array(count): `[$Z#l` with count 2^24
// built a 16M-element array (121 MiB) from 9 bytes, and 2^31-1 ran the page out of memory. So
// those elements share a budget of one per input byte per decode (memory stays linear in the
// input), and any other container may not declare more elements than bytes are left (each takes
// at least one: that only fails early).
interface Budgeted extends DecoderInternals {
  emptyElementsLeft: number;
}
(CheckedDecoder.prototype as unknown as DecoderInternals).Z = function (this: Budgeted) {
  const header = decoderProto.Z.call(this);
  const { type, count } = header;
  if (count === undefined) return header;
  if (type === "Z" || type === "T" || type === "F") {
    this.emptyElementsLeft -= count;
    if (this.emptyElementsLeft < 0) throw new Error(`container count ${count} of ${type} elements exceeds the cap of one such element per input byte`);
  } else {
    const left = this.D.array.byteLength - this.S;
    if (count > left) throw new Error(`container count ${count} exceeds the ${left} bytes left in the input`);
  }
  return header;
};

/** The payload as the whole ArrayBuffer the library wants (a view into a larger buffer is copied). */
function arrayBufferOf(payload: Uint8Array): ArrayBuffer {
  const { buffer } = payload;
  if (buffer instanceof ArrayBuffer && payload.byteOffset === 0 && payload.byteLength === buffer.byteLength) return buffer;
  return payload.slice().buffer;
}

export const ubjsonCodec: Codec = {
  info: {
    id: "ubjson",
    mediaType: "application/ubjson",
    decodeModes: ["typed", "tree"],
    library: "@shelacek/ubjson",
    libraryVersion: libraryVersion("@shelacek/ubjson"),
    notes:
      "Draft 12, unsized containers; int64 written as the smallest integer marker or 'L' (the library has no int64: two built methods wrapped), " +
      "read through int64Handling as bigint; end of input where a marker is due is an error (the library looped until out of memory); " +
      "container counts capped by the input's size (the library filled Array(count) for typed null/bool containers); " +
      "tree = the library's decode without widening",
    timedRegions: [
      { operation: "encode", contains: ["serialize"], note: "UbjsonEncoder.encode of the model objects (int64 patch) into one ArrayBuffer, viewed as bytes without a copy" },
      {
        operation: "typed",
        contains: ["parse", "model-conversion"],
        note: "UbjsonDecoder.decode ('L' read as bigint through int64Handling); the conversion widens int64 fields that came in narrower markers to bigint (datasets with int64 only)",
      },
      { operation: "tree", contains: ["parse"], note: "UbjsonDecoder.decode ('L' as bigint, the only way the library reads it), no conversion" },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    const encoder = new Int64Encoder();
    const decoder = new CheckedDecoder({ int64Handling: ({ view }, offset) => view.getBigInt64(offset) });
    const widen = int64Widener(dataset.record);
    const decode = (payload: Uint8Array): unknown => decoder.decode(arrayBufferOf(payload));
    return {
      encode: (records) => new Uint8Array(encoder.encode({ records })),
      decodeTyped: widen ? (payload) => widen(recordsOf(decode(payload))) : (payload) => recordsOf(decode(payload)),
      decodeTree: decode,
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
