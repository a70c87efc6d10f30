import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import type { FieldDescriptorProto } from "@bufbuild/protobuf/wkt";

// The shape of a record as every codec carries it, derived from the record message's protobuf-es
// descriptor (the one schema source): wire names (proto JSON names) in declaration order, with the
// proto type of each field. Codecs and verification walk this instead of guessing types from JS
// values (a JS number cannot tell an int32 from a double).
//
// The native model (src/datasets/convert.ts) holds: 64-bit integers as bigint, other numbers as
// number, bytes as Uint8Array, an enum as its value's name, a nested message as an object (its
// default instance when unset), a repeated field as an array, a map as an object keyed by the
// key's decimal or text form, a Timestamp as its RFC 3339 text; an `optional` field or a oneof
// member is absent when unset.

export type Scalar =
  | "string"
  | "bytes"
  | "bool"
  | "double"
  | "float"
  | "int32"
  | "sint32"
  | "sfixed32"
  | "uint32"
  | "fixed32"
  | "int64"
  | "sint64"
  | "sfixed64"
  | "uint64"
  | "fixed64";

export interface MessageType {
  readonly kind: "message";
  /** The message's full name (for error messages). */
  readonly name: string;
  readonly fields: ReadonlyArray<readonly [name: string, type: FieldType]>;
  /** Real oneofs, by their members' wire names: at most one of them is present. */
  readonly oneofs: ReadonlyArray<{ readonly name: string; readonly fields: readonly string[] }>;
}

export interface RepeatedType {
  readonly kind: "repeated";
  readonly of: FieldType;
}

export interface MapType {
  readonly kind: "map";
  readonly key: Scalar;
  readonly value: FieldType;
}

export interface EnumType {
  readonly kind: "enum";
  readonly name: string;
  /** The value names, each once (an alias adds no name the model can hold apart). */
  readonly values: readonly string[];
}

/** A field with presence (proto3 `optional`, a oneof member): absent from the record when unset. */
export interface OptionalType {
  readonly kind: "optional";
  readonly of: FieldType;
}

/** google.protobuf.Timestamp: its RFC 3339 text in the model, as the proto3 JSON mapping writes it. */
export interface TimestampType {
  readonly kind: "timestamp";
}

export type FieldType = Scalar | MessageType | RepeatedType | MapType | EnumType | OptionalType | TimestampType;

export const TIMESTAMP = "google.protobuf.Timestamp";

/**
 * A field's proto JSON name. protoc and buf always write json_name, but a descriptor without it
 * (protobuf-es then has an empty DescField.jsonName) means the default, lowerCamelCase.
 */
export const jsonName = (proto: FieldDescriptorProto) => (proto.jsonName !== "" ? proto.jsonName : protoCamelCase(proto.name));

/**
 * How self-describing payloads name a record's fields: each field's proto JSON name (the
 * built-ins, and a user dataset's default) or its .proto name (a user dataset's manifest says
 * `"fieldNames": "proto"`, proto/README.md).
 */
export type FieldNames = "json" | "proto";

/** A field's name on the wire of every self-describing codec, and the native model's key for it. */
export type WireName = (field: DescField) => string;

export const wireNames = (names: FieldNames): WireName => (names === "proto" ? (field) => field.name : (field) => jsonName(field.proto));

export function scalarName(type: ScalarType): Scalar {
  return ScalarType[type].toLowerCase() as Scalar;
}

function enumType(desc: DescEnum): EnumType {
  return { kind: "enum", name: desc.typeName, values: [...new Set(desc.values.map((value) => value.name))] };
}

function messageType(desc: DescMessage, within: readonly DescMessage[], wireName: WireName): FieldType {
  if (desc.typeName === TIMESTAMP) return { kind: "timestamp" };
  // An unset nested message is its default instance in the model, so a message that reaches
  // itself has no finite model.
  if (within.includes(desc)) throw new Error(`message ${desc.typeName} contains itself, which the record model cannot hold (an unset nested message is its default instance)`);
  const path = [...within, desc];
  return {
    kind: "message",
    name: desc.typeName,
    fields: desc.fields.map((field) => [wireName(field), fieldType(field, path, wireName)] as const),
    oneofs: desc.oneofs.map((oneof) => ({ name: oneof.name, fields: oneof.fields.map(wireName) })),
  };
}

