import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { Builder, ByteBuffer, Encoding } from "flatbuffers";
import type { Dataset } from "../model/dataset";
import { requireOffered, wireName } from "../model/schema";
import type { Codec, PreparedCodec } from "./codec";
import { libraryVersion } from "./versions";

// flatbuffers: the npm flatbuffers runtime (Builder, ByteBuffer). The wire form of proto/README.md:
// the dataset's `*Dataset` table as the root, in the schema `flatc --proto` makes of
// proto/codecbench/v1/datasets.proto (one table per message, a field's slot = its position in
// the message's declaration, as flatc 2.0.8 numbers them), no file identifier.
//
// The mapping between the model objects and the tables is built once per dataset in prepare()
// from the protobuf-es descriptors (the schema every codec shares), and makes the calls flatc's
// generated TypeScript makes: Builder.createString / startVector / addOffset / endVector /
// startObject / addField* / endObject / finish to write, ByteBuffer.__offset / __indirect /
// __vector / __vector_len / __string and read* to read. flatc's own TypeScript (npm run generate,
// src/gen/fbs/) is not used here: it has one class per message, and a codec that called it would
// need hand-written code per dataset. test/flatbuffers.test.ts reads this codec's buffers through
// those generated classes and decodes what their builders write.
//
// Writing: every string, vector and nested table is written, even when empty; scalars equal to
// their default are omitted (the library's default), except a double -0.0, which the library's
// `value != default` test would drop (it reads back as +0.0): it is written. A table's scalars
// are added largest first (as flatc's C++ and Rust `create` functions do), so no padding is
// needed between them. A fresh Builder per encode; asUint8Array() is a view of its buffer, so
// the bytes are copied out.
//
// Reading: the TypeScript runtime has no verifier and its reads past the end give undefined,
// read as 0, not an error. So every table, vtable, field, vector and string is bounds-checked
// before it is read (written by hand, as the Rust runtime's Verifier checks them), a vector's
// length before anything is allocated for it, and strings are checked to be NUL-terminated and
// valid UTF-8 (the runtime's own TextDecoder replaces bad bytes). Offsets point forward
// (uoffset_t is unsigned). A buffer whose tables, vectors and strings add up to more bytes than
// it holds (objects shared or overlapping: no writer of this wire form shares any) is refused, so
// that a small buffer whose offsets all point at one object cannot decode into an output
// quadratic in its size. An absent string, vector or table reads as the proto default ("", [],
// the default message). Bytes after the data cannot be told from padding: a FlatBuffer has no end
// marker. Errors are FlatBuffersError, naming the record, the field and the byte.

export class FlatBuffersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FlatBuffersError";
  }
}

/** A problem found while reading; `path` is filled in on the way out ("cars[2].brand"). */
class Corrupt {
  constructor(
    readonly detail: string,
    public path = "",
  ) {}
}

/** `outer` followed by an inner path: "cars" + "[2]", "cars[2]" + "weight" -> "cars[2].weight". */
const within = (outer: string, path: string) => (path === "" || path.startsWith("[") ? `${outer}${path}` : `${outer}.${path}`);

// ---- the plan: what every message and field is, from the descriptors ----------------------------

enum Kind {
  String,
  Int32,
  Int64,
  Double,
  Bool,
  Message,
}

/** Bytes of a field's inline value in its table (offsets for strings, vectors and tables). */
const INLINE: Readonly<Record<Kind, number>> = { [Kind.String]: 4, [Kind.Int32]: 4, [Kind.Int64]: 8, [Kind.Double]: 8, [Kind.Bool]: 1, [Kind.Message]: 4 };

interface FieldPlan {
  readonly name: string;
  /** Slot in the table (declaration order), and its vtable offset 4 + 2 * slot. */
  readonly slot: number;
  readonly vtableOffset: number;
  /** The field's own kind, or its elements' when `list`. */
  readonly kind: Kind;
  readonly list: boolean;
  /** Inline size in the table: 4 (an offset) for strings, lists and messages. */
  readonly size: number;
  /** Bytes of one element of a list (4 for strings and messages: offsets). */
  readonly elementSize: number;
  message: MessagePlan | null;
  readonly proto: DescField;
}

