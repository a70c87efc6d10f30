import { create, toBinary, type DescMessage, type Message } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { describe, expect, it, vi } from "vitest";
import { decodeRecords, encodeRecords, type DecodeMode } from "../src/codecs/codec";
import { refusalsOf } from "../src/codecs/refusals";
import { codecs } from "../src/codecs/registry";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import { compareRecords } from "../src/datasets/compare";
import { readLazyField, type Dataset } from "../src/datasets/dataset";
import { schemaFingerprint } from "../src/datasets/fingerprint";
import { datasetById, registerUserDataset, userDatasetSource } from "../src/datasets/registry";
import type { UserDatasetSource } from "../src/datasets/user-dataset";
import type { TrialInput } from "../src/trial/trial";
import { datasetAnnouncements } from "../src/worker/attach";
import { runTask } from "../src/worker/task";
import { task } from "./fake-control";
import { compileSet, EVERYTHING, READING, SHIPMENT, sourceOf } from "./user-schemas";

// A user's dataset is built at run time from a descriptor set of a schema no web source knows
// (compiled here by buf) and then carried like a built-in: found by id, announced with the
// fingerprint the page computes, its field names and a refusal per codec that cannot carry one of
// its features; every codec it is not refused by round-trips and verifies it in each decode mode.
// Fingerprints: harness/codecbench/datasets.py's fingerprint() of the same descriptor sets.

const everythingSet = compileSet(EVERYTHING);
const readingSet = compileSet(READING);
const shipmentSet = compileSet(SHIPMENT);

const EVERYTHING_SOURCE = sourceOf({ id: "everything", message: "zz.unknown.v1.Everything", fieldNames: "json", lazyFields: ["text", "price.currency"], fingerprint: "2cc5b3647ede6d50" }, everythingSet);

/** The canonical blob as control cuts it: each record field 1, length-delimited. */
function canonicalBlob(record: DescMessage, messages: Message[]): Uint8Array {
  const writer = new BinaryWriter();
  for (const message of messages) writer.tag(1, WireType.LengthDelimited).bytes(toBinary(record, message));
  return writer.finish();
}

/** Each mode a codec announces with the check of its result against the canonical records. */
function roundTrips(dataset: Dataset, codecId: string, records: unknown[]): Array<[string, () => void]> {
  const codec = codecs.get(codecId)!;
  const prepared = codec.prepare(dataset);
  const payload = encodeRecords(prepared, records);
  return codec.info.decodeModes.map((mode: DecodeMode) => {
    if (mode === "typed") return [mode, () => expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull()];
    if (mode === "tree") return [mode, () => expect(compareRecords(dataset.record, records, prepared.treeToRecords!(prepared.decodeTree!(payload)))).toBeNull()];
    const expected = records.flatMap((record) => dataset.lazyFields.map((field) => readLazyField(record, field)));
    return [mode, () => expect(prepared.decodeLazy!(payload, dataset.lazyFields)).toEqual(expected)];
  });
}

const schemaLess = [...codecs.keys()].filter((id) => id !== "protobuf");

