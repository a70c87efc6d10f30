import { fromJson, toBinary, type DescMessage, type JsonObject } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Binary, BSON, Double, Long } from "bson";
import { describe, expect, it } from "vitest";
import { decodeRecords, encodeRecords, formatOf, type DecodeMode } from "../src/codecs/codec";
import { refusalsOf } from "../src/codecs/refusals";
import { codecs } from "../src/codecs/registry";
import { compareRecords } from "../src/datasets/compare";
import { readLazyField, type Dataset } from "../src/datasets/dataset";
import { registerUserDataset } from "../src/datasets/registry";
import { compileSet, HARNESS_EVERYTHING, HARNESS_SIGNED, sourceOf } from "./user-schemas";

// The payload rules of proto/README.md ("The other proto3 features, in every schema-less codec")
// on harness/tests/test_user_dataset.py's Everything: every codec round-trips and verifies it in
// each of its decode modes (bson and ubjson on the same schema without its uint64 fields, which
// they refuse), the exact json text and xml forms of a small record, and the decode errors.

const everythingSet = compileSet(HARNESS_EVERYTHING);
const signedSet = compileSet(HARNESS_SIGNED);
const everything = registerUserDataset(sourceOf({ id: "harness_everything", message: "zz.unknown.v1.Everything", fieldNames: "json", lazyFields: [], fingerprint: "" }, everythingSet));
const LAZY = ["raw", "at", "u32", "i64", "s64", "fl", "colour", "main.name", "text"];
const signed = registerUserDataset(sourceOf({ id: "harness_signed", message: "zz.unknown.v1.Signed", fieldNames: "json", lazyFields: LAZY, fingerprint: "" }, signedSet));

/** Records in the proto3 JSON mapping, as the harness reads a records file, through the canonical blob into the model. */
function modelRecords(dataset: Dataset, json: JsonObject[]): unknown[] {
  const writer = new BinaryWriter();
  for (const record of json) writer.tag(1, WireType.LengthDelimited).bytes(toBinary(dataset.recordMessage, fromJson(dataset.recordMessage as DescMessage, record)));
  return dataset.fromCanonical(writer.finish());
}

/** Like the harness's records: extremes of every integer, parts and counts cycling, the oneof alternating, `note` unset, empty or set. */
function harnessLike(i: number, unsigned64: boolean): JsonObject {
  const record: JsonObject = {
    i32: i % 2 ? -2147483648 : 2147483647, i64: i % 2 ? "-9223372036854775808" : "9223372036854775807", u32: 4294967295 - i, s32: -i, s64: String(2n ** 53n + BigInt(i)),
    f32: 4294967295, sf32: -2147483648, sf64: "-9223372036854775808", fl: 0.1 * i, db: 0.1 + i, ok: i % 2 === 0, text: `record ${i} <&> "q"\r`,
    raw: ["", "AAEC/w==", "/w=="][i % 3]!, colour: "COLOUR_GREEN", main: { name: "m-ü", weight: -i, colour: "COLOUR_RED" },
    parts: Array.from({ length: i % 3 }, (_, j) => ({ name: `p${j}`, weight: j })), counts: i % 3 ? { a: i, b: -i, "": 0 } : {},
    at: ["2026-11-27T10:00:00Z", "2026-11-27T10:00:00.120Z", "1969-12-31T23:59:59.999999999Z"][i % 3]!, tags: ["x", "y"].slice(0, i % 3),
  };
  if (unsigned64) Object.assign(record, { u64: String(2n ** 64n - 1n - BigInt(i)), f64: "18446744073709551615" });
  if (i % 2) record.label = `L${i}`;
  else record.code = i;
  if (i % 4) record.note = i % 4 === 1 ? "" : `n${i}`;
  return record;
}

function modesOf(dataset: Dataset, codecId: string, records: unknown[]): Array<[DecodeMode, () => void]> {
  const codec = codecs.get(codecId)!;
  const prepared = codec.prepare(dataset);
  const payload = encodeRecords(prepared, records);
  return codec.info.decodeModes.map((mode) => {
    if (mode === "typed") return [mode, () => expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull()];
    if (mode === "tree") return [mode, () => expect(compareRecords(dataset.record, records, prepared.treeToRecords!(prepared.decodeTree!(payload)))).toBeNull()];
    const expected = records.flatMap((record) => dataset.lazyFields.map((field) => readLazyField(record, field)));
    return [mode, () => expect(prepared.decodeLazy!(payload, dataset.lazyFields)).toEqual(expected)];
  });
}

