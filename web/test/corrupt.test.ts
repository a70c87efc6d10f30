import { describe, expect, it } from "vitest";
import { bsonCodec } from "../src/codecs/bson";
import { cborCodec } from "../src/codecs/cbor";
import { jsonCodec } from "../src/codecs/json";
import { msgpackCodec } from "../src/codecs/msgpack";
import { msgpackrCodec } from "../src/codecs/msgpackr";
import { protobufCodec } from "../src/codecs/protobuf";
import { ubjsonCodec } from "../src/codecs/ubjson";
import { xmlCodec } from "../src/codecs/xml";
import { compareRecords } from "../src/datasets/compare";
import { datasetById } from "../src/datasets/registry";
import { canonicalPb, vector } from "./vectors";

// Corrupt payloads are errors, never partial or made-up records (flatbuffers, whose reader is
// written here: corrupt-flatbuffers.test.ts).

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

// The two MessagePack libraries, each with its own message for a declared length beyond the input.
describe.each([
  [msgpackCodec, /array of 16777215 elements exceeds the 15 bytes left in the input/],
  [msgpackrCodec, /^Unexpected end of MessagePack data$/],
] as const)("$0.info.id rejects", (codec, beyondInput) => {
  const msgpack = codec.prepare(dummy);
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
    // Four nested array 32 headers of 2^24-1 elements: 20 bytes that made @msgpack/msgpack allocate 385 MiB.
    const nested = new Uint8Array(Array.from({ length: 4 }, () => [0xdd, 0x00, 0xff, 0xff, 0xff]).flat());
    for (const decode of [msgpack.decodeTyped, msgpack.decodeTree!]) {
      const before = process.memoryUsage.rss();
      expect(() => decode(nested)).toThrow(beyondInput);
      expect((process.memoryUsage.rss() - before) / 2 ** 20).toBeLessThan(32);
    }
    // A fixarray of 3 in 3 bytes is fine.
    expect(msgpack.decodeTree!(new Uint8Array([0x93, 0x01, 0x02, 0x03]))).toEqual([1, 2, 3]);
  });
});