describe("zz.unknown.v1.Everything: every proto3 feature, a second imported file and a Timestamp", () => {
  const dataset = registerUserDataset(EVERYTHING_SOURCE);
  const record = dataset.recordMessage;
  const full = create(record, {
    d: 0.1, f: 1.5, i32: -7, i64: -(2n ** 63n), u32: 4294967295, u64: 2n ** 64n - 1n, s32: -2147483648, s64: 2n ** 53n + 1n,
    fx32: 7, fx64: 8n, sf32: -9, sf64: -10n, flag: true, text: "Grüße 李", blob: new Uint8Array([0, 255]),
    tier: 2, price: { currency: "EUR", units: 12n, nanos: -5 }, lines: [{ sku: "a", quantity: 2, tiers: [1, 2] }, {}], tags: ["x", "y"],
    attributes: { k: { currency: "USD", units: 1n } }, payment: { case: "voucher", value: { currency: "CHF" } }, note: "",
    placedAt: { seconds: 1700000000n, nanos: 5000000 }, status: 1, tierByRank: { 3: 1, [-1]: 2 },
  } as never);
  const bare = create(record, { text: "only text", payment: { case: "card", value: "4111" } } as never);
  const canonical = canonicalBlob(record, [full, bare]);
  const records = dataset.fromCanonical(canonical) as Array<Record<string, unknown>>;

  it("is built from the descriptor set and found by id like a built-in, its messages those of the runtime descriptors", () => {
    expect(datasetById("everything")).toBe(dataset);
    expect(record.typeName).toBe("zz.unknown.v1.Everything");
    expect(record.file.proto.name).toBe("zz/unknown/v1/everything.proto");
    expect(full.$typeName).toBe("zz.unknown.v1.Everything");
    expect(dataset.lazyFields).toEqual(["text", "price.currency"]);
    expect(dataset.fieldNames).toBe("json");
    expect(userDatasetSource("everything")).toBe(EVERYTHING_SOURCE);
    expect(userDatasetSource("dummy")).toBeUndefined();
  });

  it("has the harness's fingerprint, computed from the runtime descriptors", async () => {
    expect(await schemaFingerprint(record)).toBe("2cc5b3647ede6d50");
  });

  it("reads the canonical blob into the native model: JSON names in field order, maps, oneof, optional, Timestamp", () => {
    expect(Object.keys(records[0]!)).toEqual(
      ["d", "f", "i32", "i64", "u32", "u64", "s32", "s64", "fx32", "fx64", "sf32", "sf64", "flag", "text", "blob", "tier", "price", "lines", "tags", "attributes", "voucher", "note", "placedAt", "status", "tierByRank"],
    );
    expect(records[0]).toMatchObject({ u64: 2n ** 64n - 1n, tier: "TIER_SILVER", price: { currency: "EUR", units: 12n, nanos: -5 }, voucher: { currency: "CHF" }, placedAt: "2023-11-14T22:13:20.005Z", tierByRank: { "3": "TIER_GOLD", "-1": "TIER_SILVER" } });
    expect(records[1]).toMatchObject({ text: "only text", card: "4111", placedAt: "1970-01-01T00:00:00Z", attributes: {} });
    expect(Object.keys(records[1]!)).not.toContain("note");
  });

  it("as protobuf: the payload is the same list framing (each record field 1), and it verifies", () => {
    const protobuf = codecs.get("protobuf")!.prepare(dataset);
    // Byte for byte where every plain message field is set (an unset one comes back as its default instance).
    expect(encodeRecords(protobuf, records.slice(0, 1))).toEqual(canonicalBlob(record, [full]));
    expect(compareRecords(dataset.record, records, decodeRecords(protobuf, encodeRecords(protobuf, records)))).toBeNull();
  });

  it("is refused by bson and ubjson for its uint64 and by flatbuffers, each naming the first field it cannot carry", () => {
    expect(refusalsOf(dataset)).toEqual([
      { codec: "bson", decodeMode: "", reason: "bson: uint64 field zz.unknown.v1.Everything.u64 is not offered" },
      { codec: "ubjson", decodeMode: "", reason: "ubjson: uint64 field zz.unknown.v1.Everything.u64 is not offered" },
      { codec: "flatbuffers", decodeMode: "", reason: "flatbuffers: float field zz.unknown.v1.Everything.f is not offered" },
    ]);
  });

  describe.each(["json", "msgpack", "cbor", "xml"])("%s carries every feature", (codec) => {
    it.each(roundTrips(dataset, codec, records))("round-trips and verifies, %s", (_mode, check) => check());
  });

  it("is announced on attach with its fingerprint, field names and refusals", async () => {
    const announced = (await datasetAnnouncements()).find((info) => info.id === "everything")!;
    expect(announced).toMatchObject({ message: "zz.unknown.v1.Everything", fingerprint: "2cc5b3647ede6d50", fieldNames: "json" });
    expect(announced.refused.map((r) => [r.dataset, r.codec, r.decodeMode, r.workerId])).toEqual(["bson", "ubjson", "flatbuffers"].map((codec) => ["everything", codec, "", ""]));
    expect(announced.refused[0]!.reason).toMatch(/^bson: uint64 field zz\.unknown\.v1\.Everything\.u64 is not offered/);
    // The built-ins alongside, named by their JSON names, refused by none.
    const dummy = (await datasetAnnouncements()).find((info) => info.id === "dummy")!;
    expect([dummy.fieldNames, dummy.refused]).toEqual(["json", []]);
  });

  it("fails a task for a refused codec before any trial runs", async () => {
    const trials = vi.fn();
    const outcome = await runTask(task({ operation: Operation.ENCODE, dataset: "everything", codec: "bson", recordCount: 2, canonical: { id: "x", size: canonical.length } }), {
      client: {} as never,
      canonical: {} as never,
      environment: {} as never,
      trials,
    });
    expect(outcome.failure).toMatch(/^task failed: this worker refused bson on dataset everything when it attached: bson: uint64 field zz\.unknown\.v1\.Everything\.u64/);
    expect(trials).not.toHaveBeenCalled();
  });

  it("runs as a trial in a fresh context, which builds the dataset from the source the input carries", async () => {
    vi.resetModules();
    const fresh = await import("../src/trial/trial");
    const input = (operation: "encode" | "decode", payload?: Uint8Array): TrialInput => ({
      taskId: "t", operation, dataset: "everything", codec: "protobuf", decodeMode: operation === "decode" ? "typed" : "", recordCount: 2, lazyFields: [],
      sampling: { warmupMs: 0, maxWarmupMs: 50, rounds: 1, minRoundMs: 1 }, canonical: canonical.slice(), ...(payload ? { payload } : {}), prepare: operation === "encode",
    });
    expect((await fresh.runTrial(input("encode"))).failure).toMatch(/^encode failed: unknown dataset "everything"/);
    const encoded = await fresh.runTrial({ ...input("encode"), userDataset: EVERYTHING_SOURCE });
    expect(encoded.failure).toBe("");
    const decoded = await fresh.runTrial({ ...input("decode", encoded.payload), userDataset: EVERYTHING_SOURCE });
    expect(decoded.failure).toBe("");
    expect(decoded.sample?.roundNsPerOp.length).toBe(1);
  });
});