interface MessagePlan {
  readonly desc: DescMessage;
  readonly fields: FieldPlan[];
  readonly byName: Map<string, FieldPlan>;
}

function scalarKind(field: DescField, type: ScalarType): Kind {
  switch (type) {
    case ScalarType.STRING:
      return Kind.String;
    case ScalarType.INT32:
      return Kind.Int32;
    case ScalarType.INT64:
      return Kind.Int64;
    case ScalarType.DOUBLE:
      return Kind.Double;
    case ScalarType.BOOL:
      return Kind.Bool;
    default:
      throw new Error(`flatbuffers: field ${field.parent.typeName}.${field.name} has proto type ${ScalarType[type]}, which the model has no type for`);
  }
}

function fieldPlan(field: DescField, slot: number, plans: Map<DescMessage, MessagePlan>): FieldPlan {
  const name = wireName(field);
  const base = { name, slot, vtableOffset: 4 + 2 * slot, proto: field };
  switch (field.fieldKind) {
    case "scalar": {
      const kind = scalarKind(field, field.scalar);
      return { ...base, kind, list: false, size: INLINE[kind], elementSize: 0, message: null };
    }
    case "message":
      return { ...base, kind: Kind.Message, list: false, size: 4, elementSize: 0, message: messagePlan(field.message, plans) };
    case "list":
      if (field.listKind === "scalar") {
        const kind = scalarKind(field, field.scalar);
        return { ...base, kind, list: true, size: 4, elementSize: INLINE[kind], message: null };
      }
      if (field.listKind === "message") return { ...base, kind: Kind.Message, list: true, size: 4, elementSize: 4, message: messagePlan(field.message, plans) };
      break;
  }
  throw new Error(`flatbuffers: field ${field.parent.typeName}.${field.name} is a ${field.fieldKind}, which the datasets' model does not have`);
}

function messagePlan(desc: DescMessage, plans: Map<DescMessage, MessagePlan>): MessagePlan {
  const known = plans.get(desc);
  if (known) return known;
  const plan: MessagePlan = { desc, fields: [], byName: new Map() };
  plans.set(desc, plan);
  // flatc 2.0.8 --proto numbers a table's fields in declaration order (not by field number);
  // protobuf-es lists `fields` in declaration order too.
  desc.fields.forEach((field, slot) => {
    const f = fieldPlan(field, slot, plans);
    plan.fields.push(f);
    plan.byName.set(f.name, f);
  });
  return plan;
}

/** An unset nested message is its default instance in the model: such a message must not contain itself. */
function checkAcyclic(plan: MessagePlan, path: DescMessage[] = []): void {
  if (path.includes(plan.desc)) throw new Error(`flatbuffers: ${plan.desc.typeName} contains itself, and the model has no unset nested message`);
  for (const field of plan.fields) if (field.message && !field.list) checkAcyclic(field.message, [...path, plan.desc]);
}

/**
 * The record message and how the model holds a record: as an object keyed by wire names, or (a
 * `bare_list` dataset, the matrix row) as the list of the message's one repeated field, which
 * src/model/schema.ts has checked it has.
 */
function recordShape(dataset: Dataset, plans: Map<DescMessage, MessagePlan>): { root: MessagePlan; record: MessagePlan; unwrapped: FieldPlan | null } {
  const root = messagePlan(dataset.message, plans);
  const list = root.fields[0];
  if (root.fields.length !== 1 || !list?.list || list.kind !== Kind.Message) {
    throw new Error(`flatbuffers: ${dataset.message.typeName} is not a list message with one repeated message field`);
  }
  const record = list.message!;
  return { root, record, unwrapped: dataset.bareList ? record.fields[0]! : null };
}

// ---- writing: model objects -> Builder calls ----------------------------------------------------

type Write = (b: Builder, value: unknown) => number;

/** Offsets of the children of the tables and vectors being written (a stack: tables nest). */
class Offsets {
  readonly stack: number[] = [];
  top = 0;
}

