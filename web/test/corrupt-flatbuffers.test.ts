import { Builder, ByteBuffer } from "flatbuffers";
import { describe, expect, it } from "vitest";
import { FlatBuffersError, flatbuffersCodec } from "../src/codecs/flatbuffers";
import { compareRecords } from "../src/datasets/compare";
import { readLazyField } from "../src/datasets/dataset";
import { datasetById } from "../src/datasets/registry";
import { canonicalPb, vector } from "./vectors";

// Corrupt FlatBuffers are errors, never partial or made-up records: the project's own verifier and
// reader (src/codecs/flatbuffers-read.ts) against offsets, lengths and strings pointing anywhere.

const dummy = datasetById("dummy");

describe("flatbuffers rejects", () => {
  // Positions in a payload, found with the library's own accessors: a table's field, an offset's target.
  const word = (bytes: Uint8Array, at: number) => new ByteBuffer(bytes).readInt32(at);
  const put = (bytes: Uint8Array, at: number, value: number) => new ByteBuffer(bytes).writeInt32(at, value);
  const field = (bytes: Uint8Array, table: number, slot: number) => {
    const o = new ByteBuffer(bytes).__offset(table, 4 + 2 * slot);
    if (o === 0) throw new Error(`no slot ${slot} in the table at ${table}`);
    return table + o;
  };
  const target = (bytes: Uint8Array, at: number) => at + word(bytes, at);
  const root = (bytes: Uint8Array) => word(bytes, 0);
  /** The table of record `i` (records: slot 0 of the root). */
  const record = (bytes: Uint8Array, i: number) => target(bytes, target(bytes, field(bytes, root(bytes), 0)) + 4 + 4 * i);
  /** The table of element `i` of the vector of tables in `slot` of `table`. */
  const element = (bytes: Uint8Array, table: number, slot: number, i: number) => target(bytes, target(bytes, field(bytes, table, slot)) + 4 + 4 * i);
  const malformed = (pattern: string) => new RegExp(`^malformed FlatBuffer: ${pattern}$`);

  const owners = datasetById("owners");
  const codec = flatbuffersCodec.prepare(owners);
  const records = owners.fromCanonical(canonicalPb("owners"));
  const good = codec.encode(records);
  const lazyFields = ["name", "taxNumber", "cars.2.brand"];
  const lazyValues = records.flatMap((r) => lazyFields.map((f) => readLazyField(r, f)));
  /** A copy of the payload changed by `change`. */
  const changed = (change: (bytes: Uint8Array) => void) => {
    const bytes = new Uint8Array(good);
    change(bytes);
    return bytes;
  };
  const typed = (bytes: Uint8Array) => () => codec.decodeTyped(bytes);
  const lazy = (bytes: Uint8Array) => () => codec.decodeLazy!(bytes, lazyFields);
  // Record 1, car 2 (cars: slot 7), its brand (slot 1): the offset field and the string.
  const car = (bytes: Uint8Array) => element(bytes, record(bytes, 1), 7, 2);
  const brandField = (bytes: Uint8Array) => field(bytes, car(bytes), 1);

  it("accepts the payload these cases are made from", () => {
    expect(compareRecords(owners.record, records, codec.decodeTyped(good))).toBeNull();
    expect(codec.decodeLazy!(good, lazyFields)).toEqual(lazyValues);
  });
  it("every truncation, typed and lazy: the codec's error, or (only unreferenced padding cut) the same records", () => {
    let refused = 0;
    for (let length = 0; length < good.length; length++) {
      const cut = good.subarray(0, length);
      for (const [decode, check] of [
        [typed(cut), (value: unknown) => expect(compareRecords(owners.record, records, value as unknown[])).toBeNull()],
        [lazy(cut), (value: unknown) => expect(value).toEqual(lazyValues)],
      ] as const) {
        try {
          check(decode());
        } catch (error) {
          expect(error).toBeInstanceOf(FlatBuffersError);
          expect((error as Error).message).toMatch(/^malformed FlatBuffer: \S/);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(2 * good.length - 16);
  });
  it("a buffer without room for the root offset, or a root outside it", () => {
    expect(typed(new Uint8Array())).toThrow(malformed("a 0-byte buffer has no room for the root offset \\(4 bytes\\)"));
    expect(lazy(good.subarray(0, 3))).toThrow(malformed("a 3-byte buffer has no room for the root offset \\(4 bytes\\)"));
    expect(typed(changed((b) => put(b, 0, 0)))).toThrow(malformed("offset at byte 0 to the root table is 0 \\(offsets point forward\\)"));
    expect(typed(changed((b) => put(b, 0, -16)))).toThrow(malformed(`offset at byte 0 points to the root table at byte 4294967280, past the end of the ${good.length}-byte buffer`));
  });
  it("a vector length beyond the buffer, before anything is allocated for it", () => {
    for (const count of [0x7fffffff, -1, good.length]) {
      const bad = changed((b) => put(b, target(b, field(b, root(b), 0)), count));
      const started = performance.now();
      expect(typed(bad)).toThrow(malformed(`root field records: vector at byte \\d+ claims ${count >>> 0} elements of 4 bytes, past the end of the ${good.length}-byte buffer`));
      expect(lazy(bad)).toThrow(/claims \d+ elements of 4 bytes/);
      expect(performance.now() - started).toBeLessThan(50);
    }
    const cars = changed((b) => put(b, target(b, field(b, record(b, 2), 7)), 0x40000000));
    expect(typed(cars)).toThrow(malformed("record 2 field cars: vector at byte \\d+ claims 1073741824 elements of 4 bytes, past the end of the \\d+-byte buffer"));
    expect(lazy(cars)).toThrow(malformed("record 2 field cars.2.brand: vector at byte \\d+ claims 1073741824 elements of 4 bytes, .*"));
  });
  it("a string length beyond the buffer, a string without its NUL, a string that is not UTF-8 (the runtime's decoder would replace it)", () => {
    const long = changed((b) => put(b, target(b, brandField(b)), 0x7ffffff0));
    expect(typed(long)).toThrow(malformed("record 1 field cars\\[2\\]\\.brand: string at byte \\d+ claims 2147483632 bytes, past the end of the \\d+-byte buffer \\(with its NUL\\)"));
    expect(lazy(long)).toThrow(malformed("record 1 field cars\\.2\\.brand: string at byte \\d+ claims 2147483632 bytes, .*"));
    const unterminated = changed((b) => {
      const s = target(b, brandField(b));
      b[s + 4 + word(b, s)] = 0x41;
    });
    expect(typed(unterminated)).toThrow(malformed("record 1 field cars\\[2\\]\\.brand: string at byte \\d+ \\(\\d+ bytes\\) does not end with a NUL"));
    const notUtf8 = changed((b) => (b[target(b, brandField(b)) + 4] = 0xff));
    expect(typed(notUtf8)).toThrow(malformed("record 1 field cars\\[2\\]\\.brand: string at byte \\d+ is not valid UTF-8"));
    expect(lazy(notUtf8)).toThrow(malformed("record 1 field cars\\.2\\.brand: string at byte \\d+ is not valid UTF-8"));
  });
  it("offsets that do not point forward, or point past the end", () => {
    expect(typed(changed((b) => put(b, brandField(b), 0)))).toThrow(malformed("record 1 field cars\\[2\\]\\.brand: offset at byte \\d+ to the string is 0 \\(offsets point forward\\)"));
    expect(typed(changed((b) => put(b, brandField(b), -8)))).toThrow(malformed("record 1 field cars\\[2\\]\\.brand: offset at byte \\d+ points to the string at byte \\d+, past the end of the \\d+-byte buffer"));
    const carOffset = (b: Uint8Array) => target(b, field(b, record(b, 1), 7)) + 4 + 4 * 2;
    expect(typed(changed((b) => put(b, carOffset(b), good.length)))).toThrow(malformed("record 1 field cars\\[2\\]: offset at byte \\d+ points to the table at byte \\d+, past the end of the \\d+-byte buffer"));
  });
  it("vtables and fields outside the buffer or their table", () => {
    // The table's soffset moved so its vtable lies before the buffer.
    expect(typed(changed((b) => put(b, record(b, 0), record(b, 0) + 4)))).toThrow(malformed("record 0: table at byte \\d+ has its vtable at byte -4, outside the \\d+-byte buffer"));
    const vtable = (b: Uint8Array, t: number) => t - word(b, t);
    const setShort = (b: Uint8Array, at: number, value: number) => new ByteBuffer(b).writeInt16(at, value);
    expect(typed(changed((b) => setShort(b, vtable(b, record(b, 0)), 3)))).toThrow(malformed("record 0: vtable at byte \\d+ \\(of the table at byte \\d+\\) claims 3 bytes, which is not an even size from 4 within the \\d+-byte buffer"));
    expect(typed(changed((b) => setShort(b, vtable(b, record(b, 0)), -2)))).toThrow(/claims 65534 bytes/);
    expect(typed(changed((b) => setShort(b, vtable(b, record(b, 0)) + 2, 0xfff0)))).toThrow(malformed("record 0: table at byte \\d+ claims 65520 bytes, which is not a size from 4 within the \\d+-byte buffer"));
    // name (slot 1) placed at the table's last bytes: its 4-byte offset would run past the table.
    const nameAtEnd = changed((b) => {
      const t = record(b, 0);
      const size = new ByteBuffer(b).readUint16(vtable(b, t) + 2);
      setShort(b, vtable(b, t) + 4 + 2 * 1, size - 2);
    });
    expect(typed(nameAtEnd)).toThrow(malformed("record 0 field name: field at offset \\d+ of the \\d+-byte table at byte \\d+ does not lie within that table"));
    expect(lazy(nameAtEnd)).toThrow(malformed("record 0 field name: field at offset .*"));
  });
  it("a bool that is neither 0 nor 1", () => {
    const dummy = datasetById("dummy");
    const dummyCodec = flatbuffersCodec.prepare(dummy);
    const dummyRecords = dummy.fromCanonical(canonicalPb("dummy")) as { isActive: boolean }[];
    const i = dummyRecords.findIndex((r) => r.isActive);
    const bytes = dummyCodec.encode(dummyRecords);
    bytes[field(bytes, record(bytes, i), 3)] = 2;
    expect(() => dummyCodec.decodeTyped(bytes)).toThrow(malformed(`record ${i} field isActive: bool at byte \\d+ is 0x2, not 0 or 1`));
    expect(() => dummyCodec.decodeLazy!(bytes, ["isActive"])).toThrow(malformed(`record ${i} field isActive: bool at byte \\d+ is 0x2, not 0 or 1`));
  });
  it("objects shared so that the buffer would decode into far more than it holds (a 1000-entry vector of one record)", () => {
    const beers = flatbuffersCodec.prepare(datasetById("beers"));
    const b = new Builder();
    const text = b.createString("x".repeat(2000));
    b.startObject(7);
    for (let slot = 1; slot < 7; slot++) b.addFieldOffset(slot, text, 0);
    const one = b.endObject();
    b.startVector(4, 1000, 4);
    for (let i = 0; i < 1000; i++) b.addOffset(one);
    const vector = b.endVector();
    b.startObject(1);
    b.addFieldOffset(0, vector, 0);
    b.finish(b.endObject());
    const bytes = b.asUint8Array();
    expect(bytes.length).toBeLessThan(8000);
    const started = performance.now();
    const shared = `string at byte \\d+ makes the tables, vectors and strings read add up to more bytes than the ${bytes.length}-byte buffer holds \\(objects shared or overlapping\\)`;
    // The first record's six 2000-byte strings already add up to more than the buffer; a lazy read of one field gets to the second.
    expect(() => beers.decodeTyped(bytes)).toThrow(malformed(`record 0 field brewedBy: ${shared}`));
    expect(() => beers.decodeLazy!(bytes, ["details"])).toThrow(malformed(`record 1 field details: ${shared}`));
    expect(performance.now() - started).toBeLessThan(100);
  });
});
