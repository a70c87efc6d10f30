import type { Dataset } from "../model/dataset";
import { messageFields, requireOffered, type FieldType } from "../model/schema";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { int64Widener } from "./int64";
import { treeToRecords } from "./tree";
import { libraryVersion } from "./versions";

// ubjson (Universal Binary JSON, Draft 12), written here, as in Rust (rust/codecs/src/ubjson.rs),
// and for the same reason: no JS library does the job. The one the page used before
// (@shelacek/ubjson 1.1.1) has no int64 (it throws on a bigint and writes an integer beyond int32
// as a float), exposes no hook to add it, and decodes recursively with no depth limit (the 1 MiB
// matrix payload overflowed the page's stack); keeping it meant patching its minified private
// methods by name. The format is small.
//
// Encoding is driven by the dataset's schema, so the page writes what Rust writes, byte for byte:
// one object {"records": [...]}, fields in proto order, unsized containers, integers in the
// smallest marker that holds them (i, U, I, l, L), doubles always as float64 (D). A JS number
// cannot tell 2166.0 from 2166; the schema can.
//
// Decoding reads every Draft 12 form (all numeric markers, C, H as a string, N no-ops, containers
// with $type and #count) into plain JS values: objects in wire order, 'L' as bigint, every other
// integer and float as number. It refuses, with an Error naming the offset: input that ends early,
// unknown markers, bad counts, invalid UTF-8, bytes after the value, containers nested deeper than
// MAX_DEPTH (iteration would not help a page that must then hold them), and container counts the
// input cannot hold (below).

/** Containers nested deeper than this are refused (Rust's decoder has the same limit). */
const MAX_DEPTH = 128;

// Markers (Draft 12).
const Null = 0x5a; // Z
const NoOp = 0x4e; // N
const True = 0x54; // T
const False = 0x46; // F
const Int8 = 0x69; // i
const Uint8 = 0x55; // U
const Int16 = 0x49; // I
const Int32 = 0x6c; // l
const Int64 = 0x4c; // L
const Float32 = 0x64; // d
const Float64 = 0x44; // D
const HighPrecision = 0x48; // H
const Char = 0x43; // C
const Str = 0x53; // S
const ArrayStart = 0x5b; // [
const ArrayEnd = 0x5d; // ]
const ObjectStart = 0x7b; // {
const ObjectEnd = 0x7d; // }
const TypeMarker = 0x24; // $
const CountMarker = 0x23; // #

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true });

// ---- encoding ---------------------------------------------------------------------------------

class Writer {
  bytes = new Uint8Array(256);
  view = new DataView(this.bytes.buffer);
  pos = 0;

  /** Room for `n` more bytes (the buffer doubles, as Rust's Vec does). */
  reserve(n: number): void {
    if (this.pos + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.pos++] = b;
  }

  raw(b: Uint8Array): void {
    this.reserve(b.length);
    this.bytes.set(b, this.pos);
    this.pos += b.length;
  }

  /** An integer in the smallest marker that holds it. */
  int(v: number): void {
    if (!Number.isInteger(v)) throw new Error(`${v} is not an integer`);
    this.reserve(9);
    const { view } = this;
    if (v >= -128 && v <= 127) {
      this.bytes[this.pos] = Int8;
      view.setInt8(this.pos + 1, v);
      this.pos += 2;
    } else if (v >= 0 && v <= 255) {
      this.bytes[this.pos] = Uint8;
      this.bytes[this.pos + 1] = v;
      this.pos += 2;
    } else if (v >= -32768 && v <= 32767) {
      this.bytes[this.pos] = Int16;
      view.setInt16(this.pos + 1, v);
      this.pos += 3;
    } else if (v >= -2147483648 && v <= 2147483647) {
      this.bytes[this.pos] = Int32;
      view.setInt32(this.pos + 1, v);
      this.pos += 5;
    } else {
      this.int64(BigInt(v));
    }
  }

  bigint(v: bigint): void {
    if (v >= -2147483648n && v <= 2147483647n) this.int(Number(v));
    else this.int64(v);
  }

  int64(v: bigint): void {
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new Error(`${v} does not fit UBJSON's int64`);
    this.reserve(9);
    this.bytes[this.pos] = Int64;
    this.view.setBigInt64(this.pos + 1, v);
    this.pos += 9;
  }

  double(v: number): void {
    this.reserve(9);
    this.bytes[this.pos] = Float64;
    this.view.setFloat64(this.pos + 1, v);
    this.pos += 9;
  }

  /** A string's length and UTF-8 bytes, without the S marker (object keys have none). */
  str(s: string): void {
    const n = s.length;
    // ASCII first: its byte length is known before the bytes are written.
    this.reserve(n + 9);
    const start = this.pos;
    this.int(n);
    const at = this.pos;
    const bytes = this.bytes;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      bytes[at + i] = c;
    }
    if (i === n) {
      this.pos = at + n;
      return;
    }
    this.pos = start;
    const encoded = utf8.encode(s);
    this.int(encoded.length);
    this.raw(encoded);
  }
}

