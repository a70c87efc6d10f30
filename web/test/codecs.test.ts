import { describe, expect, it } from "vitest";
import { vectorFile } from "../src/codecs/catalogue";
import { decodeRecords, encodeRecords, formatOf } from "../src/codecs/codec";
import { codecs } from "../src/codecs/registry";
import { compareRecords } from "../src/datasets/compare";
import { readLazyField } from "../src/datasets/dataset";
import { datasetById } from "../src/datasets/registry";
import { browserVectors } from "../tools/vectors";
import { canonicalPb, catalogue, datasetIds, vector, vectorLanguages } from "./vectors";

// Every codec and mode on every dataset, against the canonical records and against every
// language's golden vector in codecs/vectors/.

const entries = new Map(catalogue().map((entry) => [entry.id, entry]));

describe("the codec catalogue", () => {
  it("lists exactly the browser's codecs, with the same decode modes", () => {
    const listed = [...entries.values()].filter((entry) => entry.modes.has("browser")).map((entry) => `${entry.id}: ${entry.modes.get("browser")!.join(",")}`);
    const offered = [...codecs.values()].map(({ info }) => `${info.id}: ${info.decodeModes.join(",")}`);
    expect(offered.sort()).toEqual(listed.sort());
  });
});

describe.each(datasetIds)("dataset %s", (id) => {
  const dataset = datasetById(id);
  const records = dataset.fromCanonical(canonicalPb(id));

  it("has canonical records", () => {
    expect(records.length).toBeGreaterThan(0);
  });

  describe.each([...codecs.values()].map((codec) => [codec.info.id, codec] as const))("codec %s", (codecId, codec) => {
    const prepared = codec.prepare(dataset);
    // Vectors are per format: another implementation (msgpack/msgpackr) reads every language's.
    const format = formatOf(codecId);
    const reference = format === codecId;
    const languages = vectorLanguages(id, format);
    const deterministic = entries.get(codecId)?.deterministic ?? false;

    it("round-trips typed", () => {
      expect(compareRecords(dataset.record, records, decodeRecords(prepared, encodeRecords(prepared, records)))).toBeNull();
    });

    it("has vectors from the browser and at least one other language", () => {
      expect(languages).toContain("browser");
      expect(languages.length).toBeGreaterThan(1);
    });

    it.each(languages)("decodes the %s vector to the canonical records", (language) => {
      expect(compareRecords(dataset.record, records, decodeRecords(prepared, vector(id, format, language)))).toBeNull();
    });

    if (codec.info.decodeModes.includes("tree")) {
      it.each(languages)("decodes the %s vector as a tree that converts to the canonical records", (language) => {
        const tree = prepared.decodeTree!(vector(id, format, language));
        expect(compareRecords(dataset.record, records, prepared.treeToRecords!(tree))).toBeNull();
      });
    }

    if (codec.info.decodeModes.includes("lazy")) {
      it.each(["(own payload)", ...languages])("reads both lazy fields of every record of the %s vector, equal to the canonical values", (language) => {
        const payload = language === "(own payload)" ? encodeRecords(prepared, records) : vector(id, format, language);
        const fields = dataset.lazyFields;
        const expected = records.flatMap((record) => fields.map((field) => readLazyField(record, field)));
        expect(expected.every((value) => value !== "")).toBe(true);
        expect(prepared.decodeLazy!(payload, fields)).toEqual(expected);
        // And each field alone, from the start and from the end of the record.
        for (const field of fields) expect(prepared.decodeLazy!(payload, [field])).toEqual(records.map((record) => readLazyField(record, field)));
      });
    }

    if (deterministic) {
      it.each(languages)("writes the same bytes as the %s vector", (language) => {
        expect(Buffer.from(encodeRecords(prepared, records)).toString("hex")).toBe(Buffer.from(vector(id, format, language)).toString("hex"));
      });
    }

    it.skipIf(!reference)("the committed browser vector equals a fresh `npm run vectors`", () => {
      const fresh = browserVectors((dataset) => canonicalPb(dataset)).get(vectorFile(id, codecId, "browser"));
      expect(fresh, "npm run vectors makes no such file").toBeDefined();
      expect(Buffer.from(vector(id, format, "browser")).toString("hex"), "run `cd web && npm run vectors` and commit codecs/vectors/*.browser.*").toBe(Buffer.from(fresh!).toString("hex"));
    });

    if (codecId === "json") {
      it.each(languages)("writes the same JSON value as the %s vector, keys in the same order", (language) => {
        // Bytes differ legitimately (Rust writes 2166.0, JavaScript 2166); the value and the key
        // order must not. The canonical int64 values are below 2^53, so plain parsing is exact here.
        const ours = JSON.parse(new TextDecoder().decode(encodeRecords(prepared, records)));
        const theirs = JSON.parse(new TextDecoder().decode(vector(id, "json", language)));
        expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
      });
    }
  });
});
