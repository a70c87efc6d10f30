import { create, fromJson, toJson, ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { TimestampSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import { TIMESTAMP, type WireName } from "./schema";

// The one converter between protobuf-es messages and the native model (src/datasets/schema.ts says
// what the model holds), compiled once per record message from its descriptor. Both directions
// run inside the protobuf codec's timed regions, so a field that needs nothing is copied without
// a call, and every record is one object built in field order.

type Convert = (value: unknown) => unknown;

/** What compiling a record's converters shares: one converter per message, and the model's field names. */
interface Compiling {
  readonly compiled: Map<DescMessage, Convert>;
  readonly wireName: WireName;
}

/** protobuf-es holds 64-bit integers as bigint, or as string under `jstype = JS_STRING`. */
const isLong = (type: ScalarType) => type === ScalarType.INT64 || type === ScalarType.UINT64 || type === ScalarType.SINT64 || type === ScalarType.FIXED64 || type === ScalarType.SFIXED64;

function scalar(type: ScalarType, longAsString: boolean, toNative: boolean): Convert | null {
  if (!longAsString || !isLong(type)) return null;
  return toNative ? (value) => BigInt(value as string) : (value) => String(value);
}

function enumeration(desc: DescEnum, toNative: boolean): Convert {
  if (toNative) {
    const names = new Map(desc.values.map((value) => [value.number, value.name]));
    // An open enum may hold a number it does not name; the model keeps that number.
    return (value) => names.get(value as number) ?? value;
  }
  const numbers = new Map(desc.values.map((value) => [value.name, value.number]));
  return (value) => {
    const number = typeof value === "number" ? value : numbers.get(value as string);
    if (number === undefined) throw new Error(`${JSON.stringify(value)} is not a value of enum ${desc.typeName}`);
    return number;
  };
}

const timestampToNative: Convert = (value) => toJson(TimestampSchema, value as Timestamp);
const timestampFromNative: Convert = (value) => fromJson(TimestampSchema, value as string);

function message(desc: DescMessage, toNative: boolean, compiling: Compiling): Convert {
  if (desc.typeName === TIMESTAMP) return toNative ? timestampToNative : timestampFromNative;
  // One converter per message, however many fields refer to it (recordType refuses a message that reaches itself first).
  let convert = compiling.compiled.get(desc);
  if (!convert) compiling.compiled.set(desc, (convert = toNative ? messageToNative(desc, compiling) : messageFromNative(desc, compiling)));
  return convert;
}

function list(element: Convert | null): Convert {
  return element ? (value) => (value as unknown[]).map(element) : (value) => (value as unknown[]).slice();
}

function map(entry: Convert | null): Convert {
  return (value) => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) out[key] = entry ? entry(item) : item;
    return out;
  };
}

/** The conversion of one field's value (not of its presence), or null when the value is the same on both sides. */
function valueConverter(field: DescField, toNative: boolean, compiling: Compiling): Convert | null {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, field.longAsString, toNative);
    case "enum":
      return enumeration(field.enum, toNative);
    case "message":
      return message(field.message, toNative, compiling);
    case "list":
      return list(field.listKind === "scalar" ? scalar(field.scalar, field.longAsString, toNative) : field.listKind === "enum" ? enumeration(field.enum, toNative) : message(field.message, toNative, compiling));
    case "map":
      // protobuf-es keys a map by the key's string form, as the model does.
      return map(field.mapKind === "scalar" ? scalar(field.scalar, false, toNative) : field.mapKind === "enum" ? enumeration(field.enum, toNative) : message(field.message, toNative, compiling));
  }
}

interface FieldPlan {
  readonly wire: string;
  readonly local: string;
  readonly convert: Convert | null;
  /** A plain (not oneof, not optional) message field: unset reads as its default instance. */
  readonly message: DescMessage | null;
  readonly oneof: string | null;
}

function plans(desc: DescMessage, toNative: boolean, compiling: Compiling): FieldPlan[] {
  return desc.fields.map((field) => ({
    wire: compiling.wireName(field),
    local: field.localName,
    convert: valueConverter(field, toNative, compiling),
    message: field.fieldKind === "message" && field.oneof === undefined && !field.proto.proto3Optional ? field.message : null,
    oneof: field.oneof?.localName ?? null,
  }));
}

function messageToNative(desc: DescMessage, compiling: Compiling): Convert {
  const fields = plans(desc, true, compiling);
  return (value) => {
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      let v: unknown;
      if (f.oneof !== null) {
        const chosen = source[f.oneof] as { case: string | undefined; value: unknown };
        if (chosen.case !== f.local) continue;
        v = chosen.value;
      } else {
        v = source[f.local];
        if (v === undefined) {
          if (f.message === null) continue;
          // An unset nested message is its default instance (proto3), so every record has every field.
          v = create(f.message);
        }
      }
      out[f.wire] = f.convert ? f.convert(v) : v;
    }
    return out;
  };
}

function messageFromNative(desc: DescMessage, compiling: Compiling): Convert {
  const fields = plans(desc, false, compiling);
  return (value) => {
    const source = value as Record<string, unknown>;
    // An init object: create() makes the messages, as a hand-written `create(Schema, {...})` does.
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      const v = source[f.wire];
      if (v === undefined) continue;
      const converted = f.convert ? f.convert(v) : v;
      if (f.oneof !== null) out[f.oneof] = { case: f.local, value: converted };
      else out[f.local] = converted;
    }
    return out;
  };
}

/** protobuf-es record message -> native record, and back (an init shape for create()). */
export interface RecordConverter {
  toNative(message: unknown): unknown;
  fromNative(record: unknown): unknown;
}

/** For a bare-list dataset, the native record is the list of the message's one repeated field. */
export function recordConverter(record: DescMessage, bareList: boolean, wireName: WireName): RecordConverter {
  const compiling = () => ({ compiled: new Map<DescMessage, Convert>(), wireName });
  if (bareList) {
    const only = record.fields[0]!;
    const toNative = valueConverter(only, true, compiling())!;
    const fromNative = valueConverter(only, false, compiling())!;
    return { toNative: (message) => toNative((message as Record<string, unknown>)[only.localName]), fromNative: (row) => ({ [only.localName]: fromNative(row) }) };
  }
  return { toNative: message(record, true, compiling()), fromNative: message(record, false, compiling()) };
}
