import { BSON, BSONError, Double } from "bson";
import type { Dataset } from "../model/dataset";
import { hasDouble, messageFields, requireOffered, type FieldType } from "../model/schema";
import { lazyBsonReader } from "./bson-lazy";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { treeToRecords } from "./tree";
import { libraryVersion } from "./versions";

// bson: js-bson, one document {"records": [...]}; lazy reads are in bson-lazy.ts.
//
// Types on the wire follow the proto types (proto/README.md): js-bson writes a JS number that is
// an integer in int32 range as int32 (0x10), which is right for int32 fields, and a bigint as
// int64 (0x12), which is right for int64 fields. A double field whose value happens to be an
// integer (balance 2166.0) would also come out as int32, so the encoder wraps every double field
// in a `Double` (0x01). That wrapping is part of encoding from the model objects, so it is inside
// the timed region (declared as model-conversion); subtrees without doubles are passed through
// untouched. Typed decoding uses useBigInt64, so BSON.deserialize gives exactly the model objects
// (plain objects, int64 as bigint) and no separate conversion exists; tree mode is
// BSON.deserialize with default options (int64 as number, or Long beyond 2^53).

type Mapper = (value: unknown) => unknown;

/** A function giving js-bson the value with doubles wrapped, or null when no double is below. */
function doubleWrapper(type: FieldType): Mapper | null {
  if (!hasDouble(type)) return null;
  if (typeof type === "string") return (value) => new Double(value as number);
  if (type.kind === "repeated") {
    const of = doubleWrapper(type.of) as Mapper;
    return (value) => (value as unknown[]).map(of);
  }
  if (type.kind === "optional") return doubleWrapper(type.of);
  const fields = messageFields(type).map(([name, fieldType]) => [name, doubleWrapper(fieldType)] as const);
  return (value) => {
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, map] of fields) {
      const v = source[name];
      // An unset optional field stays out: js-bson would write an undefined value as null.
      if (v !== undefined) out[name] = map ? map(v) : v;
    }
    return out;
  };
}

const deserializeOptions: BSON.DeserializeOptions = { useBigInt64: true, validation: { utf8: true } };
const treeOptions: BSON.DeserializeOptions = { validation: { utf8: true } };

/**
 * BSON.deserialize, failing only with BSONError. js-bson reads a fixed-size value cut off by the end
 * of the input as NaN, and with useBigInt64 BigInt(NaN) throws a RangeError before its own bounds
 * check (BSON corpus int64.json "int64 field truncated"): any such error is the malformed input's.
 */
function deserialize(payload: Uint8Array, options: BSON.DeserializeOptions): BSON.Document {
  try {
    return BSON.deserialize(payload, options);
  } catch (error) {
    if (BSONError.isBSONError(error)) throw error;
    throw new BSONError(`malformed BSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** The bson codec's typed decode of one whole document. */
export function deserializeBson(payload: Uint8Array): BSON.Document {
  return deserialize(payload, deserializeOptions);
}

export const bsonCodec: Codec = {
  info: {
    id: "bson",
    mediaType: "application/bson",
    decodeModes: ["typed", "tree", "lazy"],
    library: "bson (js-bson)",
    libraryVersion: libraryVersion("bson"),
    notes:
      "double fields wrapped in bson.Double during encode so integral doubles stay 0x01; int64 as bigint (useBigInt64); " +
      "tree = deserialize with default options; lazy = a hand-written walk over the raw bytes that stops at each named field",
    timedRegions: [
      {
        operation: "encode",
        contains: ["model-conversion", "serialize", "copy"],
        note:
          "double fields wrapped in bson.Double, then BSON.serialize, which writes into js-bson's shared buffer and copies the document out; " +
          "js-bson's browser build encodes every key and string value with a new TextEncoder().encode (an allocation per string), which dominates its cost",
      },
      { operation: "typed", contains: ["parse"], note: "BSON.deserialize (useBigInt64, UTF-8 checked) gives the model objects directly: no separate conversion exists in JavaScript" },
      { operation: "tree", contains: ["parse"], note: "BSON.deserialize with default options (UTF-8 checked; int64 as number, Long beyond 2^53)" },
      {
        operation: "lazy",
        contains: ["field-lookup"],
        note: "per record, skips elements by their sizes until each named field (descending dotted paths), decodes only that value; no record is materialised",
      },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("bson", dataset.record);
    const wrap = doubleWrapper(dataset.record);
    // js-bson serializes into a shared 17 MiB buffer and throws RangeError past it: on that, grow
    // the buffer to the document's size (it stays grown), so only the first call of a large
    // payload, which is the untimed verification call, pays for it.
    const serialize = (document: object): Uint8Array => {
      try {
        return BSON.serialize(document);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        BSON.setInternalBufferSize(BSON.calculateObjectSize(document));
        return BSON.serialize(document);
      }
    };
    let lazy: { fields: readonly string[]; read: (payload: Uint8Array) => string[] } | undefined;
    return {
      encode: (records) => serialize({ records: wrap ? records.map(wrap) : records }),
      decodeTyped: (payload) => recordsOf(deserializeBson(payload)),
      decodeTree: (payload) => deserialize(payload, treeOptions),
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
      decodeLazy: (payload, fields) => {
        // The field paths are compiled once per field list (outside the trial's timing loop).
        if (!lazy || lazy.fields !== fields) lazy = { fields, read: lazyBsonReader(fields) };
        return lazy.read(payload);
      },
    };
  },
};
