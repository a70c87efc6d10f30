import { create, toBinary, type DescField, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { Builder, ByteBuffer } from "flatbuffers";
import { describe, expect, it } from "vitest";
import { FlatBuffersError, flatbuffersCodec } from "../src/codecs/flatbuffers";
import { BeersDatasetSchema, DocsDatasetSchema, NumericDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { BeerRecord } from "../src/gen/fbs/codecbench/v1/beer-record";
import { BeersDataset } from "../src/gen/fbs/codecbench/v1/beers-dataset";
import { DocRecord } from "../src/gen/fbs/codecbench/v1/doc-record";
import { DocsDataset } from "../src/gen/fbs/codecbench/v1/docs-dataset";
import { OwnersDataset } from "../src/gen/fbs/codecbench/v1/owners-dataset";
import { compareRecords } from "../src/datasets/compare";
import { readLazyField, type Dataset } from "../src/datasets/dataset";
import { datasetById } from "../src/datasets/registry";
import { canonicalPb, datasetIds } from "./vectors";

// What is particular to flatbuffers in the browser. The codec maps generically from the protobuf
// descriptors and does not call flatc's generated TypeScript (src/gen/fbs/, made by
// `npm run generate`), so this proves both directions against it on every dataset: the codec's
// buffers read through the generated accessors give the canonical records (and every string,
// vector and table is there, not left for the default), and buffers written with the generated
// builders (fields in another order) decode through the codec. Then: absent fields as proto
// defaults, -0.0, int64 extremes, text byte for byte, lazy paths of every kind and their errors.

// Every class flatc generated, by table name (DocRecord, OwnersDataset, ...).
type Generated = any;
const generated = new Map<string, Generated>();
for (const module of Object.values(import.meta.glob("../src/gen/fbs/codecbench/v1/*.ts", { eager: true }))) {
  for (const [name, value] of Object.entries(module as Record<string, unknown>)) generated.set(name, value);
}
const classOf = (desc: DescMessage): Generated => {
  const found = generated.get(desc.name);
  if (!found) throw new Error(`flatc generated no class ${desc.name} (run npm run generate)`);
  return found;
};
/** flatc's accessor suffix for a field: add<Name>, create<Name>Vector. */
const pascal = (field: DescField) => field.localName[0]!.toUpperCase() + field.localName.slice(1);

/** The list field of a `*Dataset` message, and whether the model holds a record as that list (matrix). */
function shape(dataset: Dataset): { records: DescField; record: DescMessage; unwrapped: DescField | null } {
  const records = dataset.message.fields[0]!;
  const record = records.message!;
  return { records, record, unwrapped: typeof dataset.record === "object" && dataset.record.kind === "repeated" ? record.fields[0]! : null };
}

/** A table read through flatc's generated accessors into a model object; strings, vectors and tables must be present. */
function readGenerated(desc: DescMessage, table: Generated, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of desc.fields) {
    const name = field.localName;
    const where = `${path}.${field.jsonName}`;
    // Present in the vtable (a string, vector or table is written even when empty).
    const present = table.bb.__offset(table.bb_pos, 4 + 2 * desc.fields.indexOf(field)) !== 0;
    // A proto3 optional field is absent when unset (proto/README.md, "Payloads").
    if (field.proto.proto3Optional && !present) continue;
    if (field.fieldKind === "list") {
      expect(present, `${where}: vector written`).toBe(true);
      const items = Array.from({ length: table[`${name}Length`]() as number }, (_, i) => table[name](i));
      out[field.jsonName] = field.listKind === "message" ? items.map((item, i) => readGenerated(field.message, item, `${where}[${i}]`)) : items;
    } else if (field.fieldKind === "message") {
      expect(present, `${where}: table written`).toBe(true);
      out[field.jsonName] = readGenerated(field.message, table[name](), where);
    } else {
      const value = table[name]();
      if (field.scalar === 9 /* STRING */) expect(value, `${where}: string written`).not.toBeNull();
      // flatc's enum is the number; the model holds the value's name.
      out[field.jsonName] = field.fieldKind === "enum" ? (field.enum.values.find((v) => v.number === value)?.name ?? value) : value;
    }
  }
  return out;
}

/** The model records of a payload, read with flatc's generated classes only. */
function readAllGenerated(dataset: Dataset, payload: Uint8Array): unknown[] {
  const { record, unwrapped } = shape(dataset);
  const Root = classOf(dataset.message);
  const root = Root[`getRootAs${dataset.message.name}`](new ByteBuffer(payload));
  return Array.from({ length: root.recordsLength() as number }, (_, i) => {
    const object = readGenerated(record, root.records(i), `records[${i}]`);
    return unwrapped ? object[unwrapped.jsonName] : object;
  });
}

/** A model object written with flatc's generated builders: children first, then start/add*(declaration order)/end. */
function writeGenerated(b: Builder, desc: DescMessage, value: Record<string, unknown>): number {
  const Table = classOf(desc);
  const offsets = new Map<DescField, number>();
  for (const field of desc.fields) {
    const v = value[field.jsonName];
    if (v === undefined) continue; // an unset optional field
    if (field.fieldKind === "list") {
      const items = v as unknown[];
      const elements = field.listKind === "message" ? items.map((item) => writeGenerated(b, field.message, item as Record<string, unknown>)) : field.scalar === 9 ? items.map((s) => b.createString(s as string)) : items;
      offsets.set(field, Table[`create${pascal(field)}Vector`](b, elements));
    } else if (field.fieldKind === "message") offsets.set(field, writeGenerated(b, field.message, v as Record<string, unknown>));
    else if (field.scalar === 9) offsets.set(field, b.createString(v as string));
  }
  Table[`start${desc.name}`](b);
  for (const field of desc.fields) {
    const v = value[field.jsonName];
    if (v === undefined) continue;
    const number = field.fieldKind === "enum" ? field.enum.values.find((e) => e.name === v)!.number : v;
    Table[`add${pascal(field)}`](b, offsets.get(field) ?? number);
  }
  return Table[`end${desc.name}`](b);
}

function writeAllGenerated(dataset: Dataset, records: readonly unknown[]): Uint8Array {
  const { record, unwrapped } = shape(dataset);
  const b = new Builder();
  const offsets = records.map((r) => writeGenerated(b, record, (unwrapped ? { [unwrapped.jsonName]: r } : r) as Record<string, unknown>));
  const Root = classOf(dataset.message);
  const vector = Root.createRecordsVector(b, offsets);
  b.finish(Root[`create${dataset.message.name}`](b, vector));
  return b.asUint8Array().slice();
}

describe.each(datasetIds)("flatbuffers and flatc's generated TypeScript, dataset %s", (id) => {
  const dataset = datasetById(id);
  const records = dataset.fromCanonical(canonicalPb(id));
  const prepared = flatbuffersCodec.prepare(dataset);

  it("the codec's buffer reads through the generated accessors as the canonical records, every string, vector and table written", () => {
    expect(compareRecords(dataset.record, records, readAllGenerated(dataset, prepared.encode(records)))).toBeNull();
  });

  it("a buffer written with the generated builders decodes (typed and lazy) through the codec", () => {
    const payload = writeAllGenerated(dataset, records);
    expect(compareRecords(dataset.record, records, prepared.decodeTyped(payload))).toBeNull();
    expect(prepared.decodeLazy!(payload, dataset.lazyFields)).toEqual(records.flatMap((r) => dataset.lazyFields.map((f) => readLazyField(r, f))));
  });
});

describe("flatbuffers wire shape", () => {
  const owners = datasetById("owners");
  // The native model's shape of an owner, as far as this test reads it.
  type OwnerRecord = { telephone: bigint; cars: Array<{ brand: string; co2Emissions: number }> };
  const ownerRecords = owners.fromCanonical(canonicalPb("owners")) as OwnerRecord[];

  it("reads by hand through the generated classes: records(0).cars(1).brand(), telephone as bigint", () => {
    const root = OwnersDataset.getRootAsOwnersDataset(new ByteBuffer(flatbuffersCodec.prepare(owners).encode(ownerRecords)));
    expect(root.recordsLength()).toBe(ownerRecords.length);
    expect(root.records(0)!.cars(1)!.brand()).toBe(ownerRecords[0]!.cars[1]!.brand);
    expect(root.records(2)!.telephone()).toBe(ownerRecords[2]!.telephone);
    expect(root.records(1)!.cars(3)!.co2Emissions()).toBe(ownerRecords[1]!.cars[3]!.co2Emissions);
  });

  it("no file identifier, the root table first; empty strings, vectors and tables written, zero scalars omitted; a copy out of the builder", () => {
    const docs = datasetById("docs");
    const prepared = flatbuffersCodec.prepare(docs);
    const empty = docs.fromCanonical(toBinary(DocsDatasetSchema, create(DocsDatasetSchema, { records: [{}] })));
    const payload = prepared.encode(empty);
    const root = DocsDataset.getRootAsDocsDataset(new ByteBuffer(payload));
    const record: DocRecord = root.records(0)!;
    const slot = (table: { bb: ByteBuffer | null; bb_pos: number }, index: number) => table.bb!.__offset(table.bb_pos, 4 + 2 * index);
    expect(record.name()).toBe("");
    expect(record.department()!.employee()!.surname()).toBe("");
    expect(slot(record, 6)).not.toBe(0); // goods: an empty vector
    expect(record.goodsLength()).toBe(0);
    expect(slot(record.department()!, 1)).toBe(0); // time 0: omitted, read as the default
    expect(prepared.decodeTyped(payload)).toEqual(empty);
    // The root offset is the first word; nothing else is prefixed.
    expect(new DataView(payload.buffer, payload.byteOffset).getUint32(0, true)).toBeLessThan(payload.length);
    expect(payload.byteOffset).toBe(0);
    expect(payload.buffer.byteLength).toBe(payload.length);
  });

  it("absent strings, vectors and tables (another writer may omit them) read as the proto defaults, typed and lazy", () => {
    const docs = datasetById("docs");
    const b = new Builder();
    const name = b.createString("only a name");
    DocRecord.startDocRecord(b);
    DocRecord.addName(b, name);
    const record = DocRecord.endDocRecord(b);
    b.finish(DocsDataset.createDocsDataset(b, DocsDataset.createRecordsVector(b, [record])));
    const payload = b.asUint8Array();
    const prepared = flatbuffersCodec.prepare(docs);
    const defaults = docs.fromCanonical(toBinary(DocsDatasetSchema, create(DocsDatasetSchema, { records: [{ name: "only a name" }] })));
    expect(compareRecords(docs.record, defaults, prepared.decodeTyped(payload))).toBeNull();
    expect(prepared.decodeLazy!(payload, ["name", "delivery.company", "department.time", "delivery.address.code"])).toEqual(["only a name", "", "0", ""]);
    // No records vector at all: no records.
    const bare = new Builder();
    bare.finish(DocsDataset.createDocsDataset(bare, 0));
    expect(prepared.decodeTyped(bare.asUint8Array())).toEqual([]);
    expect(prepared.decodeLazy!(bare.asUint8Array(), ["name"])).toEqual([]);
  });

  it("-0.0 survives (the library's `value != default` would drop it and read +0.0), and through the generated accessor", () => {
    const beers = datasetById("beers");
    const records = beers.fromCanonical(toBinary(BeersDatasetSchema, create(BeersDatasetSchema, { records: [{ alcohol: -0 }, { alcohol: 0 }, { alcohol: 5e-324 }] })));
    expect(Object.is((records[0] as { alcohol: number }).alcohol, -0)).toBe(true);
    const prepared = flatbuffersCodec.prepare(beers);
    const payload = prepared.encode(records);
    const back = prepared.decodeTyped(payload) as { alcohol: number }[];
    expect(back.map((r) => r.alcohol)).toEqual([-0, 0, 5e-324]);
    expect(Object.is(back[0]!.alcohol, -0)).toBe(true);
    expect(Object.is(back[1]!.alcohol, 0)).toBe(true);
    const record: BeerRecord = BeersDataset.getRootAsBeersDataset(new ByteBuffer(payload)).records(0)!;
    expect(Object.is(record.alcohol(), -0)).toBe(true);
  });

  it("int64 extremes exact (typed and lazy, generic paths into lists), doubles bit-exact", () => {
    const numeric = datasetById("numeric");
    const coordinates = [
      { timestamp: -(2n ** 63n), latitude: -90, longitude: 1.7976931348623157e308 },
      { timestamp: 2n ** 63n - 1n, latitude: 0.1 + 0.2, longitude: -Number.MIN_VALUE },
      { timestamp: 2n ** 53n + 1n, latitude: Number.NaN, longitude: Infinity },
    ];
    const records = numeric.fromCanonical(toBinary(NumericDatasetSchema, create(NumericDatasetSchema, { records: [{ id: "n", index: -1, numbr: 2147483647, coordinates }] })));
    const prepared = flatbuffersCodec.prepare(numeric);
    const payload = prepared.encode(records);
    const back = prepared.decodeTyped(payload) as { coordinates: { timestamp: bigint; latitude: number; longitude: number }[] }[];
    expect(back[0]!.coordinates.map((c) => c.timestamp)).toEqual(coordinates.map((c) => c.timestamp));
    expect(back[0]!.coordinates.map((c) => [c.latitude, c.longitude])).toEqual(coordinates.map((c) => [c.latitude, c.longitude]));
    expect(prepared.decodeLazy!(payload, ["coordinates.0.timestamp", "coordinates.1.timestamp", "coordinates.1.latitude", "numbr", "index"])).toEqual([
      "-9223372036854775808",
      "9223372036854775807",
      "0.30000000000000004",
      "2147483647",
      "-1",
    ]);
  });

  it("text byte for byte: CR, CRLF, tabs, leading/trailing spaces, NUL, non-ASCII and astral characters", () => {
    const beers = datasetById("beers");
    const texts = ["a\r\nb\rc\n", "  padded\t ", "nul\u0000inside", "żółć € 😀 \u{10FFFF}", ""];
    const records = beers.fromCanonical(toBinary(BeersDatasetSchema, create(BeersDatasetSchema, { records: texts.map((name) => ({ name, details: name })) })));
    const prepared = flatbuffersCodec.prepare(beers);
    const payload = prepared.encode(records);
    expect((prepared.decodeTyped(payload) as { name: string }[]).map((r) => r.name)).toEqual(texts);
    expect(prepared.decodeLazy!(payload, ["details"])).toEqual(texts);
  });

  it("lazy reads every scalar kind as text: bools, int64, doubles, nested and indexed paths", () => {
    const dummy = datasetById("dummy");
    const records = dummy.fromCanonical(canonicalPb("dummy"));
    const prepared = flatbuffersCodec.prepare(dummy);
    const fields = ["isActive", "balance", "index", "friends.1.name", "friends.2.id", "tags.0"];
    expect(prepared.decodeLazy!(prepared.encode(records), fields)).toEqual(records.flatMap((r) => fields.map((f) => readLazyField(r, f))));
    const ownersCodec = flatbuffersCodec.prepare(owners);
    const ownerFields = ["telephone", "cars.3.weight", "cars.0.consumption"];
    expect(ownersCodec.decodeLazy!(ownersCodec.encode(ownerRecords), ownerFields)).toEqual(ownerRecords.flatMap((r) => ownerFields.map((f) => readLazyField(r, f))));
  });

  it("lazy refuses what is not a scalar field of the record, before reading, and an index past a list's end", () => {
    const prepared = flatbuffersCodec.prepare(datasetById("docs"));
    const payload = prepared.encode(datasetById("docs").fromCanonical(canonicalPb("docs")));
    const lazy = (fields: string[]) => () => prepared.decodeLazy!(payload, fields);
    expect(lazy(["delivery.nope"])).toThrow(new FlatBuffersError(`codecbench.v1.DocRecord records have no field "delivery.nope" (codecbench.v1.DocDelivery has no field "nope")`));
    expect(lazy(["delivery"])).toThrow(/^codecbench\.v1\.DocRecord records have no field "delivery" \(it is a message, not a scalar a lazy read turns into text\)$/);
    expect(lazy(["goods"])).toThrow(/\(it is a list, not a scalar/);
    expect(lazy(["name.first"])).toThrow(/\("first" is inside a scalar\)$/);
    expect(lazy(["goods.x.name"])).toThrow(/\("x" is not an index into the list goods\)$/);
    expect(lazy(["goods.99.name"])).toThrow(/^record 0 has no field "goods\.99\.name" \(goods has \d+ entries\)$/);
    expect(lazy([])).toThrow(/^a lazy read needs at least one field$/);
    const matrix = flatbuffersCodec.prepare(datasetById("matrix"));
    const rows = matrix.encode([["1", "2"]]);
    expect(matrix.decodeLazy!(rows, ["1", "0"])).toEqual(["2", "1"]);
    expect(() => matrix.decodeLazy!(rows, ["2"])).toThrow(/^record 0 has no field "2" \(cells has 2 entries\)$/);
    expect(() => matrix.decodeLazy!(rows, ["cells"])).toThrow(/\("cells" is not an index into the list cells\)$/);
  });
});
