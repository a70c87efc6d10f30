import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bsonCodec } from "../src/codecs/bson";
import { jsonCodec } from "../src/codecs/json";
import { datasetById } from "../src/model/registry";
import { repoRoot, vector } from "./vectors";

// Corrupt payloads are errors, never partial or made-up records.

const dummy = datasetById("dummy");
const json = jsonCodec.prepare(dummy);
const bson = bsonCodec.prepare(dummy);

describe("json rejects", () => {
  const good = vector("dummy", "json");
  it("a truncated payload", () => expect(() => json.decodeTyped(good.subarray(0, good.length - 5))).toThrow(SyntaxError));
  it("invalid UTF-8", () => {
    const bad = new Uint8Array(good);
    bad[20] = 0xff;
    expect(() => json.decodeTyped(bad)).toThrow(TypeError);
  });
  it("a value without a records array", () => {
    expect(() => json.decodeTyped(new TextEncoder().encode(`{"rows":[]}`))).toThrow(/no "records" array/);
    expect(() => json.decodeTyped(new TextEncoder().encode(`[1,2]`))).toThrow(/not a document/);
  });
  it("a lazy field that is missing", () => {
    expect(() => json.decodeLazy!(good, "nope")).toThrow(/no field "nope"/);
  });

  // JSONTestSuite: every n_* case must be rejected by the json codec's decoder.
  const suite = `${repoRoot}../shared/testdata/JSONTestSuite/test_parsing/`;
  if (!existsSync(suite)) throw new Error(`${suite} is missing: the shared test data lives in shared/ beside the repository`);
  const rejected = readdirSync(suite).filter((name) => name.startsWith("n_"));
  it(`every JSONTestSuite n_* case (${rejected.length})`, () => {
    const accepted = rejected.filter((name) => {
      try {
        json.decodeTyped(new Uint8Array(readFileSync(suite + name)));
        return true;
      } catch {
        return false;
      }
    });
    expect(accepted).toEqual([]);
  });
});

describe("bson rejects", () => {
  const good = vector("dummy", "bson");
  it("a truncated payload", () => expect(() => bson.decodeTyped(good.subarray(0, good.length - 5))).toThrow());
  it("a wrong length prefix", () => {
    const bad = new Uint8Array(good);
    bad[0] = (bad[0]! + 1) & 0xff;
    expect(() => bson.decodeTyped(bad)).toThrow();
  });
  it("an unknown element type", () => {
    const bad = new Uint8Array(good);
    bad[4] = 0x7e;
    expect(() => bson.decodeTyped(bad)).toThrow();
  });
  it("a truncated payload, read lazily", () => expect(() => bson.decodeLazy!(good.subarray(0, good.length - 5), "guid")).toThrow());
  it("a lazy field that is missing or not text", () => {
    expect(() => bson.decodeLazy!(good, "nope")).toThrow(/record 0 has no field "nope"/);
    expect(() => bson.decodeLazy!(good, "tags")).toThrow(/field "tags" has BSON type 0x4/);
  });
  it("a document without a records array", () => {
    expect(() => bson.decodeLazy!(new Uint8Array([5, 0, 0, 0, 0]), "guid")).toThrow(/no "records" array/);
    expect(() => bson.decodeTyped(new Uint8Array([5, 0, 0, 0, 0]))).toThrow(/no "records" array/);
  });
});
