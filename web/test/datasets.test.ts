import { create, createFileRegistry, getOption, hasOption, type DescMessage } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { dataset as datasetOption } from "../src/gen/codecbench/v1/dataset_options_pb";
import { file_codecbench_v1_datasets } from "../src/gen/codecbench/v1/datasets_pb";
import { readLazyField } from "../src/datasets/dataset";
import { schemaFingerprint, schemaText } from "../src/datasets/fingerprint";
import { datasets } from "../src/datasets/registry";
import { datasetAnnouncements } from "../src/worker/attach";
import { canonicalPb, fingerprints } from "./vectors";

// The datasets come from the `(dataset)` options of datasets.proto, and their schema fingerprints
// (proto/README.md) equal the harness's reference implementation's (codecs/vectors/fingerprints.json).

describe("datasets", () => {
  it("are the record messages of datasets.proto with a (dataset) option, with its id, lazy fields and bare_list", () => {
    const marked = file_codecbench_v1_datasets.messages.filter((message) => hasOption(message, datasetOption));
    expect(marked.length).toBeGreaterThan(0);
    expect([...datasets.keys()]).toEqual(marked.map((message) => getOption(message, datasetOption).id));
    for (const message of marked) {
      const option = getOption(message, datasetOption);
      const dataset = datasets.get(option.id)!;
      expect(dataset.recordMessage).toBe(message);
      expect(dataset.lazyFields).toEqual(option.lazyFields);
      expect(dataset.description).toBe(option.description);
      expect(dataset.bareList).toBe(option.bareList);
    }
  });

  it("are the harness's datasets, each with the same record message", () => {
    expect(Object.fromEntries([...datasets.values()].map((d) => [d.id, d.recordMessage.typeName]))).toEqual(
      Object.fromEntries(Object.entries(fingerprints()).map(([id, { message }]) => [id, message])),
    );
    expect(datasets.get("matrix")?.bareList).toBe(true);
  });

  it.each([...datasets.keys()])("%s: every lazy field reads from the canonical records", (id) => {
    const dataset = datasets.get(id)!;
    const records = dataset.fromCanonical(canonicalPb(id));
    for (const field of dataset.lazyFields) expect(records.map((record) => readLazyField(record, field)).every((value) => value !== "")).toBe(true);
  });
});

describe("schema fingerprint", () => {
  it.each([...datasets.keys()])("of %s equals codecs/vectors/fingerprints.json", async (id) => {
    const dataset = datasets.get(id)!;
    const expected = fingerprints()[id];
    expect(expected, `fingerprints.json has no ${id}`).toBeDefined();
    expect(dataset.recordMessage.typeName).toBe(expected!.message);
    expect(await schemaFingerprint(dataset.recordMessage)).toBe(expected!.fingerprint);
  });

  it("is announced for every dataset on attach", async () => {
    const announced = await datasetAnnouncements();
    expect(Object.fromEntries(announced.map((d) => [d.id, { message: d.message, fingerprint: d.fingerprint }]))).toEqual(fingerprints());
  });

  // A schema with every kind of line the text has, built without json_name (as protobuf-es embeds
  // descriptors when it is the default): written out by hand from proto/README.md's rules.
  const file = create(FileDescriptorProtoSchema, {
    name: "t.proto",
    package: "t",
    syntax: "proto3",
    enumType: [{ name: "Color", value: [{ name: "COLOR_UNSPECIFIED", number: 0 }, { name: "RED", number: 2 }, { name: "BLUE", number: 1 }] }],
    messageType: [
      {
        name: "Order",
        field: [
          { name: "tags", number: 3, label: Label.REPEATED, type: Type.STRING },
          { name: "order_id", number: 1, label: Label.OPTIONAL, type: Type.UINT64 },
          { name: "attrs", number: 2, label: Label.REPEATED, type: Type.MESSAGE, typeName: ".t.Order.AttrsEntry" },
          { name: "note", number: 4, label: Label.OPTIONAL, type: Type.STRING, oneofIndex: 1, proto3Optional: true },
          { name: "card", number: 5, label: Label.OPTIONAL, type: Type.STRING, oneofIndex: 0 },
          { name: "item", number: 6, label: Label.OPTIONAL, type: Type.MESSAGE, typeName: ".t.Order.Item", oneofIndex: 0 },
          { name: "Weird_name", number: 7, label: Label.OPTIONAL, type: Type.SINT32, jsonName: "custom" },
        ],
        nestedType: [
          {
            name: "AttrsEntry",
            field: [
              { name: "key", number: 1, label: Label.OPTIONAL, type: Type.STRING },
              { name: "value", number: 2, label: Label.OPTIONAL, type: Type.ENUM, typeName: ".t.Color" },
            ],
            options: { mapEntry: true },
          },
          { name: "Item", field: [{ name: "sku", number: 1, label: Label.OPTIONAL, type: Type.FIXED32 }] },
        ],
        oneofDecl: [{ name: "payment" }, { name: "_note" }],
      },
      { name: "Unreached", field: [{ name: "x", number: 1, label: Label.OPTIONAL, type: Type.BOOL }] },
    ],
  });
  const order = createFileRegistry(file, () => undefined).getMessage("t.Order") as DescMessage;

  it("writes every reached type in byte order of its name, fields by number, enum values by number", () => {
    expect(schemaText(order)).toBe(
      [
        "enum t.Color",
        "0 COLOR_UNSPECIFIED",
        "1 BLUE",
        "2 RED",
        "message t.Order",
        "1 order_id orderId 4 0  0 ",
        "2 attrs attrs 11 1 t.Order.AttrsEntry 0 ",
        "3 tags tags 9 1  0 ",
        "4 note note 9 0  1 ",
        "5 card card 9 0  0 payment",
        "6 item item 11 0 t.Order.Item 0 payment",
        "7 Weird_name custom 17 0  0 ",
        "message t.Order.AttrsEntry",
        "1 key key 9 0  0 ",
        "2 value value 14 0 t.Color 0 ",
        "message t.Order.Item",
        "1 sku sku 7 0  0 ",
        "",
      ].join("\n"),
    );
  });

  it("is the first 16 hex digits of the SHA-256 of that text, as the harness computes it", async () => {
    const { createHash } = await import("node:crypto");
    expect(await schemaFingerprint(order)).toBe(createHash("sha256").update(schemaText(order)).digest("hex").slice(0, 16));
    // harness/codecbench/datasets.py's fingerprint() of the same FileDescriptorProto.
    expect(await schemaFingerprint(order)).toBe("01a8d1c04f338897");
  });
});
