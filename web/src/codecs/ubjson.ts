import type { Dataset } from "../model/dataset";
import { requireOffered } from "../model/schema";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { int64Widener } from "./int64";
import { decodeUbjson } from "./ubjson-read";
import { encoderOf } from "./ubjson-write";
import { treeToRecords } from "./tree";
import { libraryVersion } from "./versions";

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
// enums by name (S), an unset proto3 `optional` field left out. A JS number cannot tell 2166.0
// from 2166; the schema can.
//
// Decoding (ubjson-read.ts) reads every Draft 12 form (all numeric markers, C, H as a string, N no-ops, containers
// with $type and #count) into plain JS values: objects in wire order, 'L' as bigint, every other
// integer and float as number. It refuses, with an Error naming the offset: input that ends early,
// unknown markers, bad counts, invalid UTF-8, bytes after the value, containers nested deeper than
// MAX_DEPTH (iteration would not help a page that must then hold them), and container counts the
// input cannot hold.

export const ubjsonCodec: Codec = {
  info: {
    id: "ubjson",
    mediaType: "application/ubjson",
    decodeModes: ["typed", "tree"],
    library: "codecbench ubjson (project-owned, Draft 12)",
    libraryVersion: libraryVersion("codecbench-web"),
    notes:
      "no maintained JS library has int64 (src/codecs/ubjson.ts says why); written from the dataset's schema as Rust writes it " +
      "(smallest integer markers, float64 for doubles, unsized containers); decode reads every Draft 12 form, 'L' as bigint; tree = plain JS values",
    timedRegions: [
      { operation: "encode", contains: ["serialize", "utf8"], note: "the model objects walked by a writer compiled from the schema into one growing buffer, viewed as bytes without a copy" },
      {
        operation: "typed",
        contains: ["parse", "utf8", "model-conversion"],
        note: "the generic decode ('L' as bigint); the conversion widens int64 fields that came in narrower markers to bigint (datasets with int64 only)",
      },
      { operation: "tree", contains: ["parse", "utf8"], note: "the generic decode into plain JS values, no conversion" },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("ubjson", dataset.record);
    const encode = encoderOf(dataset.record);
    const widen = int64Widener(dataset.record);
    return {
      encode,
      decodeTyped: widen ? (payload) => widen(recordsOf(decodeUbjson(payload))) : (payload) => recordsOf(decodeUbjson(payload)),
      decodeTree: decodeUbjson,
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
