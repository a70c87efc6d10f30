import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { Dataset } from "../datasets/dataset";
import type { WireName } from "../datasets/schema";

// The flatbuffers codec's plan of a dataset (src/codecs/flatbuffers.ts), from the protobuf-es
// descriptors: every message a table, every field a slot in declaration order (as flatc 2.0.8
// --proto numbers them) with its kind and inline size. A proto enum is flatc's enum, an int32
// holding the value's number; a proto3 `optional` field is a plain flatc field (flatc 2.0.8
// makes `optional int32 bitrate` a `bitrate:int`), whose presence is its vtable entry.

export enum Kind {
  String,
  Int32,
  Int64,
  Double,
  Bool,
  /** flatc's enum for a proto enum: an int32 holding the value's number; the model holds its name. */
  Enum,
  Message,
}

/** Bytes of a field's inline value in its table (offsets for strings, vectors and tables). */
const INLINE: Readonly<Record<Kind, number>> = { [Kind.String]: 4, [Kind.Int32]: 4, [Kind.Int64]: 8, [Kind.Double]: 8, [Kind.Bool]: 1, [Kind.Enum]: 4, [Kind.Message]: 4 };

/** The proto default of a scalar kind (an enum's, its value 0's name, is in FieldPlan.zero). */
const DEFAULTS: Readonly<Record<Kind, unknown>> = { [Kind.String]: "", [Kind.Int32]: 0, [Kind.Int64]: 0n, [Kind.Double]: 0, [Kind.Bool]: false, [Kind.Enum]: null, [Kind.Message]: null };

/** An enum's names by number and numbers by name. A number no value names (an open enum's) stays a number in the model. */
export interface EnumPlan {
  readonly desc: DescEnum;
  readonly names: ReadonlyMap<number, string>;
  readonly numbers: ReadonlyMap<string, number>;
}

function enumPlan(desc: DescEnum): EnumPlan {
  return { desc, names: new Map(desc.values.map((value) => [value.number, value.name])), numbers: new Map(desc.values.map((value) => [value.name, value.number])) };
}

export interface FieldPlan {
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
  readonly enumeration: EnumPlan | null;
  /** A proto3 `optional` field: absent from the table when unset, written when set even to its default. */
  readonly optional: boolean;
  /** What an absent scalar (or each absent element kind) reads as: the proto default. */
  readonly zero: unknown;
  readonly proto: DescField;
}

export interface MessagePlan {
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

function fieldPlan(field: DescField, slot: number, plans: Map<DescMessage, MessagePlan>, wireName: WireName): FieldPlan {
  const name = wireName(field);
  const base = { name, slot, vtableOffset: 4 + 2 * slot, optional: field.proto.proto3Optional, proto: field };
  const scalar = (kind: Kind) => ({ ...base, kind, message: null, enumeration: null, zero: DEFAULTS[kind] });
  const enumeration = (desc: DescEnum) => {
    const plan = enumPlan(desc);
    return { ...base, kind: Kind.Enum, message: null, enumeration: plan, zero: plan.names.get(0) ?? 0 };
  };
  const message = (desc: DescMessage) => ({ ...base, kind: Kind.Message, message: messagePlan(desc, plans, wireName), enumeration: null, zero: null });
  switch (field.fieldKind) {
    case "scalar": {
      const kind = scalarKind(field, field.scalar);
      return { ...scalar(kind), list: false, size: INLINE[kind], elementSize: 0 };
    }
    case "enum":
      return { ...enumeration(field.enum), list: false, size: 4, elementSize: 0 };
    case "message":
      return { ...message(field.message), list: false, size: 4, elementSize: 0 };
    case "list":
      if (field.listKind === "scalar") {
        const kind = scalarKind(field, field.scalar);
        return { ...scalar(kind), list: true, size: 4, elementSize: INLINE[kind] };
      }
      if (field.listKind === "enum") return { ...enumeration(field.enum), list: true, size: 4, elementSize: 4 };
      return { ...message(field.message), list: true, size: 4, elementSize: 4 };
    case "map":
      throw new Error(`flatbuffers: field ${field.parent.typeName}.${field.name} is a map, which the flatbuffers codec has no rule for`);
  }
}

export function messagePlan(desc: DescMessage, plans: Map<DescMessage, MessagePlan>, wireName: WireName): MessagePlan {
  const known = plans.get(desc);
  if (known) return known;
  const plan: MessagePlan = { desc, fields: [], byName: new Map() };
  plans.set(desc, plan);
  // flatc 2.0.8 --proto numbers a table's fields in declaration order (not by field number);
  // protobuf-es lists `fields` in declaration order too.
  desc.fields.forEach((field, slot) => {
    const f = fieldPlan(field, slot, plans, wireName);
    plan.fields.push(f);
    plan.byName.set(f.name, f);
  });
  return plan;
}

/** An unset nested message is its default instance in the model: such a message must not contain itself. */
export function checkAcyclic(plan: MessagePlan, path: DescMessage[] = []): void {
  if (path.includes(plan.desc)) throw new Error(`flatbuffers: ${plan.desc.typeName} contains itself, and the model has no unset nested message`);
  for (const field of plan.fields) if (field.message && !field.list) checkAcyclic(field.message, [...path, plan.desc]);
}

/**
 * The record message and how the model holds a record: as an object keyed by wire names, or (a
 * `bare_list` dataset, the matrix row) as the list of the message's one repeated field, which
 * src/datasets/schema.ts has checked it has.
 */
export function recordShape(dataset: Dataset, plans: Map<DescMessage, MessagePlan>): { root: MessagePlan; record: MessagePlan; unwrapped: FieldPlan | null } {
  const root = messagePlan(dataset.message, plans, dataset.wireName);
  const list = root.fields[0];
  if (root.fields.length !== 1 || !list?.list || list.kind !== Kind.Message) {
    throw new Error(`flatbuffers: ${dataset.message.typeName} is not a list message with one repeated message field`);
  }
  const record = list.message!;
  return { root, record, unwrapped: dataset.bareList ? record.fields[0]! : null };
}