describe("cbor rejects", () => {
  const cbor = cborCodec.prepare(dummy);
  const records = dummy.fromCanonical(canonicalPb("dummy"));
  // The browser's own payload (a copy: encode returns a view of cbor-x's shared buffer).
  const good = new Uint8Array(cbor.encode(records));
  const bytes = (hex: string) => new Uint8Array(Buffer.from(hex.replace(/ /g, ""), "hex"));
  const modes = [cbor.decodeTyped, cbor.decodeTree!];
  it("every truncation of a payload, in every mode, as ending early", () => {
    const accepted = [];
    for (let length = 0; length < good.length; length++) {
      for (const decode of modes) {
        try {
          decode(good.subarray(0, length));
          accepted.push(length);
        } catch (error) {
          expect((error as Error).constructor).toBe(Error);
          expect((error as Error).message).toMatch(/^(Unexpected end of CBOR data|CBOR payload ends inside a value: cbor-x failed with RangeError: Offset is outside the bounds of the DataView)$/);
        }
      }
    }
    expect(accepted).toEqual([]);
    expect(() => cbor.decodeTyped(good.subarray(0, good.length - 5))).toThrow(/^Unexpected end of CBOR data$/);
    // A float64 or 8-byte integer head cut off fails in DataView's bounds check.
    for (const hex of ["fb 00", "1b 0000"]) expect(() => cbor.decodeTyped(bytes(hex))).toThrow(/^CBOR payload ends inside a value: cbor-x failed with RangeError: Offset is outside the bounds of the DataView$/);
    expect(() => cbor.decodeTyped(new Uint8Array(0))).toThrow(/^Unexpected end of CBOR data$/);
  });
  it("bytes after the payload's value", () => {
    for (const decode of modes) expect(() => decode(new Uint8Array([...good, 0xf6]))).toThrow(/^Data read, but end of buffer not reached$/);
  });
  it("declared lengths beyond the input, in every mode, without allocating them (the library checks before it allocates)", () => {
    const cases: [string, RegExp][] = [
      // Array of 2^64-1 elements in 9 bytes: refused from the length's high word.
      ["9b ffffffffffffffff", /^JavaScript does not support arrays, maps, or strings with length over 4294967295$/],
      ["9b 00000000ffffffff", /^Array length exceeds 112810000$/],
      ["9a 00ffffff", /^Unexpected end of CBOR data$/],
      // Four nested arrays of 2^24-1 (the msgpack case that took 385 MiB there).
      ["9a00ffffff 9a00ffffff 9a00ffffff 9a00ffffff", /^Unexpected end of CBOR data$/],
      ["ba 00ffffff", /^Property count exceeds 16710000$/],
      ["ba 000fffff", /^Unexpected end of CBOR data$/],
      ["bb 00000000ffffffff", /^Property count exceeds 16710000$/],
      ["7a 7fffffff", /^Unexpected end of CBOR data$/],
      ["5a 7fffffff", /^Unexpected end of CBOR data$/],
      ["a1 677265636f726473 9a 00ffffff 00", /^Unexpected end of CBOR data$/],
    ];
    // Nested arrays that each fit the bytes left but add up beyond them: 2,000 headers of 5,000
    // elements (6,000 bytes) would allocate 2,000 arrays of 5,000 slots; the library's per-decode
    // budget refuses the second.
    const nested = new Uint8Array(Array.from({ length: 2000 }, () => [0x99, 0x13, 0x88]).flat());
    for (const decode of modes) {
      const before = process.memoryUsage.rss();
      const started = performance.now();
      for (const [hex, message] of cases) expect(() => decode(bytes(hex)), hex).toThrow(message);
      expect(() => decode(nested)).toThrow(/^Unexpected end of CBOR data$/);
      expect(performance.now() - started).toBeLessThan(100);
      expect((process.memoryUsage.rss() - before) / 2 ** 20).toBeLessThan(32);
    }
    // Small arrays and maps that fit are fine.
    expect(cbor.decodeTree!(bytes("83 010203"))).toEqual([1, 2, 3]);
    expect(cbor.decodeTree!(bytes("a1 6161 82 0102"))).toEqual({ a: [1, 2] });
  });
  it("a value of the wrong shape", () => {
    expect(() => cbor.decodeTyped(bytes("a0"))).toThrow(/^payload has no "records" array$/);
    expect(() => cbor.decodeTyped(bytes("a1 677265636f726473 01"))).toThrow(/^payload has no "records" array$/);
    expect(() => cbor.decodeTyped(bytes("80"))).toThrow(/^payload is not a document/);
    // A Map (tag 259) has no "records" property: typed decode takes plain objects only.
    expect(() => cbor.decodeTyped(bytes("d90103 a1 677265636f726473 80"))).toThrow(/^payload has no "records" array$/);
  });
  it("a field of the wrong type: decoded as it is, named by verification", () => {
    const wrong = records.map((record, i) => (i === 1 ? { ...(record as object), index: "one", balance: true } : record));
    const decoded = cbor.decodeTyped(new Uint8Array(cbor.encode(wrong)));
    expect((decoded[1] as { index: unknown }).index).toBe("one");
    expect(compareRecords(dummy.record, records, decoded)).toMatch(/^record 1 field index/);
    // An int64 field holding a string is left alone by the widening, for verification to name.
    const numeric = datasetById("numeric");
    const numericRecords = numeric.fromCanonical(canonicalPb("numeric")).slice(0, 2) as { coordinates: { timestamp: unknown }[] }[];
    const bad = numericRecords.map((record, i) => (i === 0 ? { ...record, coordinates: [{ ...record.coordinates[0], timestamp: "soon" }, ...record.coordinates.slice(1)] } : record));
    const codec = cborCodec.prepare(numeric);
    const back = codec.decodeTyped(new Uint8Array(codec.encode(bad))) as typeof numericRecords;
    expect(back[0]!.coordinates[0]!.timestamp).toBe("soon");
    expect(compareRecords(numeric.record, numericRecords, back)).toMatch(/^record 0 field coordinates/);
  });
  it("malformed content of cbor-x's own tags, as one Error naming what the engine threw, leaving nothing behind", () => {
    const cases: [string, RegExp][] = [
      // Tag 105 (cbor-x's legacy record) around a string, tag 2 (bignum) around null, tag 29 (shared reference) with nothing shared.
      ["d869 626969", /^malformed CBOR: cbor-x failed with TypeError: Cannot create property 'slowReads' on string 'i'$/],
      ["c2 f6", /^malformed CBOR: cbor-x failed with TypeError: Cannot read properties of null/],
      ["d81d 00", /^malformed CBOR: cbor-x failed with TypeError: Cannot read properties of null/],
      // Tag 71 (BigUint64Array) around 3 bytes.
      ["d847 43000000", /^malformed CBOR: cbor-x failed with RangeError: byte length of BigUint64Array should be a multiple of 8$/],
      // Tag 27 (generic object) naming RegExp with an invalid pattern.
      ["d81b 83 6652656745787061 28 60", /^malformed CBOR: cbor-x failed with SyntaxError: Invalid regular expression/],
    ];
    for (const decode of modes) {
      for (const [hex, message] of cases) {
        let error: unknown;
        try {
          decode(bytes(hex));
        } catch (caught) {
          error = caught;
        }
        expect((error as Error).constructor, hex).toBe(Error);
        expect((error as Error).message, hex).toMatch(message);
        expect(compareRecords(dummy.record, records, cbor.decodeTyped(good))).toBeNull();
      }
    }
  });
  it("containers nested deeper than the stack, as the codec's Error", () => {
    const deep = new Uint8Array([...new Array(200_000).fill(0x81), 0x01]);
    for (const decode of modes) expect(() => decode(deep)).toThrow(/^malformed CBOR: cbor-x failed with RangeError: Maximum call stack size exceeded$/);
  });
});

