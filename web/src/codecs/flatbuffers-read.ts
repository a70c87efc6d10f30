import { ByteBuffer, Encoding } from "flatbuffers";
import { Kind, type FieldPlan, type MessagePlan } from "./flatbuffers-plan";

// Reading for the flatbuffers codec. The TypeScript runtime has no verifier and its reads past
// the end give undefined, read as 0, not an error. So every table, vtable, field, vector and
// string is bounds-checked before it is read (written by hand, as the Rust runtime's Verifier
// checks them), a vector's length before anything is allocated for it, and strings are checked to
// be NUL-terminated and valid UTF-8 (the runtime's own TextDecoder replaces bad bytes). Offsets
// point forward (uoffset_t is unsigned). A buffer whose tables, vectors and strings add up to more
// bytes than it holds (objects shared or overlapping: no writer of this wire form shares any) is
// refused, so that a small buffer whose offsets all point at one object cannot decode into an
// output quadratic in its size. An absent string, vector or table reads as the proto default
// ("", [], the default message), an absent proto3 `optional` field as unset (no key). Bytes after
// the data cannot be told from padding: a FlatBuffer has no end marker. Errors are
// FlatBuffersError, naming the record, the field and the byte.

export class FlatBuffersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FlatBuffersError";
  }
}

/** A problem found while reading; `path` is filled in on the way out ("cars[2].brand"). */
export class Corrupt {
  constructor(
    readonly detail: string,
    public path = "",
  ) {}
}

/** `outer` followed by an inner path: "cars" + "[2]", "cars[2]" + "weight" -> "cars[2].weight". */
const within = (outer: string, path: string) => (path === "" || path.startsWith("[") ? `${outer}${path}` : `${outer}.${path}`);

// ---- bounds-checked table access ----------------------------------------------------------------

/** One payload being read: the library's ByteBuffer over it, and what is left of its size budget. */
export class Input {
  readonly bb: ByteBuffer;
  readonly length: number;
  budget: number;
  constructor(
    readonly bytes: Uint8Array,
    budget: number,
  ) {
    this.bb = new ByteBuffer(bytes);
    this.length = bytes.length;
    this.budget = budget;
  }
}

function charge(input: Input, bytes: number, what: string, at: number): void {
  input.budget -= bytes;
  if (input.budget < 0) throw new Corrupt(`${what} at byte ${at} makes the tables, vectors and strings read add up to more bytes than the ${input.length}-byte buffer holds (objects shared or overlapping)`);
}

/** The position an offset field at `at` points to: forward, with at least `need` bytes there. */
export function follow(input: Input, at: number, what: string, need: number): number {
  const offset = input.bb.readInt32(at);
  if (offset === 0) throw new Corrupt(`offset at byte ${at} to the ${what} is 0 (offsets point forward)`);
  // A negative int32 is an unsigned offset of 2 GiB or more: past the end too.
  const target = offset < 0 ? at + (offset >>> 0) : input.bb.__indirect(at);
  if (offset < 0 || target + need > input.length) throw new Corrupt(`offset at byte ${at} points to the ${what} at byte ${target}, past the end of the ${input.length}-byte buffer`);
  return target;
}

/** Checks the table at `t` and its vtable; returns the table's size. */
export function checkTable(input: Input, t: number): number {
  const { bb, length } = input;
  if (t + 4 > length) throw new Corrupt(`table at byte ${t} is past the end of the ${length}-byte buffer`);
  const vtable = t - bb.readInt32(t);
  if (vtable < 0 || vtable + 4 > length) throw new Corrupt(`table at byte ${t} has its vtable at byte ${vtable}, outside the ${length}-byte buffer`);
  // As ByteBuffer.__offset reads it (int16): a vtable of 32 KiB or more is refused.
  const vtableSize = bb.readInt16(vtable);
  if (vtableSize < 4 || (vtableSize & 1) !== 0 || vtable + vtableSize > length) {
    throw new Corrupt(`vtable at byte ${vtable} (of the table at byte ${t}) claims ${vtableSize & 0xffff} bytes, which is not an even size from 4 within the ${length}-byte buffer`);
  }
  const size = bb.readUint16(vtable + 2);
  if (size < 4 || t + size > length) throw new Corrupt(`table at byte ${t} claims ${size} bytes, which is not a size from 4 within the ${length}-byte buffer`);
  charge(input, size, "table", t);
  return size;
}

