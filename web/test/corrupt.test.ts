import { describe, expect, it } from "vitest";
import { bsonCodec } from "../src/codecs/bson";
import { jsonCodec } from "../src/codecs/json";
import { msgpackCodec } from "../src/codecs/msgpack";
import { protobufCodec } from "../src/codecs/protobuf";
import { ubjsonCodec } from "../src/codecs/ubjson";
import { datasetById } from "../src/model/registry";
import { vector } from "./vectors";

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
  it("the same cases as a tree", () => {
    expect(() => json.decodeTree!(good.subarray(0, good.length - 5))).toThrow(SyntaxError);
    const bad = new Uint8Array(good);
    bad[20] = 0xff;
    expect(() => json.decodeTree!(bad)).toThrow(TypeError);
  });
  // JSONTestSuite runs through every json decode mode in json-test-suite.test.ts.
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
  it("a truncated payload, read lazily", () => expect(() => bson.decodeLazy!(good.subarray(0, good.length - 5), ["guid", "favoriteFruit"])).toThrow(/claims \d+ bytes/));
  it("every truncation of a payload, read lazily, with a message", () => {
    const silent: number[] = [];
    for (let length = 0; length < good.length; length += 7) {
      try {
        bson.decodeLazy!(good.subarray(0, length), ["guid", "favoriteFruit"]);
        silent.push(length);
      } catch (error) {
        expect((error as Error).message).not.toBe("");
      }
    }
    expect(silent).toEqual([]);
  });
  it("bytes after the document, read lazily (typed rejects them too)", () => {
    const trailing = new Uint8Array([...good, 0x00]);
    expect(() => bson.decodeLazy!(trailing, ["guid"])).toThrow(/document at byte 0 claims 3500 bytes, 3501 are there/);
    expect(() => bson.decodeTyped(trailing)).toThrow();
  });
  it("a lazy length pointing past its document", () => {
    // The first record's "_id" string length, made huge: the walk must not read past the record.
    const bad = new Uint8Array(good);
    const at = Buffer.from(bad).indexOf("_id\0") + 4;
    new DataView(bad.buffer).setInt32(at, 1 << 30, true);
    expect(() => bson.decodeLazy!(bad, ["favoriteFruit"])).toThrow(/runs past the end of its document/);
  });
  it("a lazy field that is missing or not text", () => {
    expect(() => bson.decodeLazy!(good, ["guid", "nope"])).toThrow(/record 0 has no field "nope"/);
    expect(() => bson.decodeLazy!(good, ["tags"])).toThrow(/field "tags" has BSON type 0x4/);
    expect(() => bson.decodeLazy!(good, ["guid.x"])).toThrow(/record 0 field "guid.x": guid is BSON type 0x2, not a document/);
  });
  it("a document without a records array", () => {
    expect(() => bson.decodeLazy!(new Uint8Array([5, 0, 0, 0, 0]), ["guid"])).toThrow(/no "records" array/);
    expect(() => bson.decodeTyped(new Uint8Array([5, 0, 0, 0, 0]))).toThrow(/no "records" array/);
  });
});

