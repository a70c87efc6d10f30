import { describe, expect, it } from "vitest";
import { codecs } from "../src/codecs/registry";
import { compareRecords } from "../src/model/compare";
import { readLazyField } from "../src/model/dataset";
import { datasetById } from "../src/model/registry";
import { datasetIds, vector } from "./canonical";

// Every codec and mode on every dataset, against the canonical records and the Rust payloads.

describe.each(datasetIds)("dataset %s", (id) => {
  const dataset = datasetById(id);
  const records = dataset.fromCanonical(vector(id, "pb"));

  it("has canonical records", () => {
    expect(records.length).toBeGreaterThan(0);
  });

  describe.each([...codecs.values()].map((codec) => [codec.info.id, codec] as const))("codec %s", (codecId, codec) => {
    const prepared = codec.prepare(dataset);

    it("round-trips typed", () => {
      const payload = prepared.encode(records);
      expect(compareRecords(dataset.record, records, prepared.decodeTyped(payload))).toBeNull();
    });

    it("decodes the Rust payload to the canonical records", () => {
      const rust = vector(id, codecId as "json" | "bson");
      expect(compareRecords(dataset.record, records, prepared.decodeTyped(rust))).toBeNull();
    });

    if (codec.info.decodeModes.includes("lazy")) {
      it("reads the lazy field of every record", () => {
        const expected = records.map((record) => readLazyField(record, dataset.lazyField));
        expect(prepared.decodeLazy!(prepared.encode(records), dataset.lazyField)).toEqual(expected);
        expect(prepared.decodeLazy!(vector(id, codecId as "json" | "bson"), dataset.lazyField)).toEqual(expected);
      });
    }

    if (codecId === "bson") {
      it("writes the same bytes as Rust", () => {
        expect(Buffer.from(prepared.encode(records)).toString("hex")).toBe(Buffer.from(vector(id, "bson")).toString("hex"));
      });
    }

    if (codecId === "json") {
      it("writes the same JSON value as Rust, keys in the same order", () => {
        // Bytes differ legitimately (Rust writes 2166.0, JavaScript 2166); the value and the key
        // order must not. The canonical int64 values are below 2^53, so plain parsing is exact here.
        const ours = JSON.parse(new TextDecoder().decode(prepared.encode(records)));
        const theirs = JSON.parse(new TextDecoder().decode(vector(id, "json")));
        expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
      });
    }
  });
});
