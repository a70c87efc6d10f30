import { BSON, BSONError, Double } from "bson";
import type { Dataset } from "../datasets/dataset";
import { hasScalar, requireOffered, WITHOUT_UINT64, type FieldType } from "../datasets/schema";
import { binder } from "./bind";
import { lazyBsonReader } from "./bson-lazy";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { modelMapper, type Mapper } from "./mapper";
import { treeToRecords } from "./tree";
import { catalogued } from "./catalogue";

// bson: js-bson, one document {"records": [...]}; lazy reads are in bson-lazy.ts.
//
// Types on the wire follow the proto types (proto/README.md): js-bson writes a JS number that is
// an integer in int32 range as int32 (0x10), which is right for int32 fields, and a bigint as
// int64 (0x12), which is right for int64 fields. A double field whose value happens to be an
// integer (balance 2166.0) would also come out as int32, so the encoder wraps every double field
// in a `Double` (0x01). That wrapping is part of encoding from the model objects, so it is inside
// the timed region (declared as model-conversion); subtrees without doubles are passed through
// untouched. A float is a double (0x01) too, and a uint32 or fixed32 is written as int64 (0x12, a
// bigint to js-bson: proto/README.md), as no BSON int32 holds 2^32 - 1. Bytes are binary subtype
// 0x00 (js-bson's form of a Uint8Array), a Timestamp its RFC 3339 string, a map an embedded
// document keyed by the key's text; uint64 and fixed64 are refused (BSON's int64 is signed).
// Typed decoding uses useBigInt64 (and promoteBuffers for schemas with bytes), so BSON.deserialize
// gives the model objects (plain objects, int64 as bigint, bytes as Uint8Array); only a uint32 read
// back from int64 and a oneof's members are then bound (bind.ts, schemas with those only). Tree
// mode is BSON.deserialize with default options (int64 as number, or Long beyond 2^53).

const wrapDouble: Mapper = (value) => new Double(value as number);
const widenUint32: Mapper = (value) => BigInt(value as number);

/** A function giving js-bson the value with doubles and floats wrapped and uint32s as bigints, or null when none is below. */
function encodeMapper(type: FieldType): Mapper | null {
  return modelMapper(type, {
    leaf: (leaf) => (leaf === "double" || leaf === "float" ? wrapDouble : leaf === "uint32" || leaf === "fixed32" ? widenUint32 : null),
  });
}

const deserializeOptions: BSON.DeserializeOptions = { useBigInt64: true, validation: { utf8: true } };
const bytesOptions: BSON.DeserializeOptions = { ...deserializeOptions, promoteBuffers: true };
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

/** The bson codec's typed decode of one whole document (`bytes`: binary values as Uint8Array). */
export function deserializeBson(payload: Uint8Array, bytes = false): BSON.Document {
  return deserialize(payload, bytes ? bytesOptions : deserializeOptions);
}

export const bsonCodec: Codec = {
  info: catalogued("bson"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("bson", dataset.record, WITHOUT_UINT64);
    const wrap = encodeMapper(dataset.record);
    const bytes = hasScalar(dataset.record, new Set(["bytes"]));
    const bind = binder(dataset.record, { scalars: new Set(["uint32", "fixed32"]), typed: true });
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
      decodeTyped: bind ? (payload) => bind(recordsOf(deserializeBson(payload, bytes))) : (payload) => recordsOf(deserializeBson(payload, bytes)),
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
