import type { FieldType, Scalar } from "./schema";
import { sameInstant } from "./timestamp";

// Field-by-field comparison of decoded records with the canonical ones, walking the record schema
// (src/datasets/schema.ts): the same rules for every dataset. Returns the first difference in words
// ("record 3 field friends[1].name: expected "a", got "b""), or null.

function show(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (value === undefined) return "nothing";
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (typeof value === "object") return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
  return `${typeof value} ${String(value)}`;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function scalarMatches(type: Scalar, expected: unknown, actual: unknown): boolean {
  switch (type) {
    case "int64":
    case "sint64":
    case "sfixed64":
    case "uint64":
    case "fixed64":
      // bigint on both sides: a number here would mean the value went through a double.
      return typeof actual === "bigint" && actual === expected;
    case "double":
      // Doubles round-trip exactly in every codec; NaN equals NaN.
      return typeof actual === "number" && (actual === expected || (Number.isNaN(actual) && Number.isNaN(expected)));
    case "float":
      // Any decimal or width that reads back to the same float32 is the value (proto/README.md).
      return typeof actual === "number" && (Math.fround(actual) === Math.fround(expected as number) || (Number.isNaN(actual) && Number.isNaN(expected)));
    case "int32":
    case "sint32":
    case "sfixed32":
    case "uint32":
    case "fixed32":
      return typeof actual === "number" && Number.isInteger(actual) && actual === expected;
    case "string":
      return typeof actual === "string" && actual === expected;
    case "bool":
      return typeof actual === "boolean" && actual === expected;
    case "bytes":
      return actual instanceof Uint8Array && bytesEqual(expected as Uint8Array, actual);
    default:
      throw new Error(`unknown scalar type ${String(type satisfies never)}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

export function compareValue(type: FieldType, expected: unknown, actual: unknown, path: string): string | null {
  if (typeof type === "string") {
    return scalarMatches(type, expected, actual) ? null : `${path}: expected ${show(expected)}, got ${show(actual)}`;
  }
  switch (type.kind) {
    case "enum":
      return actual === expected ? null : `${path}: expected ${show(expected)}, got ${show(actual)}`;
    case "timestamp":
      // RFC 3339 texts, compared as seconds and nanos.
      return sameInstant(expected, actual) ? null : `${path}: expected ${show(expected)}, got ${show(actual)}`;
    case "optional":
      if (expected === undefined) return actual === undefined ? null : `${path}: expected nothing (unset), got ${show(actual)}`;
      if (actual === undefined) return `${path}: expected ${show(expected)} (set), got nothing (unset)`;
      return compareValue(type.of, expected, actual, path);
    case "repeated": {
      const want = expected as readonly unknown[];
      if (!Array.isArray(actual)) return `${path}: expected an array of ${want.length}, got ${show(actual)}`;
      if (actual.length !== want.length) return `${path}: expected ${want.length} entries, got ${actual.length}`;
      for (let i = 0; i < want.length; i++) {
        const diff = compareValue(type.of, want[i], actual[i], `${path}[${i}]`);
        if (diff) return diff;
      }
      return null;
    }
    case "map": {
      if (!isObject(actual)) return `${path}: expected a map, got ${show(actual)}`;
      const want = expected as Record<string, unknown>;
      for (const key of Object.keys(want)) {
        const diff = compareValue(type.value, want[key], actual[key], `${path}[${JSON.stringify(key)}]`);
        if (diff) return diff;
      }
      const extra = Object.keys(actual).find((key) => !Object.hasOwn(want, key));
      return extra === undefined ? null : `${path}[${JSON.stringify(extra)}]: unexpected key`;
    }
    case "message": {
      if (!isObject(actual)) return `${path}: expected an object, got ${show(actual)}`;
      const want = expected as Record<string, unknown>;
      for (const [name, fieldType] of type.fields) {
        const diff = compareValue(fieldType, want[name], actual[name], join(path, name));
        if (diff) return diff;
      }
      const known = new Set(type.fields.map(([name]) => name));
      const extra = Object.keys(actual).find((key) => !known.has(key));
      return extra === undefined ? null : `${join(path, extra)}: unexpected field`;
    }
  }
}

/** Compares whole record lists; the message names the record and the field. */
export function compareRecords(record: FieldType, expected: readonly unknown[], actual: readonly unknown[]): string | null {
  if (actual.length !== expected.length) return `expected ${expected.length} records, got ${actual.length}`;
  for (let i = 0; i < expected.length; i++) {
    const diff = compareValue(record, expected[i], actual[i], "");
    if (!diff) continue;
    // Root-level mismatches start with ":"; bare-list records are arrays, so their paths are cells.
    if (diff.startsWith(":")) return `record ${i}${diff}`;
    return `record ${i} ${typeof record === "object" && record.kind === "message" ? "field" : "cell"} ${diff}`;
  }
  return null;
}