/** The field's position in the table at `t` (of `size` bytes), or 0 when the vtable has none. */
export function fieldAt(input: Input, t: number, size: number, field: FieldPlan): number {
  const o = input.bb.__offset(t, field.vtableOffset);
  if (o === 0) return 0;
  if (o < 4 || o + field.size > size) throw new Corrupt(`field at offset ${o} of the ${size}-byte table at byte ${t} does not lie within that table`);
  return t + o;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The string an offset at `at` points to. */
function readString(input: Input, at: number): string {
  const s = follow(input, at, "string", 4);
  const n = input.bb.readInt32(s);
  if (n < 0 || s + 4 + n + 1 > input.length) throw new Corrupt(`string at byte ${s} claims ${n >>> 0} bytes, past the end of the ${input.length}-byte buffer (with its NUL)`);
  if (input.bytes[s + 4 + n] !== 0) throw new Corrupt(`string at byte ${s} (${n} bytes) does not end with a NUL`);
  charge(input, 4 + n + 1, "string", s);
  if (n === 0) return "";
  const utf8 = input.bb.__string(at, Encoding.UTF8_BYTES) as Uint8Array;
  try {
    return decoder.decode(utf8);
  } catch {
    throw new Corrupt(`string at byte ${s} is not valid UTF-8`);
  }
}

/** The vector an offset at `at` points to: [position of element 0, count]. */
export function readVector(input: Input, at: number, elementSize: number): [number, number] {
  const v = follow(input, at, "vector", 4);
  const n = input.bb.__vector_len(at);
  if (n < 0 || n > (input.length - v - 4) / elementSize) throw new Corrupt(`vector at byte ${v} claims ${n >>> 0} elements of ${elementSize} bytes, past the end of the ${input.length}-byte buffer`);
  charge(input, 4 + n * elementSize, "vector", v);
  return [input.bb.__vector(at), n];
}

function readBool(input: Input, at: number): boolean {
  const byte = input.bb.readUint8(at);
  if (byte > 1) throw new Corrupt(`bool at byte ${at} is 0x${byte.toString(16)}, not 0 or 1`);
  return byte === 1;
}

/** A scalar or string value of `field` at `at` (the field's position, or a vector element's). */
export function readScalar(input: Input, field: FieldPlan, at: number): unknown {
  switch (field.kind) {
    case Kind.String:
      return readString(input, at);
    case Kind.Int32:
      return input.bb.readInt32(at);
    case Kind.Int64:
      return input.bb.readInt64(at);
    case Kind.Double:
      return input.bb.readFloat64(at);
    case Kind.Bool:
      return readBool(input, at);
    case Kind.Enum: {
      const number = input.bb.readInt32(at);
      return field.enumeration!.names.get(number) ?? number;
    }
    case Kind.Message:
      throw new Error("flatbuffers: a message is not a scalar");
  }
}

// ---- tables -> model objects ------------------------------------------------------------------

type ReadTable = (input: Input, t: number) => unknown;

/** The model's default instance of a message (an absent nested table). */
function defaultOf(plan: MessagePlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of plan.fields) if (!f.optional) out[f.name] = f.list ? [] : f.kind === Kind.Message ? defaultOf(f.message!) : f.zero;
  return out;
}

/** Reads the list a vector field at `at` holds. */
function readList(input: Input, at: number, field: FieldPlan, table: ReadTable | null): unknown[] {
  const [start, n] = readVector(input, at, field.elementSize);
  const out = new Array<unknown>(n);
  let i = 0;
  try {
    if (table) for (; i < n; i++) out[i] = table(input, follow(input, start + 4 * i, "table", 4));
    else for (; i < n; i++) out[i] = readScalar(input, field, start + i * field.elementSize);
  } catch (error) {
    if (error instanceof Corrupt) error.path = within(`[${i}]`, error.path);
    throw error;
  }
  return out;
}

/** A table -> a model object with every field, in field order. `unwrapped`: the list of its one repeated field. */
export function tableReader(plan: MessagePlan, readers: Map<MessagePlan, ReadTable>, unwrapped: boolean): ReadTable {
  const known = unwrapped ? undefined : readers.get(plan);
  if (known) return known;
  let tables: (ReadTable | null)[] = [];
  const fields = plan.fields;
  if (unwrapped) {
    const only = fields[0]!;
    const elements = only.kind === Kind.Message ? tableReader(only.message!, readers, false) : null;
    return (input, t) => {
      const at = fieldAt(input, t, checkTable(input, t), only);
      try {
        return at === 0 ? [] : readList(input, at, only, elements);
      } catch (error) {
        if (error instanceof Corrupt) error.path = within(only.name, error.path);
        throw error;
      }
    };
  }
  const read: ReadTable = (input, t) => {
    const size = checkTable(input, t);
    const out: Record<string, unknown> = {};
    let i = 0;
    try {
      for (; i < fields.length; i++) {
        const f = fields[i]!;
        const at = fieldAt(input, t, size, f);
        let value: unknown;
        if (at === 0) {
          // An absent optional field is unset: no key.
          if (f.optional) continue;
          value = f.list ? [] : f.kind === Kind.Message ? defaultOf(f.message!) : f.zero;
        } else if (f.list) value = readList(input, at, f, tables[i]!);
        else if (f.kind === Kind.Message) value = tables[i]!(input, follow(input, at, "table", 4));
        else value = readScalar(input, f, at);
        out[f.name] = value;
      }
    } catch (error) {
      if (error instanceof Corrupt) error.path = within(fields[i]!.name, error.path);
      throw error;
    }
    return out;
  };
  readers.set(plan, read);
  tables = fields.map((f) => (f.kind === Kind.Message ? tableReader(f.message!, readers, false) : null));
  return read;
}

/** The root table of a payload; its size. */
function root(input: Input): [number, number] {
  if (input.length < 4) throw new Corrupt(`a ${input.length}-byte buffer has no room for the root offset (4 bytes)`);
  const t = follow(input, 0, "root table", 4);
  return [t, checkTable(input, t)];
}

export function fail(error: unknown, record: number | null): never {
  if (!(error instanceof Corrupt)) throw error;
  const where = record === null ? (error.path === "" ? "" : `root field ${error.path}: `) : error.path === "" ? `record ${record}: ` : `record ${record} field ${error.path}: `;
  throw new FlatBuffersError(`malformed FlatBuffer: ${where}${error.detail}`);
}

/** Reads the records vector of the root table: [position of element 0, count], or null when absent. */
export function recordsVector(input: Input, list: FieldPlan): [number, number] | null {
  try {
    const [t, size] = root(input);
    try {
      const at = fieldAt(input, t, size, list);
      return at === 0 ? null : readVector(input, at, 4);
    } catch (error) {
      if (error instanceof Corrupt) error.path = list.name;
      throw error;
    }
  } catch (error) {
    return fail(error, null);
  }
}
