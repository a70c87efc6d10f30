import { create, createFileRegistry, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, file_google_protobuf_timestamp, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { codecs } from "../src/codecs/registry";
import { DatasetOptionsSchema } from "../src/gen/codecbench/v1/dataset_options_pb";
import { compareRecords } from "../src/datasets/compare";
import { datasetOf, readLazyField } from "../src/datasets/dataset";
import { datasets } from "../src/datasets/registry";
import { requireOffered, type FieldType } from "../src/datasets/schema";
import { canonicalPb } from "./vectors";

// The native model, the record schema and the conversions are derived from the descriptors alone:
// a record message no web source names, using every proto3 feature, gets a dataset, converts both
// ways exactly, goes through the protobuf codec, and every codec that cannot carry one of its
// field types yet refuses it, naming the field.

const optional = (name: string, number: number, type: Type, extra: object = {}) => ({ name, number, label: Label.OPTIONAL, type, ...extra });
const scalars: Array<[string, Type]> = [
  ["d", Type.DOUBLE],
  ["f", Type.FLOAT],
  ["i32", Type.INT32],
  ["i64", Type.INT64],
  ["u32", Type.UINT32],
  ["u64", Type.UINT64],
  ["s32", Type.SINT32],
  ["s64", Type.SINT64],
  ["fx32", Type.FIXED32],
  ["fx64", Type.FIXED64],
  ["sf32", Type.SFIXED32],
  ["sf64", Type.SFIXED64],
  ["flag", Type.BOOL],
  ["text", Type.STRING],
  ["blob", Type.BYTES],
];

const file = create(FileDescriptorProtoSchema, {
  name: "acme/shop.proto",
  package: "acme.shop",
  syntax: "proto3",
  dependency: ["google/protobuf/timestamp.proto"],
  enumType: [{ name: "Status", value: [{ name: "STATUS_UNSPECIFIED", number: 0 }, { name: "STATUS_PAID", number: 1 }] }],
  messageType: [
    {
      name: "Order",
      field: [
        ...scalars.map(([name, type], i) => optional(name, i + 1, type)),
        optional("status", 20, Type.ENUM, { typeName: ".acme.shop.Status" }),
        optional("line", 21, Type.MESSAGE, { typeName: ".acme.shop.Line" }),
        { name: "lines", number: 22, label: Label.REPEATED, type: Type.MESSAGE, typeName: ".acme.shop.Line" },
        { name: "tags", number: 23, label: Label.REPEATED, type: Type.STRING },
        { name: "attributes", number: 24, label: Label.REPEATED, type: Type.MESSAGE, typeName: ".acme.shop.Order.AttributesEntry" },
        optional("note", 25, Type.STRING, { oneofIndex: 1, proto3Optional: true }),
        optional("card", 26, Type.STRING, { oneofIndex: 0 }),
        optional("voucher", 27, Type.MESSAGE, { typeName: ".acme.shop.Line", oneofIndex: 0 }),
        optional("placed_at", 28, Type.MESSAGE, { typeName: ".google.protobuf.Timestamp" }),
      ],
      nestedType: [{ name: "AttributesEntry", field: [optional("key", 1, Type.STRING), optional("value", 2, Type.INT64)], options: { mapEntry: true } }],
      oneofDecl: [{ name: "payment" }, { name: "_note" }],
    },
    { name: "Line", field: [optional("sku", 1, Type.STRING), optional("quantity", 2, Type.UINT32)] },
  ],
});
const registry = createFileRegistry(file, (name) => (name === "google/protobuf/timestamp.proto" ? file_google_protobuf_timestamp : undefined));
const order = registry.getMessage("acme.shop.Order") as DescMessage;
const dataset = datasetOf(order, create(DatasetOptionsSchema, { id: "orders", lazyFields: ["text", "line.sku"] }));

const full = create(order, {
  d: 0.1,
  f: 1.5,
  i32: -7,
  i64: -(2n ** 63n),
  u32: 4294967295,
  u64: 2n ** 64n - 1n,
  s32: -2147483648,
  s64: 2n ** 53n + 1n,
  fx32: 7,
  fx64: 8n,
  sf32: -9,
  sf64: -10n,
  flag: true,
  text: "Grüße",
  blob: new Uint8Array([0, 255]),
  status: 1,
  line: { sku: "a", quantity: 2 },
  lines: [{ sku: "b" }, { quantity: 3 }],
  tags: ["x", "y"],
  attributes: { k: 5n },
  note: "",
  payment: { case: "voucher", value: { sku: "v" } },
  placedAt: { seconds: 1700000000n, nanos: 5000000 },
} as never);
const bare = create(order, {});
const canonical = toBinary(dataset.message, create(dataset.message, { records: [full, bare] } as never));

describe("a dataset from a record message no source names", () => {
  const records = dataset.fromCanonical(canonical) as Array<Record<string, unknown>>;

  it("has the native model: wire names in field order, enums by name, Timestamps as RFC 3339, unset optional and oneof fields absent", () => {
    expect(Object.keys(records[0]!)).toEqual([...scalars.map(([name]) => name), "status", "line", "lines", "tags", "attributes", "note", "voucher", "placedAt"]);
    expect(records[0]).toMatchObject({ u64: 2n ** 64n - 1n, s64: 2n ** 53n + 1n, status: "STATUS_PAID", note: "", voucher: { sku: "v", quantity: 0 }, placedAt: "2023-11-14T22:13:20.005Z" });
    expect(records[0]!.attributes).toEqual({ k: 5n });
    expect(records[0]!.blob).toEqual(new Uint8Array([0, 255]));
    // Unset: a nested message is its default instance; optional and oneof members are left out.
    expect(records[1]).toMatchObject({ status: "STATUS_UNSPECIFIED", line: { sku: "", quantity: 0 }, placedAt: "1970-01-01T00:00:00Z", attributes: {} });
    expect(Object.keys(records[1]!)).not.toContain("note");
    expect(Object.keys(records[1]!)).not.toContain("card");
    expect(Object.keys(records[1]!)).not.toContain("voucher");
  });

  it("derives the record schema from the descriptor", () => {
    expect(dataset.record).toMatchObject({ kind: "message", name: "acme.shop.Order", oneofs: [{ name: "payment", fields: ["card", "voucher"] }] });
    const fields = new Map(typeof dataset.record === "object" && dataset.record.kind === "message" ? dataset.record.fields : []);
    expect(fields.get("u32")).toBe("uint32");
    expect(fields.get("status")).toMatchObject({ kind: "enum", values: ["STATUS_UNSPECIFIED", "STATUS_PAID"] });
    expect(fields.get("attributes")).toEqual({ kind: "map", key: "string", value: "int64" });
    expect(fields.get("note")).toEqual({ kind: "optional", of: "string" });
    expect(fields.get("voucher")).toMatchObject({ kind: "optional", of: { kind: "message", name: "acme.shop.Line" } });
    expect(fields.get("placedAt")).toEqual({ kind: "timestamp" });
  });

  it("reads its canonical list through a list message made for it (records = 1)", () => {
    expect(dataset.message.fields.map((f) => [f.number, f.name])).toEqual([[1, "records"]]);
    expect(dataset.lazyFields.map((field) => readLazyField(records[0], field))).toEqual(["Grüße", "a"]);
  });

  it("converts back to the same message, and the protobuf codec round-trips it", () => {
    // Byte for byte where every plain message field is set (an unset one comes back set, as its default instance).
    expect(toBinary(dataset.message, dataset.toMessage(records.slice(0, 1)))).toEqual(toBinary(dataset.message, create(dataset.message, { records: [full] } as never)));
    expect(compareRecords(dataset.record, records, dataset.fromMessage(dataset.toMessage(records)))).toBeNull();
    const protobuf = codecs.get("protobuf")!.prepare(dataset);
    expect(compareRecords(dataset.record, records, protobuf.decodeTyped(protobuf.encode(records)))).toBeNull();
  });

  it("is compared field by field, optional and oneof presence, maps, enums and bytes included", () => {
    const changed = structuredClone(records);
    changed[1]!.note = "";
    expect(compareRecords(dataset.record, records, changed)).toBe('record 1 field note: expected nothing (unset), got ""');
    const other = structuredClone(records);
    (other[0]!.attributes as Record<string, bigint>).k = 6n;
    expect(compareRecords(dataset.record, records, other)).toBe('record 0 field attributes["k"]: expected 5n, got 6n');
    const status = structuredClone(records);
    status[0]!.status = "STATUS_UNSPECIFIED";
    expect(compareRecords(dataset.record, records, status)).toBe('record 0 field status: expected "STATUS_PAID", got "STATUS_UNSPECIFIED"');
    const blob = structuredClone(records);
    blob[0]!.blob = new Uint8Array([0, 254]);
    expect(compareRecords(dataset.record, records, blob)).toBe("record 0 field blob: expected 2 bytes, got 2 bytes");
  });

  it.each([
    ["bson", "uint64 field acme.shop.Order.u64"],
    ["ubjson", "uint64 field acme.shop.Order.u64"],
    ["flatbuffers", "float field acme.shop.Order.f"],
  ])("is refused by %s, naming the first field it cannot carry", (id, what) => {
    expect(() => codecs.get(id)!.prepare(dataset)).toThrow(`${id}: ${what} is not offered`);
  });

  it.each(["json", "msgpack", "cbor", "xml"])("%s carries it in every decode mode: uint64, a map of int64, bytes, a oneof's message member, a Timestamp", (id) => {
    const codec = codecs.get(id)!;
    const prepared = codec.prepare(dataset);
    const payload = prepared.encode(records);
    expect(compareRecords(dataset.record, records, prepared.decodeTyped(payload))).toBeNull();
    if (codec.info.decodeModes.includes("tree")) expect(compareRecords(dataset.record, records, prepared.treeToRecords!(prepared.decodeTree!(payload)))).toBeNull();
  });

  it("refuses a oneof member as a oneof, though the model holds it as an optional field", () => {
    const message = (oneofs: Array<{ name: string; fields: string[] }>): FieldType => ({ kind: "message", name: "acme.Pay", fields: [["card", { kind: "optional", of: "string" }]], oneofs });
    expect(() => requireOffered("json", message([]))).not.toThrow();
    expect(() => requireOffered("json", message([{ name: "payment", fields: ["card"] }]))).toThrow("json: oneof field acme.Pay.card is not offered");
  });
});

describe("the built-in datasets", () => {
  it.each([...datasets.keys()])("%s: the generic conversion gives back the canonical bytes", (id) => {
    const dataset = datasets.get(id)!;
    const bytes = canonicalPb(id);
    expect(toBinary(dataset.message, dataset.toMessage(dataset.fromCanonical(bytes)))).toEqual(bytes);
  });

  it("a bare-list record (the matrix row) is the list of its one repeated field", () => {
    const matrix = [...datasets.values()].find((dataset) => dataset.bareList)!;
    expect(matrix.record).toEqual({ kind: "repeated", of: "string" });
    expect(matrix.fromCanonical(canonicalPb(matrix.id)).every((row) => Array.isArray(row))).toBe(true);
  });
});
