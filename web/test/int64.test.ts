import { create, toBinary } from "@bufbuild/protobuf";
import { BSON } from "bson";
import { describe, expect, it } from "vitest";
import { bsonCodec } from "../src/codecs/bson";
import { decodeRecords, encodeRecords } from "../src/codecs/codec";
import { jsonCodec } from "../src/codecs/json";
import { DocsDatasetSchema, NumericDatasetSchema, OwnersDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { compareRecords } from "../src/model/compare";
import { docs } from "../src/model/docs";
import { numeric } from "../src/model/numeric";
import { owners } from "../src/model/owners";

// int64 values a double cannot hold must survive every codec exactly, and must be written as
// numbers (JSON) and as BSON int64.

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

  it("is caught by verification if a double rounds it", () => {
    const rounded = JSON.parse(new TextDecoder().decode(jsonCodec.prepare(dataset).encode(records))) as { records: unknown[] };
    expect(compareRecords(dataset.record, records, rounded.records)).toMatch(/^record 0 field .*: expected -?\d+n, got number/);
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