const text = (dataset: Dataset, codec: string, records: unknown[]) => new TextDecoder().decode(encodeRecords(codecs.get(codec)!.prepare(dataset), records));

describe("harness's Everything: every proto3 feature in every schema-less codec", () => {
  const records = modelRecords(everything, Array.from({ length: 7 }, (_, i) => harnessLike(i, true)));
  const signedRecords = modelRecords(signed, Array.from({ length: 7 }, (_, i) => harnessLike(i, false)));

  it("is refused by bson and ubjson for its uint64 (no faithful form), by flatbuffers as before, by no other codec", () => {
    expect(refusalsOf(everything)).toEqual([
      { codec: "bson", decodeMode: "", reason: "bson: uint64 field zz.unknown.v1.Everything.u64 is not offered" },
      { codec: "ubjson", decodeMode: "", reason: "ubjson: uint64 field zz.unknown.v1.Everything.u64 is not offered" },
      { codec: "flatbuffers", decodeMode: "", reason: "flatbuffers: uint32 field zz.unknown.v1.Everything.u32 is not offered" },
    ]);
    // fixed64 by its own name when it is the first.
    const fixed = compileSet({ "f.proto": 'syntax = "proto3";\nmessage F { fixed64 f64 = 1; }\n' });
    expect(refusalsOf(registerUserDataset(sourceOf({ id: "fixed64_only", message: "F", fieldNames: "json", lazyFields: [], fingerprint: "" }, fixed))).map((r) => r.reason)).toEqual([
      "bson: fixed64 field F.f64 is not offered",
      "ubjson: fixed64 field F.f64 is not offered",
      "flatbuffers: fixed64 field F.f64 is not offered",
    ]);
    expect(refusalsOf(signed)).toEqual([{ codec: "flatbuffers", decodeMode: "", reason: "flatbuffers: uint32 field zz.unknown.v1.Signed.u32 is not offered" }]);
  });

  it("refuses the other well-known types in the schema-less codecs, by their full name; flatbuffers still carries them as tables", () => {
    const set = compileSet({ "d.proto": 'syntax = "proto3";\nimport "google/protobuf/duration.proto";\nmessage D { string id = 1; google.protobuf.Duration took = 2; }\n' });
    const dataset = registerUserDataset(sourceOf({ id: "with_duration", message: "D", fieldNames: "json", lazyFields: [], fingerprint: "" }, set));
    // Every schema-less codec (each implementation of its format) refuses it; protobuf and flatbuffers carry it.
    const schemaless = [...codecs.keys()].filter((id) => !["protobuf", "flatbuffers"].includes(formatOf(id)));
    expect(schemaless).toContain("msgpack/msgpackr");
    expect(refusalsOf(dataset).map((r) => r.reason)).toEqual(schemaless.map((codec) => `${codec}: google.protobuf.Duration field D.took is not offered`));
  });

  describe.each(["json", "msgpack", "cbor", "xml", "protobuf"])("%s, with uint64", (codec) => {
    it.each(modesOf(everything, codec, records))("round-trips and verifies, %s", (_mode, check) => check());
  });

  describe.each(["json", "bson", "ubjson", "msgpack", "cbor", "xml", "protobuf"])("%s, without uint64", (codec) => {
    it.each(modesOf(signed, codec, signedRecords))("round-trips and verifies, %s", (_mode, check) => check());
  });

  const tiny = modelRecords(everything, [
    {
      i32: 1, i64: "-9223372036854775808", u32: 4294967295, u64: "18446744073709551615", s32: -5, s64: "9007199254740993", f32: 7, f64: "8", sf32: -9, sf64: "-10",
      fl: 1.5, db: 0.1, ok: true, text: "t", raw: "AAEC/w==", colour: "COLOUR_GREEN", main: { name: "m", weight: 2, colour: "COLOUR_RED" }, counts: { a: 1 }, label: "x",
      at: "2026-11-27T10:00:00Z", tags: ["x"],
    },
  ]);

  it("json: every integer a number however large, bytes base64, a map an object, only the oneof's set member, the Timestamp's RFC 3339 text", () => {
    expect(text(everything, "json", tiny)).toBe(
      '{"records":[{"i32":1,"i64":-9223372036854775808,"u32":4294967295,"u64":18446744073709551615,"s32":-5,"s64":9007199254740993,"f32":7,"f64":8,"sf32":-9,"sf64":-10,' +
        '"fl":1.5,"db":0.1,"ok":true,"text":"t","raw":"AAEC/w==","colour":"COLOUR_GREEN","main":{"name":"m","weight":2,"colour":"COLOUR_RED"},"parts":[],"counts":{"a":1},' +
        '"label":"x","at":"2026-11-27T10:00:00Z","tags":["x"]}]}',
    );
  });

  it("xml: integers in decimal, bytes base64, a map's entries as <key> and <value>, only the oneof's set member, the Timestamp's text", () => {
    const xml = text(everything, "xml", tiny);
    expect(xml).toContain("<records><i32>1</i32><i64>-9223372036854775808</i64><u32>4294967295</u32><u64>18446744073709551615</u64><s32>-5</s32><s64>9007199254740993</s64>");
    expect(xml).toContain("<fl>1.5</fl><db>0.1</db><ok>true</ok><text>t</text><raw>AAEC/w==</raw><colour>COLOUR_GREEN</colour>");
    expect(xml).toContain("</main><counts><key>a</key><value>1</value></counts><label>x</label><at>2026-11-27T10:00:00Z</at><tags>x</tags></records>");
    expect(xml).not.toContain("<parts>");
    expect(xml).not.toContain("<code>");
    expect(xml).not.toContain("<note>");
    const two = modelRecords(everything, [{ counts: { a: 1, b: -2 }, raw: "" }]);
    expect(text(everything, "xml", two)).toContain("<raw></raw>");
    expect(text(everything, "xml", two)).toContain("<counts><key>a</key><value>1</value></counts><counts><key>b</key><value>-2</value></counts>");
  });

  it("bson: uint32 as int64, float as double, bytes binary subtype 0, a map an embedded document, the Timestamp a string", () => {
    const small = modelRecords(signed, [{ u32: 7, fl: 2, raw: "AAEC/w==", counts: { a: 1 }, at: "2026-11-27T10:00:00.120Z", code: 3 }]);
    const document = BSON.deserialize(encodeRecords(codecs.get("bson")!.prepare(signed), small), { promoteValues: false }) as { records: Record<string, Record<string, unknown>> };
    const record = document.records["0"]!;
    expect(record.u32).toBeInstanceOf(Long);
    expect(record.fl).toBeInstanceOf(Double);
    expect((record.raw as Binary).sub_type).toBe(0);
    expect([...(record.raw as Binary).value()]).toEqual([0, 1, 2, 255]);
    expect(record.counts).toEqual({ a: expect.anything() });
    expect(String(record.at)).toBe("2026-11-27T10:00:00.120Z");
    expect(Object.keys(record)).toContain("code");
    expect(Object.keys(record)).not.toContain("label");
  });

  it("ubjson: bytes as [$U#<length><bytes>, float as float32 (d), uint32 above 2^31 - 1 as int64 (L)", () => {
    const small = modelRecords(signed, [{ u32: 4294967295, fl: 1.5, raw: "AAEC/w==" }]);
    const payload = Buffer.from(encodeRecords(codecs.get("ubjson")!.prepare(signed), small));
    expect(payload.includes(Buffer.from([0x69, 3, ...Buffer.from("u32"), 0x4c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]))).toBe(true);
    expect(payload.includes(Buffer.from([0x69, 2, ...Buffer.from("fl"), 0x64, 0x3f, 0xc0, 0, 0]))).toBe(true);
    expect(payload.includes(Buffer.from([0x69, 3, ...Buffer.from("raw"), 0x5b, 0x24, 0x55, 0x23, 0x69, 4, 0, 1, 2, 255]))).toBe(true);
  });

  it("reads what other writers may write: a float in any width or decimal, a Timestamp with other fractional digits, map entries in any order", () => {
    const json = codecs.get("json")!.prepare(everything);
    const mine = JSON.parse(text(everything, "json", tiny)) as { records: Array<Record<string, unknown>> };
    const theirs = text(everything, "json", tiny)
      .replace('"fl":1.5', '"fl":1.50000001')
      .replace('"at":"2026-11-27T10:00:00Z"', '"at":"2026-11-27T11:00:00.000000000+01:00"');
    expect(mine.records[0]!.fl).toBe(1.5);
    expect(compareRecords(everything.record, tiny, decodeRecords(json, new TextEncoder().encode(theirs)))).toBeNull();
    const twoEntries = modelRecords(everything, [{ counts: { a: 1, b: 2 } }]);
    const swapped = text(everything, "json", twoEntries).replace('"counts":{"a":1,"b":2}', '"counts":{"b":2,"a":1}');
    expect(compareRecords(everything.record, twoEntries, decodeRecords(json, new TextEncoder().encode(swapped)))).toBeNull();
  });

  it("json: a map's keys named like a 64-bit field or an index stay the map's numbers", () => {
    const json = codecs.get("json")!.prepare(everything);
    const named = modelRecords(everything, [{ i64: "9007199254740993", counts: { i64: 5, "0": 1, u64: -2 }, tags: ["0"] }]);
    expect(compareRecords(everything.record, named, decodeRecords(json, encodeRecords(json, named)))).toBeNull();
  });

  it.each([
    ["json", (payload: string) => payload.replace('"label":"x"', '"label":"x","code":3')],
    ["xml", (payload: string) => payload.replace("<label>x</label>", "<label>x</label><code>3</code>")],
  ])("%s: two members of one oneof are a decode error", (codec, change) => {
    const prepared = codecs.get(codec)!.prepare(everything);
    const payload = new TextEncoder().encode(change(text(everything, codec, tiny)));
    expect(() => decodeRecords(prepared, payload)).toThrow(codec === "json" ? "oneof zz.unknown.v1.Everything.choice has two members present, label and code" : "record 0 field code: a second member of oneof choice (<label> is there too)");
  });

  it.each(["msgpack", "cbor"])("%s: two members of one oneof are a decode error", (codec) => {
    const prepared = codecs.get(codec)!.prepare(everything);
    const both = structuredClone(tiny) as Array<Record<string, unknown>>;
    both[0]!.code = 3;
    expect(() => decodeRecords(prepared, encodeRecords(prepared, both))).toThrow("oneof zz.unknown.v1.Everything.choice has two members present, label and code");
  });

  it("xml refuses bytes that are not base64 with padding and a map entry without its value", () => {
    const xml = codecs.get("xml")!.prepare(everything);
    const payload = text(everything, "xml", tiny);
    expect(() => decodeRecords(xml, new TextEncoder().encode(payload.replace("<raw>AAEC/w==</raw>", "<raw>AAEC/w</raw>")))).toThrow('record 0 field raw: "AAEC/w" is not base64 with padding');
    expect(() => decodeRecords(xml, new TextEncoder().encode(payload.replace("<value>1</value>", "")))).toThrow("record 0 field counts[0]: missing (no <value> element in a map entry)");
    expect(() => decodeRecords(xml, new TextEncoder().encode(payload.replace("<u64>18446744073709551615</u64>", "<u64>18446744073709551616</u64>")))).toThrow('record 0 field u64: "18446744073709551616" is not a uint64');
  });

  it("bson lazy reads bytes in base64, the Timestamp as its text, uint32 and 64-bit integers in decimal, an enum by name", () => {
    const lazy = codecs.get("bson")!.prepare(signed).decodeLazy!(encodeRecords(codecs.get("bson")!.prepare(signed), signedRecords.slice(1, 2)), LAZY);
    expect(lazy).toEqual(["AAEC/w==", "2026-11-27T10:00:00.120Z", "4294967294", "-9223372036854775808", "9007199254740993", String(Math.fround(0.1)), "COLOUR_GREEN", "m-ü", 'record 1 <&> "q"\r']);
  });

  it("a lazy field through a map or into a repeated field is refused with its reason; bytes and a Timestamp are read", () => {
    const refusal = (fields: string[], id: string) =>
      refusalsOf(registerUserDataset(sourceOf({ id, message: "zz.unknown.v1.Signed", fieldNames: "json", lazyFields: fields, fingerprint: "" }, signedSet))).filter((r) => r.decodeMode === "lazy");
    expect(refusal(["raw", "at"], "lazy_ok")).toEqual([]);
    expect(refusal(["counts.a"], "lazy_map")).toEqual([{ codec: "bson", decodeMode: "lazy", reason: 'bson: lazy field "counts.a" goes into a map field, where a lazy read takes a dotted path through messages' }]);
    expect(refusal(["counts"], "lazy_map_itself")[0]!.reason).toBe('bson: lazy field "counts" is a map field, where a lazy read takes a scalar, an enum or a Timestamp');
  });
});