type Write = (w: Writer, value: unknown) => void;

/** A writer for one schema type, compiled once per dataset (outside any timed region). */
function writerOf(type: FieldType): Write {
  if (typeof type === "string") {
    switch (type) {
      case "string":
        return (w, v) => {
          w.byte(Str);
          w.str(v as string);
        };
      case "int32":
        return (w, v) => w.int(v as number);
      case "int64":
        return (w, v) => (typeof v === "bigint" ? w.bigint(v) : w.int(v as number));
      case "double":
        return (w, v) => w.double(v as number);
      case "bool":
        return (w, v) => w.byte(v ? True : False);
      default:
        throw new Error(`ubjson: no writer for ${type} fields`);
    }
  }
  if (type.kind === "repeated") {
    const item = writerOf(type.of);
    return (w, v) => {
      const items = v as readonly unknown[];
      w.byte(ArrayStart);
      for (let i = 0; i < items.length; i++) item(w, items[i]);
      w.byte(ArrayEnd);
    };
  }
  const fields = messageFields(type).map(([name, fieldType]) => {
    const key = new Writer();
    key.str(name);
    return { name, key: key.bytes.slice(0, key.pos), write: writerOf(fieldType) };
  });
  return (w, v) => {
    const record = v as Record<string, unknown>;
    w.byte(ObjectStart);
    for (const field of fields) {
      w.raw(field.key);
      field.write(w, record[field.name]);
    }
    w.byte(ObjectEnd);
  };
}

/** {"records": [...]} for one dataset's record type. */
function encoderOf(record: FieldType): (records: readonly unknown[]) => Uint8Array {
  const item = writerOf(record);
  const head = new Writer();
  head.byte(ObjectStart);
  head.str("records");
  head.byte(ArrayStart);
  const prefix = head.bytes.slice(0, head.pos);
  return (records) => {
    const w = new Writer();
    w.raw(prefix);
    for (let i = 0; i < records.length; i++) item(w, records[i]);
    w.byte(ArrayEnd);
    w.byte(ObjectEnd);
    return w.bytes.subarray(0, w.pos);
  };
}

// ---- decoding ---------------------------------------------------------------------------------

