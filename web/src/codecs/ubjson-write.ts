import { messageFields, type FieldType } from "../datasets/schema";
import { True, False, Int8, Uint8, Int16, Int32, Int64, Float32, Float64, Str, ArrayStart, ArrayEnd, ObjectStart, ObjectEnd, TypeMarker, CountMarker } from "./ubjson-markers";

// Writing UBJSON from the dataset's schema, as Rust writes it (src/codecs/ubjson.ts says why and how):
// fields in proto order, integers in the smallest marker (every integer kind; uint64 is refused
// before this), doubles as float64, floats as float32, bytes as an optimised array of uint8
// ([$U#<length><bytes>), enums by name, a Timestamp its RFC 3339 string, a map an object keyed by
// the key's text, unset proto3 `optional` fields and oneof members left out.

const utf8 = new TextEncoder();

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

  float(v: number): void {
    this.reserve(5);
    this.bytes[this.pos] = Float32;
    this.view.setFloat32(this.pos + 1, v);
    this.pos += 5;
  }

  /** [$U#<length><bytes>: UBJSON's binary. */
  binary(b: Uint8Array): void {
    this.reserve(3);
    this.bytes[this.pos++] = ArrayStart;
    this.bytes[this.pos++] = TypeMarker;
    this.bytes[this.pos++] = Uint8;
    this.byte(CountMarker);
    this.int(b.length);
    this.raw(b);
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

const writeString: Write = (w, v) => {
  w.byte(Str);
  w.str(v as string);
};

/** A writer for one schema type, compiled once per dataset (outside any timed region). */
function writerOf(type: FieldType): Write {
  if (typeof type === "string") {
    switch (type) {
      case "string":
        return writeString;
      case "int32":
      case "sint32":
      case "sfixed32":
      case "uint32":
      case "fixed32":
        return (w, v) => w.int(v as number);
      case "int64":
      case "sint64":
      case "sfixed64":
        return (w, v) => (typeof v === "bigint" ? w.bigint(v) : w.int(v as number));
      case "double":
        return (w, v) => w.double(v as number);
      case "float":
        return (w, v) => w.float(v as number);
      case "bytes":
        return (w, v) => w.binary(v as Uint8Array);
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
  // An enum by its name; a number no value names (an open enum's) as that number.
  if (type.kind === "enum") {
    return (w, v) => {
      if (typeof v === "number") return w.int(v);
      w.byte(Str);
      w.str(v as string);
    };
  }
  // An unset optional field is left out by its message, so the writer sees only set values.
  if (type.kind === "optional") return writerOf(type.of);
  if (type.kind === "timestamp") return writeString;
  if (type.kind === "map") {
    const value = writerOf(type.value);
    return (w, v) => {
      const map = v as Record<string, unknown>;
      w.byte(ObjectStart);
      for (const key of Object.keys(map)) {
        w.str(key);
        value(w, map[key]);
      }
      w.byte(ObjectEnd);
    };
  }
  const fields = messageFields(type).map(([name, fieldType]) => {
    const key = new Writer();
    key.str(name);
    return { name, key: key.bytes.slice(0, key.pos), write: writerOf(fieldType), optional: typeof fieldType === "object" && fieldType.kind === "optional" };
  });
  return (w, v) => {
    const record = v as Record<string, unknown>;
    w.byte(ObjectStart);
    for (const field of fields) {
      const value = record[field.name];
      if (field.optional && value === undefined) continue;
      w.raw(field.key);
      field.write(w, value);
    }
    w.byte(ObjectEnd);
  };
}

/** {"records": [...]} for one dataset's record type. */
export function encoderOf(record: FieldType): (records: readonly unknown[]) => Uint8Array {
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
