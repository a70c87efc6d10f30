import { describe, expect, it } from "vitest";
import { compareRecords } from "../src/datasets/compare";
import type { FieldType } from "../src/datasets/schema";
import { datasetById } from "../src/datasets/registry";
import { canonicalPb } from "./vectors";

// Verification says which record and which field differ, and how.

describe("verification messages", () => {
  const dummy = datasetById("dummy");
  const records = dummy.fromCanonical(canonicalPb("dummy")) as Array<Record<string, unknown>>;
  const copy = () => structuredClone(records);

  it("accepts equal records", () => expect(compareRecords(dummy.record, records, copy())).toBeNull());

  it("names a nested field", () => {
    const changed = copy();
    (changed[2]!.friends as Array<{ name: string }>)[1]!.name = "Nobody";
    expect(compareRecords(dummy.record, records, changed)).toMatch(/^record 2 field friends\[1\]\.name: expected ".*", got "Nobody"$/);
  });

  it("tells an int32 from a string and a missing field", () => {
    const changed = copy();
    changed[0]!.age = "35";
    expect(compareRecords(dummy.record, records, changed)).toMatch(/^record 0 field age: expected number \d+, got "35"$/);
    delete changed[0]!.age;
    expect(compareRecords(dummy.record, records, changed)).toMatch(/^record 0 field age: expected number \d+, got nothing$/);
  });

  it("flags extra fields and wrong counts", () => {
    const changed = copy();
    changed[1]!.extra = 1;
    expect(compareRecords(dummy.record, records, changed)).toBe("record 1 field extra: unexpected field");
    expect(compareRecords(dummy.record, records, changed.slice(1))).toBe("expected 3 records, got 2");
  });

  it("names matrix cells", () => {
    const matrix = datasetById("matrix");
    const rows = matrix.fromCanonical(canonicalPb("matrix")) as string[][];
    const changed = structuredClone(rows);
    changed[1]![2] = "0";
    expect(compareRecords(matrix.record, rows, changed)).toMatch(/^record 1 cell \[2\]: expected ".*", got "0"$/);
  });
});

describe("floats, Timestamps and maps (proto/README.md: readers compare as float32, seconds and nanos, maps as maps)", () => {
  const type = {
    kind: "message",
    name: "T",
    fields: [
      ["fl", "float"],
      ["at", { kind: "timestamp" }],
      ["counts", { kind: "map", key: "string", value: "int32" }],
    ],
    oneofs: [],
  } as const satisfies FieldType;
  const expected = [{ fl: Math.fround(0.1), at: "2026-11-27T10:00:00.120Z", counts: { a: 1, b: 2 } }];

  it("takes any width or decimal of the same float32, another text of the same instant, entries in any order", () => {
    expect(compareRecords(type, expected, [{ fl: 0.1, at: "2026-11-27T11:00:00.12+01:00", counts: { b: 2, a: 1 } }])).toBeNull();
    expect(compareRecords(type, expected, [{ fl: 0.1, at: "2026-11-27T10:00:00.120000000Z", counts: { a: 1, b: 2 } }])).toBeNull();
  });

  it("names another float32, another instant, a missing or extra key", () => {
    expect(compareRecords(type, expected, [{ ...expected[0], fl: 0.10000001 }])).toBe("record 0 field fl: expected number 0.10000000149011612, got number 0.10000001");
    expect(compareRecords(type, expected, [{ ...expected[0], at: "2026-11-27T10:00:00.121Z" }])).toBe('record 0 field at: expected "2026-11-27T10:00:00.120Z", got "2026-11-27T10:00:00.121Z"');
    expect(compareRecords(type, expected, [{ ...expected[0], at: "yesterday" }])).toBe('record 0 field at: expected "2026-11-27T10:00:00.120Z", got "yesterday"');
    expect(compareRecords(type, expected, [{ ...expected[0], counts: { a: 1 } }])).toBe('record 0 field counts["b"]: expected number 2, got nothing');
    expect(compareRecords(type, expected, [{ ...expected[0], counts: { a: 1, b: 2, c: 3 } }])).toBe('record 0 field counts["c"]: unexpected key');
  });
});