class Reader {
  readonly view: DataView;
  pos = 0;
  depth = 0;
  /**
   * Elements of $Z/$T/$F containers take no bytes: Draft 12 lets 9 bytes declare 2^31 of them.
   * They share a budget of one per input byte per decode, so memory stays linear in the input;
   * every other container may not declare more elements than bytes are left (each takes one).
   */
  emptyElementsLeft: number;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.emptyElementsLeft = bytes.length;
  }

  fail(what: string): never {
    throw new Error(`${what} at offset ${this.pos}`);
  }

  need(n: number, what: string): void {
    if (this.pos + n > this.bytes.length) this.fail(`Unexpected EOF reading ${what}`);
  }

  /** The offset of the next `n` bytes, which the read position then passes. */
  take(n: number, what: string): number {
    this.need(n, what);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** The next marker, skipping no-ops. */
  marker(): number {
    for (;;) {
      if (this.pos >= this.bytes.length) this.fail("Unexpected EOF where a marker is due");
      const m = this.bytes[this.pos++]!;
      if (m !== NoOp) return m;
    }
  }

  /** A length or count: an integer marker and a non-negative value. */
  length(what: string): number {
    const m = this.marker();
    const n = this.integer(m, what);
    if (typeof n === "bigint" ? n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER) : n < 0) this.fail(`Invalid length/count ${n} of ${what}`);
    return Number(n);
  }

  integer(m: number, what: string): number | bigint {
    const { view } = this;
    switch (m) {
      case Int8:
        return view.getInt8(this.take(1, what));
      case Uint8:
        return view.getUint8(this.take(1, what));
      case Int16:
        return view.getInt16(this.take(2, what));
      case Int32:
        return view.getInt32(this.take(4, what));
      case Int64:
        return view.getBigInt64(this.take(8, what));
      default:
        this.pos -= 1;
        return this.fail(`Invalid length/count: marker ${markerName(m)} is not an integer (${what})`);
    }
  }

  string(what: string): string {
    const n = this.length(what);
    const start = this.take(n, what);
    const { bytes } = this;
    // Short ASCII strings (most keys and values here) without the decoder call's overhead.
    if (n <= 32) {
      let s = "";
      let i = start;
      for (; i < start + n; i++) {
        const c = bytes[i]!;
        if (c >= 0x80) break;
        s += String.fromCharCode(c);
      }
      if (i === start + n) return s;
    }
    try {
      return utf8Strict.decode(bytes.subarray(start, start + n));
    } catch {
      this.pos = start;
      return this.fail(`Invalid data: ${what} is not UTF-8`);
    }
  }

  value(m: number): unknown {
    const { view } = this;
    switch (m) {
      case Null:
        return null;
      case True:
        return true;
      case False:
        return false;
      case Int8:
      case Uint8:
      case Int16:
      case Int32:
      case Int64:
        return this.integer(m, "an integer");
      case Float32:
        return view.getFloat32(this.take(4, "a float32"));
      case Float64:
        return view.getFloat64(this.take(8, "a float64"));
      case Str:
        return this.string("a string");
      case HighPrecision:
        return this.string("a high-precision number");
      case Char:
        return String.fromCharCode(view.getUint8(this.take(1, "a char")));
      case ArrayStart:
        return this.array();
      case ObjectStart:
        return this.object();
      default:
        this.pos -= 1;
        return this.fail(`Unexpected type ${markerName(m)}`);
    }
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail(`containers nested too deep for the decoder (more than ${MAX_DEPTH} levels)`);
  }

  /** An optimised container's $type and #count, after its opening marker (count -1: unsized). */
  header(): { type: number; count: number } {
    let type = -1;
    if (this.bytes[this.pos] === TypeMarker) {
      this.pos += 1;
      this.need(1, "a container type");
      type = this.bytes[this.pos++]!;
      if (this.bytes[this.pos] !== CountMarker) this.fail("Expected count marker after a container type");
    }
    if (this.bytes[this.pos] !== CountMarker) return { type, count: -1 };
    this.pos += 1;
    const count = this.length("a container count");
    if (type === Null || type === True || type === False) {
      this.emptyElementsLeft -= count;
      if (this.emptyElementsLeft < 0) this.fail(`container count ${count} of ${String.fromCharCode(type)} elements exceeds the cap of one such element per input byte`);
    } else {
      const left = this.bytes.length - this.pos;
      if (count > left) this.fail(`container count ${count} exceeds the ${left} bytes left in the input`);
    }
    return { type, count };
  }

  array(): unknown[] {
    this.enter();
    const { type, count } = this.header();
    const out: unknown[] = [];
    if (count >= 0) {
      for (let i = 0; i < count; i++) out.push(this.value(type >= 0 ? type : this.marker()));
    } else {
      for (;;) {
        const m = this.marker();
        if (m === ArrayEnd) break;
        out.push(this.value(m));
      }
    }
    this.depth -= 1;
    return out;
  }

  object(): Record<string, unknown> {
    this.enter();
    const { type, count } = this.header();
    const out: Record<string, unknown> = {};
    const entry = () => {
      const key = this.string("an object key");
      const value = this.value(type >= 0 ? type : this.marker());
      // A key "__proto__" is data, not the object's prototype.
      if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    };
    if (count >= 0) {
      for (let i = 0; i < count; i++) entry();
    } else {
      for (;;) {
        // Keys have no marker of their own: their length's integer marker comes first.
        while (this.bytes[this.pos] === NoOp) this.pos += 1;
        if (this.pos >= this.bytes.length) this.fail("Unexpected EOF in an object");
        if (this.bytes[this.pos] === ObjectEnd) {
          this.pos += 1;
          break;
        }
        entry();
      }
    }
    this.depth -= 1;
    return out;
  }
}

function markerName(m: number): string {
  return m >= 0x20 && m < 0x7f ? `'${String.fromCharCode(m)}'` : `0x${m.toString(16).padStart(2, "0")}`;
}

/** One UBJSON value filling the whole payload. */
export function decodeUbjson(payload: Uint8Array): unknown {
  const r = new Reader(payload);
  const value = r.value(r.marker());
  while (r.bytes[r.pos] === NoOp) r.pos += 1;
  if (r.pos !== payload.length) r.fail(`Invalid data: ${payload.length - r.pos} bytes after the value`);
  return value;
}

export const ubjsonCodec: Codec = {
  info: {
    id: "ubjson",
    mediaType: "application/ubjson",
    decodeModes: ["typed", "tree"],
    library: "codecbench ubjson (project-owned, Draft 12)",
    libraryVersion: libraryVersion("codecbench-web"),
    notes:
      "no maintained JS library has int64 (src/codecs/ubjson.ts says why); written from the dataset's schema as Rust writes it " +
      "(smallest integer markers, float64 for doubles, unsized containers); decode reads every Draft 12 form, 'L' as bigint; tree = plain JS values",
    timedRegions: [
      { operation: "encode", contains: ["serialize", "utf8"], note: "the model objects walked by a writer compiled from the schema into one growing buffer, viewed as bytes without a copy" },
      {
        operation: "typed",
        contains: ["parse", "utf8", "model-conversion"],
        note: "the generic decode ('L' as bigint); the conversion widens int64 fields that came in narrower markers to bigint (datasets with int64 only)",
      },
      { operation: "tree", contains: ["parse", "utf8"], note: "the generic decode into plain JS values, no conversion" },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("ubjson", dataset.record);
    const encode = encoderOf(dataset.record);
    const widen = int64Widener(dataset.record);
    return {
      encode,
      decodeTyped: widen ? (payload) => widen(recordsOf(decodeUbjson(payload))) : (payload) => recordsOf(decodeUbjson(payload)),
      decodeTree: decodeUbjson,
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
