import { isNativeAccelerationEnabled } from "cbor-x/decode";
import { describe, expect, it } from "vitest";
import { cborCodec } from "../src/codecs/cbor";
import { compareRecords } from "../src/datasets/compare";
import { datasetById } from "../src/datasets/registry";
import { messageFields, type FieldType } from "../src/datasets/schema";
import { canonicalPb, datasetIds } from "./vectors";

// What is particular to cbor in the browser: the payload is plain RFC 8949 (no cbor-x tag
// extensions), int64 fields are 8-byte integers, and the decoder reads what ciborium and Jackson
// write, which a small schema-driven writer below produces: every float width, integers in their
// smallest form (also in double and int64 fields) and indefinite-length containers.

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The major types, tags and float widths of one CBOR item and everything inside it (throws on anything malformed). */
function census(bytes: Uint8Array): { tags: number[]; heads: Set<string>; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tags: number[] = [];
  const heads = new Set<string>();
  let at = 0;
  const argument = (info: number): number => {
    if (info < 24) return info;
    const size = 1 << (info - 24);
    const value = size === 1 ? view.getUint8(at) : size === 2 ? view.getUint16(at) : size === 4 ? view.getUint32(at) : Number(view.getBigUint64(at));
    at += size;
    return value;
  };
  const item = (): void => {
    const initial = view.getUint8(at++);
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (info === 31) {
      heads.add(`${major}:indefinite`);
      while (view.getUint8(at) !== 0xff) item();
      at++;
      return;
    }
    heads.add(`${major}:${info < 24 ? "immediate" : 1 << (info - 24)}`);
    const n = argument(info);
    if (major === 2 || major === 3) at += n;
    else if (major === 4) for (let i = 0; i < n; i++) item();
    else if (major === 5) for (let i = 0; i < 2 * n; i++) item();
    else if (major === 6) {
      tags.push(n);
      item();
    }
  };
  item();
  return { tags, heads, end: at };
}

// ---- a writer in the style of ciborium / Jackson ------------------------------------------------

interface Style {
  /** ciborium: the narrowest float that holds the value; jackson: float64; integral: integers where integral (cbor-x). */
  floats: "narrowest" | "float64" | "integral";
  /** Jackson writes objects with indefinite length (0xbf ... 0xff). */
  indefinite: boolean;
}

const float16Of = (value: number): number | null => {
  // Exact only: a float32 whose mantissa fits 10 bits and exponent fits half's range.
  if (Math.fround(value) !== value || !Number.isFinite(value)) return null;
  const bits = new DataView(new Float32Array([value]).buffer).getUint32(0, true);
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127;
  const mantissa = bits & 0x7fffff;
  if (value === 0) return sign;
  if (exponent >= -14 && exponent <= 15 && (mantissa & 0x1fff) === 0) return sign | ((exponent + 15) << 10) | (mantissa >>> 13);
  return null;
};

