import type { Builder } from "flatbuffers";
import { Kind, type EnumPlan, type FieldPlan, type MessagePlan } from "./flatbuffers-plan";

// Writing for the flatbuffers codec: model objects -> the Builder calls flatc's generated
// TypeScript makes. Every string, vector and nested table is written, even when empty; scalars
// equal to their default are omitted (the library's default), except a double -0.0, which the
// library's `value != default` test would drop (it reads back as +0.0): it is written. A set
// proto3 `optional` field is written even at its default, an unset one not at all. A table's
// scalars are added largest first (as flatc's C++ and Rust `create` functions do), so no padding
// is needed between them.

export type Write = (b: Builder, value: unknown) => number;

/** Offsets of the children of the tables and vectors being written (a stack: tables nest). */
export class Offsets {
  readonly stack: number[] = [];
  top = 0;
}

/** Writes a vector of `kind` elements (scalars inline; strings and tables as offsets written first). */
export function vectorWriter(field: FieldPlan, offsets: Offsets, writeTable: Write | null): Write {
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
    case Kind.Enum: {
      const plan = field.enumeration!;
      return (b, value) => {
        const items = value as readonly unknown[];
        b.startVector(4, items.length, 4);
        for (let i = items.length - 1; i >= 0; i--) b.addInt32(enumNumber(plan, items[i]));
        return b.endVector();
      };
    }
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

/** The number flatc's enum holds for a model value: the name's number, or a number no value names. */
function enumNumber(plan: EnumPlan, value: unknown): number {
  const number = typeof value === "number" ? value : plan.numbers.get(value as string);
  if (number === undefined) throw new Error(`${JSON.stringify(value)} is not a value of enum ${plan.desc.typeName}`);
  return number;
}

interface ChildWriter {
  readonly name: string;
  readonly slot: number;
  readonly optional: boolean;
  readonly write: Write;
}

/**
 * Writes a message as a table: its strings, vectors and nested tables first (a table cannot be
 * built while another is), then the table, scalars largest first. `unwrapped`: the value is the
 * list of the message's one repeated field (the model's matrix row).
 */
export function tableWriter(plan: MessagePlan, offsets: Offsets, writers: Map<MessagePlan, Write>, unwrapped: boolean): Write {
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
    for (let i = 0; i < n; i++) {
      const child = children[i]!;
      const v = record[child.name];
      // An unset optional string or table: offset 0, which addFieldOffset leaves out.
      stack[base + i] = child.optional && v === undefined ? 0 : child.write(b, v);
    }
    b.startObject(slots);
    // A set optional scalar is written even when it equals its default: the default NaN (or, for
    // int64, addInt64 and slot, what a forced addFieldInt64 does) makes the library write it.
    for (let i = 0; i < wide.length; i++) {
      const f = wide[i]!;
      const v = record[f.name];
      if (f.optional && v === undefined) continue;
      if (f.kind !== Kind.Int64) b.addFieldFloat64(f.slot, v as number, f.optional || Object.is(v, -0) ? NaN : 0);
      else if (!f.optional) b.addFieldInt64(f.slot, v as bigint, 0n);
      else {
        b.addInt64(v as bigint);
        b.slot(f.slot);
      }
    }
    for (let i = 0; i < narrow.length; i++) {
      const f = narrow[i]!;
      const v = record[f.name];
      if (f.optional && v === undefined) continue;
      b.addFieldInt32(f.slot, f.enumeration ? enumNumber(f.enumeration, v) : (v as number), f.optional ? NaN : 0);
    }
    for (let i = 0; i < n; i++) b.addFieldOffset(children[i]!.slot, stack[base + i]!, 0);
    for (let i = 0; i < bytes.length; i++) {
      const f = bytes[i]!;
      const v = record[f.name];
      if (f.optional && v === undefined) continue;
      b.addFieldInt8(f.slot, +(v as boolean), f.optional ? NaN : 0);
    }
    offsets.top = base;
    return b.endObject();
  };
  if (!unwrapped) writers.set(plan, write);
  children = plan.fields
    .filter((f) => f.list || f.kind === Kind.String || f.kind === Kind.Message)
    .map((f) => {
      const table = f.kind === Kind.Message ? tableWriter(f.message!, offsets, writers, false) : null;
      const write: Write = f.list ? vectorWriter(f, offsets, table) : table ?? ((b, value) => b.createString(value as string));
      return { name: f.name, slot: f.slot, optional: f.optional, write };
    });
  return write;
}