/** Writes a vector of `kind` elements (scalars inline; strings and tables as offsets written first). */
function vectorWriter(field: FieldPlan, offsets: Offsets, writeTable: Write | null): Write {
  const { stack } = offsets;
  switch (field.kind) {
    case Kind.String:
    case Kind.Message:
      return (b, value) => {
        const items = value as readonly unknown[];
        const n = items.length;
        const base = offsets.top;
        offsets.top += n;
        if (writeTable) for (let i = 0; i < n; i++) stack[base + i] = writeTable(b, items[i]);
        else for (let i = 0; i < n; i++) stack[base + i] = b.createString(items[i] as string);
        b.startVector(4, n, 4);
        for (let i = n - 1; i >= 0; i--) b.addOffset(stack[base + i]!);
        offsets.top = base;
        return b.endVector();
      };
    case Kind.Int32:
      return (b, value) => {
        const items = value as readonly number[];
        b.startVector(4, items.length, 4);
        for (let i = items.length - 1; i >= 0; i--) b.addInt32(items[i]!);
        return b.endVector();
      };
    case Kind.Int64:
      return (b, value) => {
        const items = value as readonly bigint[];
        b.startVector(8, items.length, 8);
        for (let i = items.length - 1; i >= 0; i--) b.addInt64(items[i]!);
        return b.endVector();
      };
    case Kind.Double:
      return (b, value) => {
        const items = value as readonly number[];
        b.startVector(8, items.length, 8);
        for (let i = items.length - 1; i >= 0; i--) b.addFloat64(items[i]!);
        return b.endVector();
      };
    case Kind.Bool:
      return (b, value) => {
        const items = value as readonly boolean[];
        b.startVector(1, items.length, 1);
        for (let i = items.length - 1; i >= 0; i--) b.addInt8(+items[i]!);
        return b.endVector();
      };
  }
}

interface ChildWriter {
  readonly name: string;
  readonly slot: number;
  readonly write: Write;
}

/**
 * Writes a message as a table: its strings, vectors and nested tables first (a table cannot be
 * built while another is), then the table, scalars largest first. `unwrapped`: the value is the
 * list of the message's one repeated field (the model's matrix row).
 */
function tableWriter(plan: MessagePlan, offsets: Offsets, writers: Map<MessagePlan, Write>, unwrapped: boolean): Write {
  const known = unwrapped ? undefined : writers.get(plan);
  if (known) return known;
  let children: ChildWriter[] = [];
  const bySize = (size: number) => plan.fields.filter((f) => !f.list && f.kind !== Kind.String && f.kind !== Kind.Message && f.size === size);
  const wide = bySize(8);
  const narrow = bySize(4);
  const bytes = bySize(1);
  const slots = plan.fields.length;
  const { stack } = offsets;
  const write: Write = (b, value) => {
    if (unwrapped) {
      const offset = children[0]!.write(b, value);
      b.startObject(slots);
      b.addFieldOffset(children[0]!.slot, offset, 0);
      return b.endObject();
    }
    const record = value as Readonly<Record<string, unknown>>;
    const n = children.length;
    const base = offsets.top;
    offsets.top += n;
    for (let i = 0; i < n; i++) stack[base + i] = children[i]!.write(b, record[children[i]!.name]);
    b.startObject(slots);
    for (let i = 0; i < wide.length; i++) {
      const f = wide[i]!;
      const v = record[f.name];
      if (f.kind === Kind.Int64) b.addFieldInt64(f.slot, v as bigint, 0n);
      // -0.0 != 0 is false: the default NaN makes the library write it.
      else b.addFieldFloat64(f.slot, v as number, Object.is(v, -0) ? NaN : 0);
    }
    for (let i = 0; i < narrow.length; i++) b.addFieldInt32(narrow[i]!.slot, record[narrow[i]!.name] as number, 0);
    for (let i = 0; i < n; i++) b.addFieldOffset(children[i]!.slot, stack[base + i]!, 0);
    for (let i = 0; i < bytes.length; i++) b.addFieldInt8(bytes[i]!.slot, +(record[bytes[i]!.name] as boolean), 0);
    offsets.top = base;
    return b.endObject();
  };
  if (!unwrapped) writers.set(plan, write);
  children = plan.fields
    .filter((f) => f.list || f.kind === Kind.String || f.kind === Kind.Message)
    .map((f) => {
      const table = f.kind === Kind.Message ? tableWriter(f.message!, offsets, writers, false) : null;
      const write: Write = f.list ? vectorWriter(f, offsets, table) : table ?? ((b, value) => b.createString(value as string));
      return { name: f.name, slot: f.slot, write };
    });
  return write;
}

