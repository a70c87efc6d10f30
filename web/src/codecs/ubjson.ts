import type { Dataset } from "../datasets/dataset";
import { LONGS, requireOffered, WITHOUT_UINT64 } from "../datasets/schema";
import { binder } from "./bind";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { decodeUbjson } from "./ubjson-read";
import { encoderOf } from "./ubjson-write";
import { treeToRecords } from "./tree";
import { catalogued } from "./catalogue";

export { decodeUbjson } from "./ubjson-read";

// ubjson (Universal Binary JSON, Draft 12), written here, as in Rust (rust/codecs/src/ubjson.rs),
// and for the same reason: no JS library does the job. The one the page used before
// (@shelacek/ubjson 1.1.1) has no int64 (it throws on a bigint and writes an integer beyond int32
// as a float), exposes no hook to add it, and decodes recursively with no depth limit (the 1 MiB
// matrix payload overflowed the page's stack); keeping it meant patching its minified private
// methods by name. The format is small.
//
// Encoding (ubjson-write.ts) is driven by the dataset's schema, so the page writes what Rust
// writes, byte for byte: one object {"records": [...]}, fields in proto order, unsized containers,
// integers in the smallest marker that holds them (i, U, I, l, L), doubles always as float64 (D),
// floats as float32 (d), bytes as [$U#<length><bytes>, enums by name (S), a Timestamp its RFC 3339
// string, a map an object, an unset proto3 `optional` field or oneof member left out. A JS number
// cannot tell 2166.0 from 2166; the schema can. uint64 and fixed64 are refused: UBJSON's largest
// integer is a signed int64 (proto/README.md).
//
// Decoding (ubjson-read.ts) reads every Draft 12 form (all numeric markers, C, H as a string, N no-ops, containers
// with $type and #count) into plain JS values: objects in wire order, 'L' as bigint, every other
// integer and float as number, an optimised array of uint8 as a Uint8Array. It refuses, with an Error naming the offset: input that ends early,
// unknown markers, bad counts, invalid UTF-8, bytes after the value, containers nested deeper than
// MAX_DEPTH (iteration would not help a page that must then hold them), and container counts the
// input cannot hold.

export const ubjsonCodec: Codec = {
  info: catalogued("ubjson"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("ubjson", dataset.record, WITHOUT_UINT64);
    const encode = encoderOf(dataset.record);
    // A uint32 above 2^31 - 1 is written as 'L' (UBJSON's int32 is signed), which reads as a bigint.
    const widen = binder(dataset.record, { scalars: new Set([...LONGS, "uint32", "fixed32", "bytes"]), typed: true });
    return {
      encode,
      decodeTyped: widen ? (payload) => widen(recordsOf(decodeUbjson(payload))) : (payload) => recordsOf(decodeUbjson(payload)),
      decodeTree: decodeUbjson,
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
