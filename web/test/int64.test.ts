import { create, toBinary } from "@bufbuild/protobuf";
import { BSON } from "bson";
import { describe, expect, it } from "vitest";
import { bsonCodec } from "../src/codecs/bson";
import { cborCodec } from "../src/codecs/cbor";
import { decodeRecords, encodeRecords } from "../src/codecs/codec";
import { jsonCodec } from "../src/codecs/json";
import { msgpackCodec } from "../src/codecs/msgpack";
import { protobufCodec } from "../src/codecs/protobuf";
import { ubjsonCodec } from "../src/codecs/ubjson";
import { DocsDatasetSchema, NumericDatasetSchema, OwnersDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { compareRecords } from "../src/datasets/compare";
import { datasetById } from "../src/datasets/registry";

// int64 values a double cannot hold must survive every codec exactly, and must be written as
// numbers (JSON) and as BSON int64.

const numeric = datasetById("numeric");
const owners = datasetById("owners");
const docs = datasetById("docs");

const extremes = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 53n) - 3n, 0n];

const numericRecords = numeric.fromCanonical(
  toBinary(
    NumericDatasetSchema,
    create(NumericDatasetSchema, {
      records: [
        {
          id: "a",
          index: 0,
          numbr: -7,
          coordinates: extremes.map((timestamp, i) => ({ timestamp, latitude: i - 0.5, longitude: 2166 })),
        },
      ],
    }),
  ),
);
const ownerRecords = owners.fromCanonical(
  toBinary(OwnersDatasetSchema, create(OwnersDatasetSchema, { records: extremes.map((telephone, uid) => ({ uid, name: `o${uid}`, telephone, cars: [] })) })),
);
const docRecords = docs.fromCanonical(
  toBinary(DocsDatasetSchema, create(DocsDatasetSchema, { records: extremes.map((time) => ({ name: "d", department: { code: "c", time } })) })),
);

const cases = [
  ["numeric", numeric, numericRecords],
  ["owners", owners, ownerRecords],
  ["docs", docs, docRecords],
] as const;

describe.each(cases)("%s int64 beyond 2^53", (_id, dataset, records) => {
  it("keeps bigints in the native model", () => {
    expect(JSON.stringify(records, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))).toContain(`"${2n ** 63n - 1n}n"`);
  });

  it("survives json exactly, written as bare numbers", () => {
    const prepared = jsonCodec.prepare(dataset);
    const payload = encodeRecords(prepared, records);
    const text = new TextDecoder().decode(payload);
    expect(text).toContain(`:${2n ** 63n - 1n}`);
    expect(text).toContain(`:${-(2n ** 63n)}`);
    expect(text).not.toMatch(/"-?\d{16,}"/);
    expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull();
  });

  it("survives bson exactly, written as int64", () => {
    const prepared = bsonCodec.prepare(dataset);
    const payload = encodeRecords(prepared, records);
    expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull();
    // Read back without bigint promotion: every int64 field is a BSON Long, i.e. type 0x12.
    const raw = BSON.deserialize(payload, { promoteLongs: false }) as { records: unknown[] };
    expect(JSON.stringify(BSON.EJSON.serialize(raw, { relaxed: false }))).toContain(`{"$numberLong":"${2n ** 63n - 1n}"}`);
  });

  it("survives ubjson exactly: 'L' beyond int32, the smallest integer marker within", () => {
    const prepared = ubjsonCodec.prepare(dataset);
    const payload = encodeRecords(prepared, records);
    const hex = Buffer.from(payload).toString("hex");
    expect(hex).toContain(`4c${"7fffffffffffffff"}`); // 'L' 2^63-1
    expect(hex).toContain(`4c${"8000000000000000"}`); // 'L' -2^63
    expect(hex).not.toMatch(/44(43e|c3e)/); // no 'D' float64 near 2^63
    expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull();
  });

  it("survives msgpack exactly, written as 64-bit integers", () => {
    const prepared = msgpackCodec.prepare(dataset);
    const payload = encodeRecords(prepared, records);
    const hex = Buffer.from(payload).toString("hex");
    expect(hex).toContain(`cf${"7fffffffffffffff"}`);
    expect(hex).toContain(`d3${"8000000000000000"}`);
    expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull();
  });

  it("survives cbor exactly, written as 8-byte integers (major type 0/1, not a tag-2/3 bignum)", () => {
    const prepared = cborCodec.prepare(dataset);
    const payload = encodeRecords(prepared, records);
    const hex = Buffer.from(payload).toString("hex");
    expect(hex).toContain(`1b${"7fffffffffffffff"}`);
    expect(hex).toContain(`3b${"7fffffffffffffff"}`); // -2^63 = -1 - (2^63-1)
    expect(compareRecords(dataset.record, records, decodeRecords(prepared, payload))).toBeNull();
  });

  it("survives protobuf exactly", () => {
    const prepared = protobufCodec.prepare(dataset);
    expect(compareRecords(dataset.record, records, decodeRecords(prepared, encodeRecords(prepared, records)))).toBeNull();
  });

  it("is caught by verification if a double rounds it", () => {
    const rounded = JSON.parse(new TextDecoder().decode(jsonCodec.prepare(dataset).encode(records))) as { records: unknown[] };
    expect(compareRecords(dataset.record, records, rounded.records)).toMatch(/^record 0 field .*: expected -?\d+n, got number/);
  });
});

describe("int64 values that fit in fewer bits", () => {
  // Rust writes an int64 in the smallest integer that holds it; decoded, it must still be a bigint.
  const small = numeric.fromCanonical(
    toBinary(NumericDatasetSchema, create(NumericDatasetSchema, { records: [{ id: "s", coordinates: [1n, -1n, 200n, 30_000n, -30_000n, 2n ** 31n - 1n].map((timestamp) => ({ timestamp })) }] })),
  );
  it.each([ubjsonCodec, msgpackCodec, cborCodec].map((codec) => [codec.info.id, codec] as const))("come back as bigint from %s", (_id, codec) => {
    const prepared = codec.prepare(numeric);
    const decoded = decodeRecords(prepared, encodeRecords(prepared, small));
    expect(compareRecords(numeric.record, small, decoded)).toBeNull();
  });
  it("are written by ubjson in the smallest marker, as Rust does", () => {
    const hex = Buffer.from(encodeRecords(ubjsonCodec.prepare(numeric), small)).toString("hex");
    // "timestamp" then i 1, i -1, U 200, I 30000, I -30000, l 2^31-1
    const key = Buffer.from("timestamp").toString("hex");
    for (const value of ["6901", "69ff", "55c8", "497530", "498ad0", "6c7fffffff"]) expect(hex).toContain(`${key}${value}`);
  });
});

describe("doubles that are integers", () => {
  it("are BSON doubles (0x01), not int32", () => {
    const payload = bsonCodec.prepare(numeric).encode(numericRecords);
    const raw = BSON.deserialize(payload, { promoteValues: false }) as { records: Array<{ coordinates: Array<{ longitude: unknown }> }> };
    const longitude = raw.records[0]!.coordinates[0]!.longitude as { _bsontype: string; value: number };
    expect(longitude._bsontype).toBe("Double");
    expect(longitude.value).toBe(2166);
  });
});