// ---- reading: bounds-checked table access --------------------------------------------------------

/** One payload being read: the library's ByteBuffer over it, and what is left of its size budget. */
class Input {
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
function follow(input: Input, at: number, what: string, need: number): number {
  const offset = input.bb.readInt32(at);
  if (offset === 0) throw new Corrupt(`offset at byte ${at} to the ${what} is 0 (offsets point forward)`);
  // A negative int32 is an unsigned offset of 2 GiB or more: past the end too.
  const target = offset < 0 ? at + (offset >>> 0) : input.bb.__indirect(at);
  if (offset < 0 || target + need > input.length) throw new Corrupt(`offset at byte ${at} points to the ${what} at byte ${target}, past the end of the ${input.length}-byte buffer`);
  return target;
}

/** Checks the table at `t` and its vtable; returns the table's size. */
function checkTable(input: Input, t: number): number {
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
function fieldAt(input: Input, t: number, size: number, field: FieldPlan): number {
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
function readVector(input: Input, at: number, elementSize: number): [number, number] {
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

/** A scalar or string value at `at` (the field's position, or a vector element's). */
function readScalar(input: Input, kind: Kind, at: number): unknown {
  switch (kind) {
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
    case Kind.Message:
      throw new Error("flatbuffers: a message is not a scalar");
  }
}

const DEFAULTS: Readonly<Record<Kind, unknown>> = { [Kind.String]: "", [Kind.Int32]: 0, [Kind.Int64]: 0n, [Kind.Double]: 0, [Kind.Bool]: false, [Kind.Message]: null };

// ---- reading: tables -> model objects ------------------------------------------------------------

type ReadTable = (input: Input, t: number) => unknown;

/** The model's default instance of a message (an absent nested table). */
function defaultOf(plan: MessagePlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of plan.fields) out[f.name] = f.list ? [] : f.kind === Kind.Message ? defaultOf(f.message!) : DEFAULTS[f.kind];
  return out;
}

/** Reads the list a vector field at `at` holds. */
function readList(input: Input, at: number, field: FieldPlan, table: ReadTable | null): unknown[] {
  const [start, n] = readVector(input, at, field.elementSize);
  const out = new Array<unknown>(n);
  let i = 0;
  try {
    if (table) for (; i < n; i++) out[i] = table(input, follow(input, start + 4 * i, "table", 4));
    else for (; i < n; i++) out[i] = readScalar(input, field.kind, start + i * field.elementSize);
  } catch (error) {
    if (error instanceof Corrupt) error.path = within(`[${i}]`, error.path);
    throw error;
  }
  return out;
}

/** A table -> a model object with every field, in field order. `unwrapped`: the list of its one repeated field. */
function tableReader(plan: MessagePlan, readers: Map<MessagePlan, ReadTable>, unwrapped: boolean): ReadTable {
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
        if (at === 0) value = f.list ? [] : f.kind === Kind.Message ? defaultOf(f.message!) : DEFAULTS[f.kind];
        else if (f.list) value = readList(input, at, f, tables[i]!);
        else if (f.kind === Kind.Message) value = tables[i]!(input, follow(input, at, "table", 4));
        else value = readScalar(input, f.kind, at);
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

function fail(error: unknown, record: number | null): never {
  if (!(error instanceof Corrupt)) throw error;
  const where = record === null ? (error.path === "" ? "" : `root field ${error.path}: `) : error.path === "" ? `record ${record}: ` : `record ${record} field ${error.path}: `;
  throw new FlatBuffersError(`malformed FlatBuffer: ${where}${error.detail}`);
}

/** Reads the records vector of the root table: [position of element 0, count], or null when absent. */
function recordsVector(input: Input, list: FieldPlan): [number, number] | null {
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

// ---- lazy: a dotted path -> a chain of slots -----------------------------------------------------

interface Step {
  /** A field of the current table, or an index into the current list. */
  readonly field: FieldPlan | null;
  readonly index: number;
}

interface LazyPath {
  readonly text: string;
  readonly steps: readonly Step[];
  /** The scalar read at the end. */
  readonly kind: Kind;
}

function resolve(record: MessagePlan, unwrapped: FieldPlan | null, text: string): LazyPath {
  // The model's matrix row is the list of the record's one field: the path starts inside it.
  const steps: Step[] = unwrapped ? [{ field: unwrapped, index: 0 }] : [];
  const missing = (why: string) => new FlatBuffersError(`${record.desc.typeName} records have no field ${JSON.stringify(text)} (${why})`);
  // Where the path stands: a message, a list of `of`, or a scalar.
  let message: MessagePlan | null = unwrapped ? null : record;
  let list: FieldPlan | null = unwrapped;
  let scalar: Kind | null = null;
  for (const part of text.split(".")) {
    if (message) {
      const field = message.byName.get(part);
      if (!field) throw missing(`${message.desc.typeName} has no field ${JSON.stringify(part)}`);
      steps.push({ field, index: 0 });
      [message, list, scalar] = field.list ? [null, field, null] : field.kind === Kind.Message ? [field.message, null, null] : [null, null, field.kind];
    } else if (list) {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(part)) throw missing(`${JSON.stringify(part)} is not an index into the list ${list.name}`);
      steps.push({ field: null, index: Number(part) });
      [message, list, scalar] = list.kind === Kind.Message ? [list.message, null, null] : [null, null, list.kind];
    } else {
      throw missing(`${JSON.stringify(part)} is inside a scalar`);
    }
  }
  if (scalar === null) throw missing(`it is a ${message ? "message" : "list"}, not a scalar a lazy read turns into text`);
  return { text, steps, kind: scalar };
}

/** Reads one lazy path from the record table at `t` (checked, `size` bytes) as text. */
function readPath(input: Input, t: number, size: number, path: LazyPath, record: number): string {
  let list: FieldPlan | null = null;
  let listAt = 0;
  for (let s = 0; s < path.steps.length; s++) {
    const { field, index } = path.steps[s]!;
    let at: number;
    if (field) {
      at = fieldAt(input, t, size, field);
      if (at === 0) {
        // Absent: the proto default, unless an index into the (empty) list follows.
        if (path.steps.some((step, later) => later > s && step.field === null)) {
          throw new FlatBuffersError(`record ${record} has no field ${JSON.stringify(path.text)} (${field.name} is empty)`);
        }
        return String(DEFAULTS[path.kind]);
      }
      if (field.list) {
        [list, listAt] = [field, at];
        continue;
      }
      if (field.kind !== Kind.Message) return String(readScalar(input, field.kind, at));
    } else {
      const [start, n] = readVector(input, listAt, list!.elementSize);
      if (index >= n) throw new FlatBuffersError(`record ${record} has no field ${JSON.stringify(path.text)} (${list!.name} has ${n} entries)`);
      at = start + index * list!.elementSize;
      if (list!.kind !== Kind.Message) return String(readScalar(input, list!.kind, at));
    }
    t = follow(input, at, "table", 4);
    size = checkTable(input, t);
  }
  throw new Error("flatbuffers: a lazy path ends in a table");
}

// ---- the codec -----------------------------------------------------------------------------------

export const flatbuffersCodec: Codec = {
  info: {
    id: "flatbuffers",
    mediaType: "application/x-flatbuffers",
    decodeModes: ["typed", "lazy"],
    library: "flatbuffers",
    libraryVersion: libraryVersion("flatbuffers"),
    notes:
      "the *Dataset table as the root, schema from flatc 2.0.8 --proto (slots in declaration order), no file identifier; " +
      "the model <-> tables mapping is built once per dataset from the protobuf descriptors and makes the calls flatc's generated TypeScript makes " +
      "(Builder table API; ByteBuffer __offset/__indirect/__vector/__vector_len/__string); every string, vector and table written, scalar defaults omitted except -0.0; " +
      "int64 as bigint; no verifier in the TypeScript runtime, so every offset, vtable, length and string is bounds-checked as it is read, strings checked NUL-terminated and valid UTF-8, " +
      "and objects adding up to more than the buffer (shared/overlapping) refused; an absent string/vector/table reads as the proto default",
    timedRegions: [
      {
        operation: "encode",
        contains: ["model-conversion", "serialize", "utf8", "copy"],
        note:
          "a fresh Builder; the descriptor-built writer walks the model objects and calls createString (TextEncoder), startVector/addOffset/endVector and " +
          "startObject/addField*/endObject directly (the conversion and the serialization are one pass, no intermediate objects); finish; asUint8Array().slice() copies the bytes out of the builder",
      },
      {
        operation: "typed",
        contains: ["validation", "parse", "utf8", "model-conversion"],
        note:
          "a ByteBuffer over the payload; the descriptor-built reader follows every table, vtable, vector and string through ByteBuffer's accessors, bounds-checking each before it reads it, " +
          "decodes strings with a fatal TextDecoder and builds the model objects (int64 as bigint, absent fields as proto defaults)",
      },
      {
        operation: "lazy",
        contains: ["validation", "field-lookup", "utf8"],
        note:
          "each lazy field resolved once per call to a chain of slots; for every record of the records vector, the chain is followed through ByteBuffer's accessors " +
          "(each table, vector and string on the way bounds-checked) and the value read as text; no record is built",
      },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("flatbuffers", dataset.record);
    const plans = new Map<DescMessage, MessagePlan>();
    const { root: rootPlan, record, unwrapped } = recordShape(dataset, plans);
    checkAcyclic(record);
    const list = rootPlan.fields[0]!;
    const offsets = new Offsets();
    const writeRecord = tableWriter(record, offsets, new Map(), unwrapped !== null);
    const writeRecords = vectorWriter(list, offsets, writeRecord);
    const readRecord = tableReader(record, new Map(), unwrapped !== null);

    return {
      encode: (records) => {
        const b = new Builder();
        offsets.top = 0;
        const vector = writeRecords(b, records);
        b.startObject(rootPlan.fields.length);
        b.addFieldOffset(list.slot, vector, 0);
        b.finish(b.endObject());
        return b.asUint8Array().slice();
      },
      decodeTyped: (payload) => {
        const input = new Input(payload, payload.length);
        const vector = recordsVector(input, list);
        if (!vector) return [];
        const [start, n] = vector;
        const records = new Array<unknown>(n);
        let i = 0;
        try {
          for (; i < n; i++) records[i] = readRecord(input, follow(input, start + 4 * i, "table", 4));
        } catch (error) {
          fail(error, i);
        }
        return records;
      },
      decodeLazy: (payload, fields) => {
        if (fields.length === 0) throw new FlatBuffersError("a lazy read needs at least one field");
        const paths = fields.map((text) => resolve(record, unwrapped, text));
        // Each path may pass the record's nested tables again.
        const input = new Input(payload, payload.length * paths.length);
        const vector = recordsVector(input, list);
        if (!vector) return [];
        const [start, n] = vector;
        const values = new Array<string>(n * paths.length);
        let i = 0;
        try {
          for (; i < n; i++) {
            const t = follow(input, start + 4 * i, "table", 4);
            const size = checkTable(input, t);
            for (let p = 0; p < paths.length; p++) {
              const path = paths[p]!;
              try {
                values[i * paths.length + p] = readPath(input, t, size, path, i);
              } catch (error) {
                if (error instanceof Corrupt) error.path = path.text;
                throw error;
              }
            }
          }
        } catch (error) {
          fail(error, i);
        }
        return values;
      },
    };
  },
};