function fieldType(field: DescField, within: readonly DescMessage[], wireName: WireName): FieldType {
  let type: FieldType;
  switch (field.fieldKind) {
    case "scalar":
      type = scalarName(field.scalar);
      break;
    case "enum":
      type = enumType(field.enum);
      break;
    case "message":
      type = messageType(field.message, within, wireName);
      break;
    case "list":
      type = { kind: "repeated", of: field.listKind === "scalar" ? scalarName(field.scalar) : field.listKind === "enum" ? enumType(field.enum) : messageType(field.message, within, wireName) };
      break;
    case "map":
      type = { kind: "map", key: scalarName(field.mapKey), value: field.mapKind === "scalar" ? scalarName(field.scalar) : field.mapKind === "enum" ? enumType(field.enum) : messageType(field.message, within, wireName) };
      break;
  }
  return field.oneof !== undefined || field.proto.proto3Optional ? { kind: "optional", of: type } : type;
}

/**
 * The record's type: a message, or for a bare-list dataset (the matrix row) the list of its one
 * repeated field, which is what schema-less codecs put on the wire for a record.
 */
export function recordType(record: DescMessage, bareList: boolean, wireName: WireName): FieldType {
  if (!bareList) return messageType(record, [], wireName);
  const only = record.fields[0];
  if (record.fields.length !== 1 || only?.fieldKind !== "list") throw new Error(`${record.typeName} is a bare_list dataset but does not have exactly one repeated field`);
  return fieldType(only, [record], wireName);
}

/** The word for a type in messages: "uint64", "map", "enum", ... */
export function kindOf(type: FieldType): string {
  return typeof type === "string" ? type : type.kind;
}

/**
 * Kinds that are not field types but features a codec may offer: a oneof's members written like
 * `optional` fields (proto/README.md), and well-known messages other than Timestamp carried as the
 * plain messages they are (flatbuffers' tables), which the schema-less codecs refuse.
 */
export const ONEOF = "oneof";
export const WELL_KNOWN_AS_MESSAGES = "google.protobuf.* as messages";

/**
 * The field types of the six built-in datasets, plus enums (by name) and proto3 `optional` fields
 * (left out when unset): what flatbuffers carries.
 */
export const BASIC_KINDS: ReadonlySet<string> = new Set(["string", "int32", "int64", "double", "bool", "message", "repeated", "enum", "optional", WELL_KNOWN_AS_MESSAGES]);

/** Every proto3 feature proto/README.md gives a payload rule in the schema-less codecs (json, msgpack, cbor, xml). */
export const SCHEMALESS_KINDS: ReadonlySet<string> = new Set([
  ...["string", "bytes", "bool", "double", "float", "int32", "sint32", "sfixed32", "uint32", "fixed32", "int64", "sint64", "sfixed64", "uint64", "fixed64"],
  ...["message", "repeated", "map", "enum", "optional", "timestamp", ONEOF],
]);

/** bson and ubjson have no unsigned 64-bit integer: a value above 2^63 - 1 has no faithful form there. */
export const WITHOUT_UINT64: ReadonlySet<string> = new Set([...SCHEMALESS_KINDS].filter((kind) => kind !== "uint64" && kind !== "fixed64"));

/** Well-known types other than Timestamp (Duration, Struct, wrappers, Any) have no payload rule. */
const isWellKnown = (type: MessageType) => type.name.startsWith("google.protobuf.");

/**
 * Refuses a record schema with a field type the codec does not offer (yet), naming the field, as
 * a plan names a refused cell: "ubjson: map field acme.shop.v1.Order.attributes is not offered".
 * Called in prepare(), outside any timed region; guessing would write something no other
 * language reads back. A oneof member is refused as a oneof (the model holds it as an optional
 * field, which says nothing of the other members) unless the codec offers "oneof"; a well-known
 * message by its full name (`google.protobuf.Duration field ...`).
 */
