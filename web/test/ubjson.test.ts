import { describe, expect, it } from "vitest";
import { decodeUbjson, ubjsonCodec } from "../src/codecs/ubjson";
import { compareRecords } from "../src/datasets/compare";
import { datasetById } from "../src/datasets/registry";
import { canonicalPb, datasetIds, vector } from "./vectors";

// The project's own UBJSON codec (src/codecs/ubjson.ts): the page writes exactly Rust's bytes,
// reads every Draft 12 form, and holds payloads a recursive library could not.

const bytes = (...parts: Array<number | string>) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : [p])));

describe.each(datasetIds)("dataset %s", (id) => {
  const dataset = datasetById(id);
  const records = dataset.fromCanonical(canonicalPb(id));
  const prepared = ubjsonCodec.prepare(dataset);

  it("encodes exactly Rust's bytes", () => {
    const ours = prepared.encode(records);
    const rust = vector(id, "ubjson", "rust");
    expect(Buffer.from(ours).toString("hex")).toBe(Buffer.from(rust).toString("hex"));
  });

  it("decodes Rust's and Java's payloads (Java writes other markers) to the canonical records", () => {
    for (const language of ["rust", "java"]) {
      expect(compareRecords(dataset.record, records, prepared.decodeTyped(vector(id, "ubjson", language))), language).toBeNull();
    }
  });
});

describe("ubjson.ts", () => {
  it("reads every Draft 12 form: numeric markers, C, H, no-ops, sized and typed containers", () => {
    const doc = decodeUbjson(
      bytes(
        "{", "i", 1, "a", "[", "$", "i", "#", "i", 3, 1, 2, 0xff, // a: [1, 2, -1] typed int8
        "i", 1, "b", "[", "#", "U", 2, "d", 0x3f, 0xc0, 0, 0, "D", 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, // b: [1.5, pi]
        "N", "i", 1, "c", "C", "x", // c: "x", after a no-op
        "i", 1, "d", "H", "i", 3, "1.5", // d: high precision as a string
        "i", 1, "e", "{", "$", "T", "#", "i", 2, "i", 1, "p", "i", 1, "q", // e: {p: true, q: true}
        "i", 1, "f", "L", 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // f: 2^63-1 as bigint
        "i", 1, "g", "I", 0x80, 0x00, "i", 1, "h", "l", 0xff, 0xff, 0xff, 0xfe, // g: -32768, h: -2
        "i", 1, "k", "S", "i", 4, 0xc3, 0xa9, "t", "e", // k: "éte" (UTF-8)
        "}",
      ),
    );
    expect(doc).toEqual({ a: [1, 2, -1], b: [1.5, Math.PI], c: "x", d: "1.5", e: { p: true, q: true }, f: 2n ** 63n - 1n, g: -32768, h: -2, k: "éte" });
  });

  it("writes integers in the smallest marker and doubles as float64, as Rust does", () => {
    const numeric = datasetById("numeric");
    const payload = ubjsonCodec.prepare(numeric).encode([{ _id: "x", index: 1, numbr: 2, coordinates: [{ timestamp: 2166n, latitude: 2166, longitude: 0.5 }] }]);
    const hex = Buffer.from(payload).toString("hex");
    const key = (name: string) => Buffer.from(name).toString("hex");
    expect(hex).toContain(`${key("timestamp")}49${"0876"}`); // I 2166
    expect(hex).toContain(`${key("latitude")}44${"40a0ec0000000000"}`); // D 2166.0, not I
    expect(hex).toContain(`${key("longitude")}44${"3fe0000000000000"}`); // D 0.5, not d
  });

  it("writes non-ASCII strings with their UTF-8 length", () => {
    const beers = datasetById("beers");
    const record = { alcohol: 5, name: "Ærø ☕", brewedBy: "", style: "", availability: "", serving: "", details: "" };
    const payload = ubjsonCodec.prepare(beers).encode([record]);
    expect(Buffer.from(payload).toString("hex")).toContain(`${Buffer.from("name").toString("hex")}536909${Buffer.from("Ærø ☕").toString("hex")}`);
    expect(compareRecords(beers.record, [record], ubjsonCodec.prepare(beers).decodeTyped(payload))).toBeNull();
  });

  it("holds a big payload the recursive library overflowed on (matrix, 750 rows of 100 cells)", () => {
    const matrix = datasetById("matrix");
    const rows = Array.from({ length: 750 }, (_, r) => Array.from({ length: 100 }, (_, c) => `${r}.${c}e-3`));
    const prepared = ubjsonCodec.prepare(matrix);
    const payload = prepared.encode(rows);
    expect(payload.length).toBeGreaterThan(750 * 100 * 6);
    expect(prepared.decodeTyped(payload)).toEqual(rows);
  });

  it("refuses, with the offset: bytes after the value, invalid UTF-8, a non-integer count", () => {
    expect(() => decodeUbjson(bytes("Z", "Z"))).toThrow(/^Invalid data: 1 bytes after the value at offset 1$/);
    expect(() => decodeUbjson(bytes("S", "i", 1, 0xff))).toThrow(/^Invalid data: a string is not UTF-8 at offset 3$/);
    expect(() => decodeUbjson(bytes("[", "#", "D", 0, 0, 0, 0, 0, 0, 0, 0))).toThrow(/^Invalid length\/count: marker 'D' is not an integer/);
    expect(() => decodeUbjson(bytes("[", "#", "i", 0xff))).toThrow(/^Invalid length\/count -1/);
    expect(() => decodeUbjson(bytes("[", "$", "i", "i", 1))).toThrow(/^Expected count marker/);
  });

  it("keeps a key named __proto__ as data", () => {
    const doc = decodeUbjson(bytes("{", "i", 9, "__proto__", "{", "i", 1, "x", "T", "}", "}")) as Record<string, unknown>;
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(["__proto__"]);
    expect((doc as { x?: unknown }).x).toBeUndefined();
  });
});