describe("protobuf rejects", () => {
  const protobuf = protobufCodec.prepare(dummy);
  const good = vector("dummy", "protobuf");
  it("a payload cut inside a field", () => expect(() => protobuf.decodeTyped(good.subarray(0, good.length - 5))).toThrow());
  it("a wrong wire type for a known field", () => expect(() => protobuf.decodeTyped(new Uint8Array([0x0d, 0, 0, 0, 0]))).toThrow());
});

describe("xml rejects", () => {
  const xml = xmlCodec.prepare(dummy);
  const beers = xmlCodec.prepare(datasetById("beers"));
  const records = dummy.fromCanonical(canonicalPb("dummy"));
  const good = xml.encode(records);
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const fields = "<alcohol>1</alcohol><name>n</name><brewedBy>b</brewedBy><style>s</style><availability>a</availability><serving>s</serving><details>d</details>";
  /** A beers payload of one record whose fields are `body` (default: all of them, valid). */
  const beer = (body = fields, around = (payload: string) => payload) => utf8(around(`<payload><records>${body}</records></payload>`));
  const withName = (name: string) => beer(fields.replace("<name>n</name>", name));
  it("accepts the well-formed payloads these cases are made from", () => {
    expect(compareRecords(dummy.record, records, xml.decodeTyped(good))).toBeNull();
    expect(beers.decodeTyped(beer())).toHaveLength(1);
  });
  it("every truncation of a payload, with the validator's message (the parser alone ends an unclosed document silently)", () => {
    const accepted = [];
    for (let length = 0; length < good.length; length++) {
      try {
        xml.decodeTyped(good.subarray(0, length));
        accepted.push(length);
      } catch (error) {
        // Cut inside a multi-byte character: the fatal TextDecoder's TypeError.
        if (error instanceof TypeError) continue;
        expect((error as Error).constructor).toBe(Error);
        expect((error as Error).message).toMatch(/^malformed XML \(line \d+(, column \d+)?\): \S/);
      }
    }
    expect(accepted).toEqual([]);
    expect(() => xml.decodeTyped(good.subarray(0, good.length - "</payload>".length))).toThrow(/^malformed XML \(line 1, column 1\): Unclosed tag 'payload'\.$/);
    expect(() => xml.decodeTyped(good.subarray(0, good.length - 3))).toThrow(/^malformed XML \(line \d+, column \d+\): Closing tag 'paylo' doesn't have proper closing\.$/);
  });
  it("anything after the root element (the parser alone drops trailing text)", () => {
    expect(() => beers.decodeTyped(beer(fields, (p) => `${p}garbage`))).toThrow(/^malformed XML \(line 1, column \d+\): Extra text at the end$/);
    expect(() => beers.decodeTyped(beer(fields, (p) => `${p}<payload/>`))).toThrow(/^XML payload: 2 root elements <payload>$/);
    expect(() => beers.decodeTyped(beer(fields, (p) => `${p}<other/>`))).toThrow(/^XML payload: a second root element <other>$/);
    expect(() => beers.decodeTyped(beer(fields, (p) => `${p}</payload>`))).toThrow(/^malformed XML .*Closing tag 'payload' has not been opened\.$/);
    // Whitespace and comments after the root are XML.
    expect(beers.decodeTyped(beer(fields, (p) => `${p}\n<!-- end -->\n`))).toHaveLength(1);
  });
  it("malformed markup the parser alone would read: mismatched or unclosed tags, text before the root, a bare &", () => {
    expect(() => beers.decodeTyped(beer(fields.replace("</name>", "</nam>")))).toThrow(/^malformed XML \(line 1, column \d+\): Expected closing tag 'name' .* instead of closing tag 'nam'\.$/);
    expect(() => beers.decodeTyped(beer(fields.replace("</name>", "")))).toThrow(/^malformed XML /);
    expect(() => beers.decodeTyped(beer(fields, (p) => `x${p}`))).toThrow(/^malformed XML \(line 1, column 1\): char 'x' is not expected\.$/);
    expect(() => beers.decodeTyped(withName("<name>a & b</name>"))).toThrow(/^malformed XML .*char '&' is not expected\.$/);
    expect(() => beers.decodeTyped(utf8(""))).toThrow(/^malformed XML \(line 1\): Start tag expected\.$/);
  });
  it("invalid UTF-8", () => {
    const bad = new Uint8Array(good);
    bad[20] = 0xff;
    expect(() => xml.decodeTyped(bad)).toThrow(TypeError);
  });
  it("a wrong root, attributes and namespaces", () => {
    expect(() => beers.decodeTyped(utf8(`<records>${fields}</records>`))).toThrow(/^XML payload: root element <records>, expected <payload>$/);
    expect(() => beers.decodeTyped(utf8(`<p:payload xmlns:p="urn:x"><records>${fields}</records></p:payload>`))).toThrow(/^XML payload: root element <p:payload>, expected <payload>$/);
    expect(() => beers.decodeTyped(utf8(`<payload xmlns="urn:x"><records>${fields}</records></payload>`))).toThrow(/^XML payload: <payload> has attribute xmlns \(the wire form has no attributes\)$/);
    expect(() => beers.decodeTyped(utf8(`<payload><records id="1">${fields}</records></payload>`))).toThrow(/^record 0: attribute id \(the wire form has no attributes\)$/);
    expect(() => beers.decodeTyped(withName(`<name lang="en">n</name>`))).toThrow(/^record 0 field name: attribute lang \(the wire form has no attributes\)$/);
    expect(() => beers.decodeTyped(utf8("<payload>text</payload>"))).toThrow(/^XML payload: <payload> has text "text" where elements are expected$/);
    expect(() => beers.decodeTyped(utf8("<payload><rows/></payload>"))).toThrow(/^XML payload: <payload> has unexpected element <rows>$/);
  });
  it("any DOCTYPE: no DTD is processed, so no entity expands (billion laughs, external entities)", () => {
    const laughs =
      `<?xml version="1.0"?><!DOCTYPE payload [<!ENTITY lol "lol">` +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`).join("") +
      `]><payload><records>${fields.replace("<name>n</name>", "<name>&lol9;</name>")}</records></payload>`;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    expect(() => beers.decodeTyped(utf8(laughs))).toThrow(/^malformed XML: DOCTYPE declarations are not accepted \(no DTD processing\)$/);
    expect(performance.now() - started).toBeLessThan(100);
    expect((process.memoryUsage.rss() - before) / 2 ** 20).toBeLessThan(32);
    // fast-xml-parser on its own expands a DOCTYPE's internal entities: this one would read as "aaa".
    expect(() => beers.decodeTyped(beer(fields.replace("<name>n</name>", "<name>&a;</name>"), (p) => `<!DOCTYPE payload [<!ENTITY a "aaa">]>${p}`))).toThrow(/DOCTYPE declarations are not accepted/);
    expect(() => beers.decodeTyped(beer(fields.replace("<name>n</name>", "<name>&x;</name>"), (p) => `<!DOCTYPE payload [<!ENTITY x SYSTEM "file:///etc/passwd">]>${p}`))).toThrow(/^malformed XML: External entities are not supported$/);
    expect(() => beers.decodeTyped(beer(fields, (p) => `<!DOCTYPE payload>${p}`))).toThrow(/DOCTYPE declarations are not accepted/);
  });
  it("undefined entities, character references to characters XML forbids, and forbidden raw characters (the library alone keeps, drops or passes them)", () => {
    expect(() => beers.decodeTyped(withName("<name>&nbsp;</name>"))).toThrow(/^malformed XML: undefined entity &nbsp; \(XML defines/);
    expect(() => beers.decodeTyped(withName("<name>&#1;</name>"))).toThrow(/^malformed XML: character reference &#1; is not a legal XML character$/);
    expect(() => beers.decodeTyped(withName("<name>&#x110000;</name>"))).toThrow(/^malformed XML: character reference &#x110000; is not a legal XML character$/);
    expect(() => beers.decodeTyped(withName("<name>&#xD800;</name>"))).toThrow(/is not a legal XML character/);
    expect(() => beers.decodeTyped(withName("<name>&#x;</name>"))).toThrow(/^malformed XML: character reference &#x; is not a legal XML character$/);
    expect(() => beers.decodeTyped(withName("<name>a\u0000b</name>"))).toThrow(/^malformed XML: character U\+0000 at offset \d+ is not allowed in XML 1\.0$/);
    expect(() => beers.decodeTyped(withName("<name>a\uffffb</name>"))).toThrow(/^malformed XML: character U\+FFFF at offset \d+ is not allowed in XML 1\.0$/);
  });
  it("missing, unknown and doubled elements, and text between elements (a missing field fails at decode, as serde and Jackson do)", () => {
    expect(() => beers.decodeTyped(withName(""))).toThrow(/^record 0 field name: missing \(no <name> element; every field is written, defaults included\)$/);
    expect(() => beers.decodeTyped(withName("<name>n</name><name>m</name>"))).toThrow(/^record 0 field name: 2 elements where one is expected \(the field is not repeated\)$/);
    expect(() => beers.decodeTyped(withName("<name>n</name><color>red</color>"))).toThrow(/^record 0: unexpected element <color>$/);
    expect(() => beers.decodeTyped(withName("<name>n</name>stray"))).toThrow(/^record 0: text "stray" between elements$/);
    expect(() => beers.decodeTyped(withName("<name><first>n</first></name>"))).toThrow(/^record 0 field name: child elements where text is expected$/);
    expect(() => beers.decodeTyped(utf8("<payload><records/></payload>"))).toThrow(/^record 0 field alcohol: missing/);
    // Nested: the path names the list entry and the field.
    const text = new TextDecoder().decode(good);
    const second = text.indexOf("<friends><id>1</id>");
    const broken = text.slice(0, second) + "<friends><id>1</id><nom>x</nom>" + text.slice(second + "<friends><id>1</id>".length);
    expect(() => xml.decodeTyped(utf8(broken))).toThrow(/^record 0 field friends\[1\]: unexpected element <nom>$/);
    const missing = text.slice(0, second) + "<friends>" + text.slice(second + "<friends><id>1</id>".length);
    expect(() => xml.decodeTyped(utf8(missing))).toThrow(/^record 0 field friends\[1\]\.id: missing/);
  });
  it("values of the wrong type", () => {
    expect(() => beers.decodeTyped(beer(fields.replace("<alcohol>1</alcohol>", "<alcohol>strong</alcohol>")))).toThrow(/^record 0 field alcohol: "strong" is not a double$/);
    const text = new TextDecoder().decode(good);
    expect(() => xml.decodeTyped(utf8(text.replace("<isActive>true</isActive>", "<isActive>yes</isActive>")))).toThrow(/^record 0 field isActive: "yes" is not true or false$/);
    expect(() => xml.decodeTyped(utf8(text.replace("<index>0</index>", "<index>one</index>")))).toThrow(/^record 0 field index: "one" is not an int32$/);
    expect(() => xml.decodeTyped(utf8(text.replace("<index>0</index>", "<index/>")))).toThrow(/^record 0 field index: "" is not an int32$/);
  });
  it("elements nested deeper than the parser's limit, with the codec's error", () => {
    const deep = utf8(`<payload>${"<records>".repeat(100_000)}${"</records>".repeat(100_000)}</payload>`);
    expect(() => xml.decodeTyped(deep)).toThrow(/^malformed XML: Maximum nested tags exceeded$/);
  });
});