class Writer {
  readonly out: number[] = [];
  constructor(private readonly style: Style) {}
  head(major: number, value: number | bigint): void {
    const v = BigInt(value);
    if (v < 24n) this.out.push((major << 5) | Number(v));
    else if (v < 0x100n) this.out.push((major << 5) | 24, Number(v));
    else if (v < 0x10000n) this.out.push((major << 5) | 25, Number(v >> 8n), Number(v & 0xffn));
    else if (v < 0x100000000n) this.bytes((major << 5) | 26, 4, (view) => view.setUint32(0, Number(v)));
    else this.bytes((major << 5) | 27, 8, (view) => view.setBigUint64(0, v));
  }
  bytes(initial: number, size: number, fill: (view: DataView) => void): void {
    const view = new DataView(new ArrayBuffer(size));
    fill(view);
    this.out.push(initial, ...new Uint8Array(view.buffer));
  }
  integer(value: number | bigint): void {
    const v = BigInt(value);
    if (v >= 0n) this.head(0, v);
    else this.head(1, -1n - v);
  }
  text(value: string): void {
    const utf8 = new TextEncoder().encode(value);
    this.head(3, utf8.length);
    this.out.push(...utf8);
  }
  double(value: number): void {
    const { floats } = this.style;
    if (floats === "integral" && Number.isSafeInteger(value) && !Object.is(value, -0)) return this.integer(value);
    const half = floats === "narrowest" ? float16Of(value) : null;
    if (half !== null) this.out.push(0xf9, half >> 8, half & 0xff);
    else if (floats === "narrowest" && Math.fround(value) === value) this.bytes(0xfa, 4, (view) => view.setFloat32(0, value));
    else this.bytes(0xfb, 8, (view) => view.setFloat64(0, value));
  }
  value(type: FieldType, value: unknown): void {
    if (typeof type === "string") {
      if (type === "string") this.text(value as string);
      else if (type === "bool") this.out.push(value ? 0xf5 : 0xf4);
      else if (type === "double") this.double(value as number);
      else this.integer(value as number | bigint);
    } else if (type.kind === "enum") {
      this.text(value as string); // an enum is its value name (proto/README.md, "Payloads")
    } else if (type.kind === "optional") {
      this.value(type.of, value); // present here: an unset one has no key (below)
    } else if (type.kind === "repeated") {
      const items = value as unknown[];
      this.head(4, items.length);
      for (const item of items) this.value(type.of, item);
    } else {
      const record = value as Record<string, unknown>;
      const present = messageFields(type).filter(([name]) => record[name] !== undefined);
      if (this.style.indefinite) this.out.push(0xbf);
      else this.head(5, present.length);
      for (const [name, fieldType] of present) {
        this.text(name);
        this.value(fieldType, record[name]);
      }
      if (this.style.indefinite) this.out.push(0xff);
    }
  }
  payload(record: FieldType, records: readonly unknown[]): Uint8Array {
    if (this.style.indefinite) this.out.push(0xbf);
    else this.head(5, 1);
    this.text("records");
    if (this.style.indefinite) this.out.push(0x9f);
    else this.head(4, records.length);
    for (const item of records) this.value(record, item);
    if (this.style.indefinite) this.out.push(0xff, 0xff);
    return new Uint8Array(this.out);
  }
}

it("cbor runs cbor-x's JavaScript string decoding, as the page does (no cbor-extract native addon under Node)", () => {
  // The same decode.js module as the codec's: importing "cbor-x" anywhere would switch it on.
  expect(isNativeAccelerationEnabled).toBe(false);
});

describe("cbor writes plain CBOR", () => {
  it("a map {records: [maps]} for a small value, byte for byte", () => {
    const dummy = cborCodec.prepare(datasetById("dummy"));
    // Maps with a 2-byte count (cbor-x's default without records), no tag. cbor-x's default
    // Encoder would start d9dfff (its record-definition tag).
    expect(hex(dummy.encode([{ a: 1 }]))).toBe("b90001" + "67" + hex(new TextEncoder().encode("records")) + "81" + "b90001" + "6161" + "01");
    expect(hex(dummy.encode([{ a: 1n, b: -2n }]))).toBe("b90001677265636f72647381b90002" + "6161" + "1b0000000000000001" + "6162" + "3b0000000000000001");
    // tagUint8Array: false: a byte string without tag 64 (which cbor-x adds under Node otherwise).
    expect(hex(dummy.encode([{ b: new Uint8Array([7]) }]))).toBe("b90001677265636f72647381b90001" + "6162" + "4107");
  });

  it("decodes a fresh view, so the DataView cbor-x caches on its input is not reused by the next decode", () => {
    const dataset = datasetById("dummy");
    const prepared = cborCodec.prepare(dataset);
    const payload = prepared.encode(dataset.fromCanonical(canonicalPb("dummy")));
    prepared.decodeTyped(payload);
    prepared.decodeTree!(payload);
    expect(Object.keys(payload)).not.toContain("dataView");
    expect("dataView" in payload).toBe(false);
  });

  it.each(datasetIds)("%s: no tags, no indefinite lengths, one item with nothing after it, int64 as 8-byte integers", (id) => {
    const dataset = datasetById(id);
    const records = dataset.fromCanonical(canonicalPb(id));
    const payload = cborCodec.prepare(dataset).encode(records);
    const { tags, heads, end } = census(payload);
    expect(tags).toEqual([]);
    expect([...heads].filter((head) => head.endsWith("indefinite"))).toEqual([]);
    expect(end).toBe(payload.length);
    expect(hex(payload.subarray(0, 11))).toBe("b90001677265636f726473");
    // Every int64 field: the key, then 0x1b or 0x3b (major type 0/1, 8 bytes), never tag 2/3.
    const int64Keys = ["timestamp", "telephone", "time"].filter((key) => JSON.stringify(dataset.record).includes(`["${key}","int64"]`));
    for (const key of int64Keys) {
      const keyBytes = Buffer.from([0x60 + key.length, ...new TextEncoder().encode(key)]);
      let found = 0;
      for (let at = Buffer.from(payload).indexOf(keyBytes); at >= 0; at = Buffer.from(payload).indexOf(keyBytes, at + 1)) {
        expect([0x1b, 0x3b]).toContain(payload[at + keyBytes.length]);
        found++;
      }
      expect(found).toBeGreaterThan(0);
    }
  });
});

