import { describe, expect, it } from "vitest";
import { compareRecords } from "../src/model/compare";
import { datasetById } from "../src/model/registry";
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
