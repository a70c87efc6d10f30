import { MAX_DEPTH, Null, NoOp, True, False, Int8, Uint8, Int16, Int32, Int64, Float32, Float64, HighPrecision, Char, Str, ArrayStart, ArrayEnd, ObjectStart, ObjectEnd, TypeMarker, CountMarker } from "./ubjson-markers";

// Reading any Draft 12 UBJSON value into plain JS values (src/codecs/ubjson.ts says what is refused).

const utf8Strict = new TextDecoder("utf-8", { fatal: true });

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

  array(): unknown[] | Uint8Array {
    this.enter();
    const { type, count } = this.header();
    if (type === Uint8 && count >= 0) {
      // [$U#<length><bytes>: UBJSON's binary, read as the bytes themselves (a bytes field's value).
      const at = this.take(count, "an array of uint8");
      this.depth -= 1;
      return this.bytes.slice(at, at + count);
    }
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
