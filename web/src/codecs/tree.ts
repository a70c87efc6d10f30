import type { FieldType } from "../datasets/schema";
import { binder, BOUND_SCALARS } from "./bind";
import { recordsOf } from "./codec";

// Tree mode's verification (never timed): a library's generic document -> model records, so it
// can be compared field by field with the canonical ones. Generic decoders give 64-bit integers as
// numbers, bigints or bson Longs, bytes as base64 text, Binary or byte lists, uint32 as bson's
// int64; bind.ts turns each into the model's type. Values of the wrong type are left for compare
// to name (a second oneof member too: compare finds it set where the canonical record has none).

/** The records of a generic document {"records": [...]}, as model records (bound in place). */
export function treeToRecords(record: FieldType, tree: unknown): unknown[] {
  const records = recordsOf(tree);
  return binder(record, { scalars: BOUND_SCALARS, typed: false })?.(records) ?? records;
}