describe("Reading: a package-less file, snake_case names, uint32 and sint32", () => {
  const source = (fieldNames: "json" | "proto", id: string): UserDatasetSource =>
    sourceOf({ id, message: "Reading", fieldNames, lazyFields: [fieldNames === "proto" ? "sensor_id" : "sensorId", fieldNames === "proto" ? "unit_name" : "unitName"], fingerprint: "d922dc30bdde8ff5" }, readingSet);
  const byProto = registerUserDataset(source("proto", "reading"));
  const byJson = registerUserDataset(source("json", "reading_json"));
  const messages = [
    create(byProto.recordMessage, { sensorId: 4294967295, deltaValue: -2147483648, unitName: "°C", rawSamples: [-1, 0, 2147483647], errorCount: 0, batteryLevel: 0 } as never),
    create(byProto.recordMessage, { sensorId: 1 } as never),
  ];
  const canonical = canonicalBlob(byProto.recordMessage, messages);

  it("names fields by their .proto names or by their JSON names, as the manifest says, with one fingerprint", async () => {
    expect(Object.keys(byProto.fromCanonical(canonical)[0] as object)).toEqual(["sensor_id", "delta_value", "unit_name", "raw_samples", "error_count", "battery_level"]);
    expect(Object.keys(byJson.fromCanonical(canonical)[0] as object)).toEqual(["sensorId", "deltaValue", "unitName", "rawSamples", "errorCount", "batteryLevel"]);
    expect(byProto.recordMessage.typeName).toBe("Reading");
    expect(await schemaFingerprint(byProto.recordMessage)).toBe("d922dc30bdde8ff5");
    const announced = await datasetAnnouncements();
    expect(announced.filter((info) => info.id.startsWith("reading")).map((info) => [info.id, info.fingerprint, info.fieldNames])).toEqual([
      ["reading", "d922dc30bdde8ff5", "proto"],
      ["reading_json", "d922dc30bdde8ff5", "json"],
    ]);
  });

  it("is refused by flatbuffers alone, naming the uint32 field", () => {
    expect(refusalsOf(byProto)).toEqual([{ codec: "flatbuffers", decodeMode: "", reason: "flatbuffers: uint32 field Reading.sensor_id is not offered" }]);
  });

  it.each(["reading", "reading_json"])("%s: protobuf round-trips it byte for byte", (id) => {
    const dataset = datasetById(id);
    expect(encodeRecords(codecs.get("protobuf")!.prepare(dataset), dataset.fromCanonical(canonical))).toEqual(canonical);
  });

  describe.each(["reading", "reading_json"])("%s", (id) => {
    const dataset = datasetById(id);
    describe.each(schemaLess.filter((codec) => codec !== "flatbuffers").concat("protobuf"))("%s", (codec) => {
      it.each(roundTrips(dataset, codec, dataset.fromCanonical(canonical)))("round-trips and verifies, extremes and presence included, %s", (_mode, check) => check());
    });
  });
});