export function requireOffered(codec: string, record: FieldType, offered: ReadonlySet<string> = BASIC_KINDS): void {
  const refuse = (kind: string, path: string) => new Error(`${codec}: ${kind} field ${path} is not offered`);
  const walk = (type: FieldType, path: string): void => {
    const kind = kindOf(type);
    if (!offered.has(kind)) throw refuse(kind === "timestamp" ? TIMESTAMP : kind, path);
    if (typeof type === "string") return;
    if (type.kind === "repeated" || type.kind === "optional") walk(type.of, path);
    else if (type.kind === "map") {
      // A key is text on the wire of every codec with a map rule (a uint64 key too, in bson).
      walk(type.value, path);
    } else if (type.kind === "message") {
      if (isWellKnown(type) && path !== "of the record" && !offered.has(WELL_KNOWN_AS_MESSAGES)) throw refuse(type.name, path);
      const members = new Set(type.oneofs.flatMap((oneof) => oneof.fields));
      for (const [name, fieldType] of type.fields) {
        if (members.has(name) && !offered.has(ONEOF)) throw refuse(ONEOF, `${type.name}.${name}`);
        walk(fieldType, `${type.name}.${name}`);
      }
    }
  };
  walk(record, "of the record");
}

/** The fields of a message type, for walkers of the basic kinds (requireOffered refused the others first). */
export function messageFields(type: FieldType): MessageType["fields"] {
  if (typeof type === "object" && type.kind === "message") return type.fields;
  throw new Error(`a ${kindOf(type)} type where a walker of the basic field types expects a message`);
}

/** Every field name in the schema with the types it is declared with. */
export function fieldTypesByName(type: FieldType, into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  if (typeof type === "string" || type.kind === "enum" || type.kind === "timestamp") return into;
  if (type.kind === "repeated" || type.kind === "optional") return fieldTypesByName(type.of, into);
  if (type.kind === "map") return fieldTypesByName(type.value, into);
  for (const [name, fieldType] of type.fields) {
    let types = into.get(name);
    if (!types) into.set(name, (types = new Set()));
    // An optional field's values have the type it wraps, a repeated field's elements their type.
    types.add(kindOf(typeof fieldType === "object" && (fieldType.kind === "optional" || fieldType.kind === "repeated") ? fieldType.of : fieldType));
    fieldTypesByName(fieldType, into);
  }
  return into;
}

/** Kinds whose values a schema-less codec writes as numbers. */
export const NUMERIC: ReadonlySet<string> = new Set(["int32", "sint32", "sfixed32", "uint32", "fixed32", "int64", "sint64", "sfixed64", "uint64", "fixed64", "double", "float"]);

/** The 64-bit integer kinds: bigint in the model. */
export const LONGS: ReadonlySet<string> = new Set(["int64", "sint64", "sfixed64", "uint64", "fixed64"]);

/**
 * Names of the 64-bit integer fields, for codecs that find those values by key (the JSON
 * reviver), or null when a key cannot find them all or alone: a name that is a 64-bit integer in
 * one place and another number elsewhere, or a map of numbers (keyed by the map's keys, which may
 * be anything, a 64-bit field's name or an index included). A name shared with a field that is
 * never a number (MediaImage.size, an enum written by name, beside Media.size, an int64) is fine:
 * only numbers are revived.
 */
export function longFieldNames(type: FieldType): Set<string> | null {
  if (contains(type, (t) => typeof t === "object" && t.kind === "map" && typeof t.value === "string" && NUMERIC.has(t.value))) return null;
  const names = new Set<string>();
  for (const [name, types] of fieldTypesByName(type)) {
    const kinds = [...types];
    if (!kinds.some((kind) => LONGS.has(kind))) continue;
    if (kinds.some((kind) => !LONGS.has(kind) && NUMERIC.has(kind))) return null;
    names.add(name);
  }
  return names;
}

/** True when a type matching `test` appears anywhere under this type, itself included. */
export function contains(type: FieldType, test: (type: FieldType) => boolean): boolean {
  if (test(type)) return true;
  if (typeof type === "string") return false;
  if (type.kind === "repeated" || type.kind === "optional") return contains(type.of, test);
  if (type.kind === "map") return contains(type.value, test);
  if (type.kind === "message") return type.fields.some(([, fieldType]) => contains(fieldType, test));
  return false;
}

/** True when a scalar of one of `kinds` appears anywhere under this type. */
export const hasScalar = (type: FieldType, kinds: ReadonlySet<string>) => contains(type, (t) => typeof t === "string" && kinds.has(t));
