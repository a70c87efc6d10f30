import { messageFields, type FieldType } from "../model/schema";
import { recordsOf } from "./codec";

// Tree mode's verification (never timed): a library's generic document -> model records, so it
// can be compared field by field with the canonical ones. Generic decoders give int64 values as
// numbers (or a bson Long beyond 2^53); the model holds them as bigint. Everything else in these
// trees already has the model's JS type. Values of the wrong type are left for compare to name.

function bind(type: FieldType, value: unknown): unknown {
  if (typeof type === "string") {
    if (type !== "int64") return value;
    if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
    const long = value as { toBigInt?: () => bigint } | null;
    if (typeof long === "object" && long !== null && typeof long.toBigInt === "function") return long.toBigInt();
    return value;
  }
  if (type.kind === "repeated") return Array.isArray(value) ? value.map((item) => bind(type.of, item)) : value;
  // An unset optional field has no key, so only set values get here; enum names are strings already.
  if (type.kind === "optional") return bind(type.of, value);
  if (type.kind === "enum") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) out[key] = source[key];
  for (const [name, fieldType] of messageFields(type)) if (name in source) out[name] = bind(fieldType, source[name]);
  return out;
}

/** The records of a generic document {"records": [...]}, as model records. */
export function treeToRecords(record: FieldType, tree: unknown): unknown[] {
  return recordsOf(tree).map((item) => bind(record, item));
}