describe("ubjson rejects", () => {
  const ubjson = ubjsonCodec.prepare(dummy);
  const good = vector("dummy", "ubjson");
  it("every truncation of a payload, without hanging", () => {
    const accepted = [];
    for (let length = 0; length < good.length; length++) {
      try {
        ubjson.decodeTyped(good.subarray(0, length));
        accepted.push(length);
      } catch {
        // expected
      }
    }
    expect(accepted).toEqual([]);
  });
  it("a payload cut after a null or a one-letter string (the library alone looped until out of memory)", () => {
    expect(() => ubjson.decodeTyped(new Uint8Array([0x5b, 0x5a]))).toThrow(/Unexpected EOF/);
    expect(() => ubjson.decodeTyped(new Uint8Array([0x5b, 0x53, 0x69, 0x01, 0x54]))).toThrow(/Unexpected EOF/);
    expect(() => ubjson.decodeTyped(new Uint8Array([0x7b, 0x69, 0x07, ...new TextEncoder().encode("records"), 0x5b, 0x54]))).toThrow(/Unexpected EOF/);
  });
  it("a container count beyond the input, in every mode, without allocating it", () => {
    // [$Z#l 2^31-1: 2^31 nulls in 9 bytes (the library alone filled an array of them until out of memory).
    const nulls = new Uint8Array([0x5b, 0x24, 0x5a, 0x23, 0x6c, 0x7f, 0xff, 0xff, 0xff]);
    const strings = new Uint8Array([0x5b, 0x24, 0x53, 0x23, 0x6c, 0x7f, 0xff, 0xff, 0xff]);
    for (const decode of [ubjson.decodeTyped, ubjson.decodeTree!]) {
      const started = performance.now();
      expect(() => decode(nulls)).toThrow(/container count 2147483647 of Z elements exceeds the cap/);
      expect(() => decode(strings)).toThrow(/container count 2147483647 exceeds the 0 bytes left/);
      expect(performance.now() - started).toBeLessThan(100);
    }
  });
  it("containers nested deeper than the stack, with the codec's error", () => {
    const deep = new Uint8Array([...new Array(200_000).fill(0x5b), ...new Array(200_000).fill(0x5d)]);
    for (const decode of [ubjson.decodeTyped, ubjson.decodeTree!]) {
      let error: unknown;
      try {
        decode(deep);
      } catch (caught) {
        error = caught;
      }
      // A plain Error (the library's type), not the engine's RangeError.
      expect((error as Error).constructor).toBe(Error);
      expect((error as Error).message).toMatch(/^containers nested too deep for the decoder/);
    }
  });
  it("a small typed container of nulls still decodes", () => {
    expect(ubjson.decodeTree!(new Uint8Array([0x5b, 0x24, 0x5a, 0x23, 0x69, 0x03]))).toEqual([null, null, null]);
  });
  it("an unknown marker", () => expect(() => ubjson.decodeTyped(new Uint8Array([0x7b, 0x69, 0x01, 0x61, 0x3f, 0x7d]))).toThrow(/Unexpected type/));
  it("a value without a records array", () => expect(() => ubjson.decodeTyped(new Uint8Array([0x5b, 0x5d]))).toThrow(/not a document/));
});

describe("msgpack rejects", () => {
  const msgpack = msgpackCodec.prepare(dummy);
  const good = vector("dummy", "msgpack");
  it("every truncation of a payload", () => {
    const accepted = [];
    for (let length = 0; length < good.length; length++) {
      try {
        msgpack.decodeTyped(good.subarray(0, length));
        accepted.push(length);
      } catch {
        // expected
      }
    }
    expect(accepted).toEqual([]);
  });
  it("trailing bytes", () => expect(() => msgpack.decodeTyped(new Uint8Array([...good, 0xc0]))).toThrow());
  it("a reserved type byte", () => expect(() => msgpack.decodeTyped(new Uint8Array([0xc1]))).toThrow());
  it("array lengths beyond the input, in every mode, without allocating them", () => {
    // Four nested array 32 headers of 2^24-1 elements: 20 bytes that made the library allocate 385 MiB.
    const nested = new Uint8Array(Array.from({ length: 4 }, () => [0xdd, 0x00, 0xff, 0xff, 0xff]).flat());
    for (const decode of [msgpack.decodeTyped, msgpack.decodeTree!]) {
      const before = process.memoryUsage.rss();
      expect(() => decode(nested)).toThrow(/array of 16777215 elements exceeds the 15 bytes left in the input/);
      expect((process.memoryUsage.rss() - before) / 2 ** 20).toBeLessThan(32);
    }
    // A fixarray of 3 in 3 bytes is fine.
    expect(msgpack.decodeTree!(new Uint8Array([0x93, 0x01, 0x02, 0x03]))).toEqual([1, 2, 3]);
  });
});

describe("protobuf rejects", () => {
  const protobuf = protobufCodec.prepare(dummy);
  const good = vector("dummy", "protobuf");
  it("a payload cut inside a field", () => expect(() => protobuf.decodeTyped(good.subarray(0, good.length - 5))).toThrow());
  it("a wrong wire type for a known field", () => expect(() => protobuf.decodeTyped(new Uint8Array([0x0d, 0, 0, 0, 0]))).toThrow());
});
