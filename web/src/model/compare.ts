import type { FieldType, Scalar } from "./schema";

// Field-by-field comparison of decoded records with the canonical ones. Returns the first
// difference in words ("record 3 field friends[1].name: expected "a", got "b""), or null.

function show(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (value === undefined) return "nothing";
  if (typeof value === "object") return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
  return `${typeof value} ${String(value)}`;
}

function scalarMatches(type: Scalar, expected: unknown, actual: unknown): boolean {
  switch (type) {
    case "int64":
      // bigint on both sides: a number here would mean the value went through a double.
      return typeof actual === "bigint" && actual === expected;
    case "double":
      // Doubles round-trip exactly in every codec; NaN never occurs in the datasets.
      return typeof actual === "number" && actual === expected;
    case "int32":
      return typeof actual === "number" && Number.isInteger(actual) && actual === expected;
    case "string":
      return typeof actual === "string" && actual === expected;
    case "bool":
      return typeof actual === "boolean" && actual === expected;
    default:
      throw new Error(`unknown scalar type ${String(type satisfies never)}`);
  }
}

export function compareValue(type: FieldType, expected: unknown, actual: unknown, path: string): string | null {
  if (typeof type === "string") {
    return scalarMatches(type, expected, actual) ? null : `${path}: expected ${show(expected)}, got ${show(actual)}`;
  }
  if (type.kind === "repeated") {
    const want = expected as readonly unknown[];
    if (!Array.isArray(actual)) return `${path}: expected an array of ${want.length}, got ${show(actual)}`;
    if (actual.length !== want.length) return `${path}: expected ${want.length} entries, got ${actual.length}`;
    for (let i = 0; i < want.length; i++) {
      const diff = compareValue(type.of, want[i], actual[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    return null;
  }
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) {
    return `${path}: expected an object, got ${show(actual)}`;
  }
  const want = expected as Record<string, unknown>;
  const got = actual as Record<string, unknown>;
  for (const [name, fieldType] of type.fields) {
    const diff = compareValue(fieldType, want[name], got[name], path ? `${path}.${name}` : name);
    if (diff) return diff;
  }
  const known = new Set(type.fields.map(([name]) => name));
  const extra = Object.keys(got).find((key) => !known.has(key));
  return extra === undefined ? null : `${path ? `${path}.` : ""}${extra}: unexpected field`;
}

/** Compares whole record lists; the message names the record and the field. */
export function compareRecords(record: FieldType, expected: readonly unknown[], actual: readonly unknown[]): string | null {
  if (actual.length !== expected.length) return `expected ${expected.length} records, got ${actual.length}`;
  for (let i = 0; i < expected.length; i++) {
    const diff = compareValue(record, expected[i], actual[i], "");
    if (!diff) continue;
    // Root-level mismatches start with ":"; matrix rows are arrays, so their paths are cells.
    if (diff.startsWith(":")) return `record ${i}${diff}`;
    return `record ${i} ${typeof record === "object" && record.kind === "message" ? "field" : "cell"} ${diff}`;
  }
  return null;
}