describe("cbor reads what ciborium and Jackson write", () => {
  const styles: [string, Style][] = [
    ["ciborium (narrowest floats: float16/float32/float64, definite lengths)", { floats: "narrowest", indefinite: false }],
    ["Jackson (float64, indefinite-length maps and arrays)", { floats: "float64", indefinite: true }],
    ["integers in double fields, indefinite lengths", { floats: "integral", indefinite: true }],
  ];
  describe.each(datasetIds)("dataset %s", (id) => {
    const dataset = datasetById(id);
    const records = dataset.fromCanonical(canonicalPb(id));
    const prepared = cborCodec.prepare(dataset);
    it.each(styles)("%s, typed and tree", (_name, style) => {
      const payload = new Writer(style).payload(dataset.record, records);
      expect(compareRecords(dataset.record, records, prepared.decodeTyped(payload))).toBeNull();
      expect(compareRecords(dataset.record, records, prepared.treeToRecords!(prepared.decodeTree!(payload)))).toBeNull();
    });
  });

  it("float16, float32 and an integer in a double field, and int64 values in 1 to 8 bytes, as the model's types", () => {
    const dataset = datasetById("numeric");
    const canonical = dataset.fromCanonical(canonicalPb("numeric")).slice(0, 1) as { coordinates: { timestamp: bigint; latitude: number; longitude: number }[] }[];
    const record = canonical[0]!;
    const coordinates = [
      { timestamp: 5n, latitude: 1.5, longitude: -0.25 }, // float16, int64 in the initial byte
      { timestamp: 300n, latitude: 1.100000023841858, longitude: 3.4028234663852886e38 }, // float32, int64 in 2 bytes
      { timestamp: -70000n, latitude: 2166, longitude: -7 }, // integers, int64 in 4 bytes (negative)
      { timestamp: 2n ** 62n, latitude: 0.1, longitude: 0 }, // float64, int64 in 8 bytes
    ];
    const expected = [{ ...record, coordinates }];
    const payload = new Writer({ floats: "narrowest", indefinite: false }).payload(dataset.record, expected);
    const key = (name: string) => hex(new Uint8Array([0x60 + name.length, ...new TextEncoder().encode(name)]));
    const [timestamp, latitude, longitude] = [key("timestamp"), key("latitude"), key("longitude")];
    const pieces = [
      [latitude, "f93e00"], [longitude, "f9b400"], [latitude, "fa3f8ccccd"], [longitude, "fa7f7fffff"], [latitude, "f9683b"], [latitude, "fb3fb999999999999a"],
      [timestamp, "05"], [timestamp, "19012c"], [timestamp, "3a0001116f"], [timestamp, "1b4000000000000000"],
    ];
    for (const [name, value] of pieces) expect(hex(payload)).toContain(name! + value!);
    const integers = new Writer({ floats: "integral", indefinite: false }).payload(dataset.record, expected);
    expect(hex(integers)).toContain("190876"); // 2166 as an integer
    for (const bytes of [payload, integers]) {
      const decoded = cborCodec.prepare(dataset).decodeTyped(bytes) as typeof expected;
      expect(compareRecords(dataset.record, expected, decoded)).toBeNull();
      expect(decoded[0]!.coordinates.map((c) => typeof c.timestamp)).toEqual(["bigint", "bigint", "bigint", "bigint"]);
      expect(decoded[0]!.coordinates.map((c) => c.timestamp)).toEqual([5n, 300n, -70000n, 2n ** 62n]);
    }
    // Tree mode is the library's plain decode: int64 values in fewer than 8 bytes stay numbers.
    const tree = cborCodec.prepare(dataset).decodeTree!(payload) as { records: typeof expected };
    expect(tree.records[0]!.coordinates.map((c) => c.timestamp)).toEqual([5, 300, -70000, 2n ** 62n]);
  });

  it("maps as plain objects, not Map instances", () => {
    const dataset = datasetById("dummy");
    const records = dataset.fromCanonical(canonicalPb("dummy"));
    const decoded = cborCodec.prepare(dataset).decodeTyped(new Writer({ floats: "float64", indefinite: true }).payload(dataset.record, records));
    expect(decoded.every((record) => Object.getPrototypeOf(record) === Object.prototype)).toBe(true);
  });
});