describe("Shipment: only the kinds every codec carries", () => {
  const lazyFields = ["shipment_id", "ship_to.postal_code", "carrier", "gift_note"];
  const byProto = registerUserDataset(sourceOf({ id: "shipment", message: "zz.plain.v1.Shipment", fieldNames: "proto", lazyFields, fingerprint: "68dbed56a8a773b8" }, shipmentSet));
  const jsonLazy = ["shipmentId", "shipTo.postalCode", "carrier", "giftNote"];
  const byJson = registerUserDataset(sourceOf({ id: "shipment_json", message: "zz.plain.v1.Shipment", fieldNames: "json", lazyFields: jsonLazy, fingerprint: "68dbed56a8a773b8" }, shipmentSet));
  const messages = [
    create(byProto.recordMessage, {
      shipmentId: "S-1 <&>", itemCount: -3, totalWeight: 2n ** 53n - 1n, unitPrice: 2166, isFragile: true, carrier: 2, shipTo: { streetName: "Zoë St", postalCode: "8000" },
      parcels: [{ weightGrams: 5, scanTimes: [1n, -(2n ** 53n - 1n)], handedTo: 1 }, {}], trackingCodes: ["a", ""], giftNote: "",
    } as never),
    create(byProto.recordMessage, { shipmentId: "S-2", giftNote: "李", priorityLevel: 0 } as never),
  ];
  const canonical = canonicalBlob(byProto.recordMessage, messages);

  it("is refused by none", async () => {
    expect(refusalsOf(byProto)).toEqual([]);
    expect(await schemaFingerprint(byProto.recordMessage)).toBe("68dbed56a8a773b8");
  });

  describe.each([
    ["proto", byProto],
    ["json", byJson],
  ] as const)("with %s field names", (_, dataset) => {
    const records = dataset.fromCanonical(canonical);
    describe.each([...codecs.keys()])("%s", (codec) => {
      it.each(roundTrips(dataset, codec, records))("round-trips and verifies, %s", (_mode, check) => check());
    });
  });

  it("writes self-describing payloads with the names the manifest chose", () => {
    const text = (dataset: Dataset, codec: string) => new TextDecoder().decode(encodeRecords(codecs.get(codec)!.prepare(dataset), dataset.fromCanonical(canonical)));
    expect(text(byProto, "json")).toContain('{"records":[{"shipment_id":"S-1 <&>","item_count":-3,"total_weight":9007199254740991,"unit_price":2166,"is_fragile":true,"carrier":"CARRIER_FREIGHT","ship_to":{');
    expect(text(byJson, "json")).toContain('{"records":[{"shipmentId":"S-1 <&>","itemCount":-3,');
    expect(text(byProto, "xml")).toContain("<ship_to><street_name>Zoë St</street_name><postal_code>8000</postal_code></ship_to>");
    expect(text(byJson, "xml")).toContain("<shipTo><streetName>Zoë St</streetName>");
  });

  it("json keeps int64 exact beyond 2^53 in typed decode, repeated fields' elements included", () => {
    const big = byProto.fromCanonical(canonicalBlob(byProto.recordMessage, [create(byProto.recordMessage, { totalWeight: 2n ** 62n + 1n, parcels: [{ scanTimes: [-(2n ** 63n), 2n ** 63n - 1n, 7n] }] } as never)]));
    const json = codecs.get("json")!.prepare(byProto);
    const decoded = decodeRecords(json, encodeRecords(json, big)) as Array<{ total_weight: bigint; parcels: Array<{ scan_times: bigint[] }> }>;
    expect(decoded[0]!.parcels[0]!.scan_times).toEqual([-(2n ** 63n), 2n ** 63n - 1n, 7n]);
    expect(compareRecords(byProto.record, big, decoded)).toBeNull();
  });

  it("json keeps repeated int64 exact beside other repeated numbers, whose elements a reviver by names could not tell apart", () => {
    const set = compileSet({ "mixed.proto": 'syntax = "proto3";\nmessage Mixed {\n  repeated int64 stamps = 1;\n  repeated double weights = 2;\n  map<string, sint64> totals = 3;\n}\n' });
    const mixed = registerUserDataset(sourceOf({ id: "mixed", message: "Mixed", fieldNames: "json", lazyFields: [], fingerprint: "" }, set));
    expect(refusalsOf(mixed)).toEqual([{ codec: "flatbuffers", decodeMode: "", reason: "flatbuffers: map field Mixed.totals is not offered" }]);
    const records = [{ stamps: [-(2n ** 63n), 7n, 2n ** 53n + 1n], weights: [1e21, 2.5, 9007199254740993], totals: { a: 2n ** 63n - 1n, b: 1n } }];
    const json = codecs.get("json")!.prepare(mixed);
    const payload = encodeRecords(json, records);
    expect(new TextDecoder().decode(payload)).toBe('{"records":[{"stamps":[-9223372036854775808,7,9007199254740993],"weights":[1e+21,2.5,9007199254740992],"totals":{"a":9223372036854775807,"b":1}}]}');
    expect(compareRecords(mixed.record, records, decodeRecords(json, payload))).toBeNull();
    expect(compareRecords(mixed.record, records, json.treeToRecords!(json.decodeTree!(payload)))).toBeNull();
  });

  it("refuses the lazy mode alone when a lazy field is not one a lazy read takes", () => {
    const refusals = (fields: string[], id: string) =>
      refusalsOf(registerUserDataset(sourceOf({ id, message: "zz.plain.v1.Shipment", fieldNames: "proto", lazyFields: fields, fingerprint: "" }, shipmentSet)));
    const lazyCodecs = [...codecs.values()].filter((codec) => codec.info.decodeModes.includes("lazy")).map((codec) => codec.info.id);
    expect(lazyCodecs.length).toBeGreaterThan(0);
    expect(refusals(["parcels.weight_grams"], "lazy_list")).toEqual(lazyCodecs.map((codec) => ({ codec, decodeMode: "lazy", reason: `${codec}: lazy field "parcels.weight_grams" goes into a repeated field, where a lazy read takes a dotted path through messages` })));
    expect(refusals(["ship_to"], "lazy_message")[0]!.reason).toMatch(/lazy field "ship_to" is a message field, where a lazy read takes a scalar, an enum or a Timestamp$/);
    expect(refusals(["shipTo.postal_code"], "lazy_typo")[0]!.reason).toMatch(/lazy field "shipTo\.postal_code": zz\.plain\.v1\.Shipment has no field "shipTo" \(its fields: shipment_id, item_count, /);
  });
});

describe("registering a user's dataset", () => {
  it("refuses a built-in's id, a taken id, a message the set lacks and bytes that are no descriptor set, naming the manifest", () => {
    expect(() => registerUserDataset({ ...EVERYTHING_SOURCE, id: "dummy" })).toThrow('user dataset "dummy" (everything/dataset.json): "dummy" is a built-in dataset\'s id; give yours another');
    registerUserDataset(EVERYTHING_SOURCE);
    expect(registerUserDataset({ ...EVERYTHING_SOURCE })).toBe(datasetById("everything"));
    expect(() => registerUserDataset({ ...EVERYTHING_SOURCE, manifest: "other/dataset.json", fieldNames: "proto" })).toThrow(
      'user dataset "everything" (other/dataset.json): another user dataset has that id (everything/dataset.json)',
    );
    expect(() => registerUserDataset({ ...EVERYTHING_SOURCE, id: "missing", message: "zz.unknown.v1.Nothing" })).toThrow(
      /^user dataset "missing" \(everything\/dataset\.json\): the descriptor set has no message zz\.unknown\.v1\.Nothing \(it has .*zz\.unknown\.v1\.Everything/,
    );
    expect(() => registerUserDataset({ ...EVERYTHING_SOURCE, id: "garbage", descriptorSet: Buffer.from("not a descriptor set").toString("base64") })).toThrow(
      /^user dataset "garbage" \(everything\/dataset\.json\): the descriptor set is not a FileDescriptorSet/,
    );
  });
});
