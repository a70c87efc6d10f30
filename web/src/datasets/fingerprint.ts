import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import type { DescriptorProto, FieldDescriptorProto } from "@bufbuild/protobuf/wkt";
import { jsonName } from "./schema";

// The schema fingerprint a worker announces with each dataset (proto/README.md, "Datasets and
// their schema fingerprint"): a canonical text of the record message and every message and enum
// it reaches, hashed. Every language computes it from its own descriptors; control refuses a
// dataset whose fingerprint differs from its own.

const LABEL_REPEATED = 3;

/** A type the record reaches: a message (map entries included) or an enum. */
type Reached = { kind: "message"; lines: string[]; refs: Ref[] } | { kind: "enum"; lines: string[] };
type Ref = DescMessage | DescEnum | MapEntry;

/** A map field's entry message: protobuf-es keeps no DescMessage for it, only its DescriptorProto. */
interface MapEntry {
  readonly kind: "mapEntry";
  readonly typeName: string;
  readonly proto: DescriptorProto;
  readonly value: DescMessage | DescEnum | undefined;
}

function line(proto: FieldDescriptorProto, oneof: string): string {
  return [
    proto.number,
    proto.name,
    jsonName(proto),
    proto.type,
    proto.label === LABEL_REPEATED ? 1 : 0,
    proto.typeName.replace(/^\./, ""),
    proto.proto3Optional ? 1 : 0,
    oneof,
  ].join(" ");
}

function mapEntry(field: DescField & { fieldKind: "map" }): MapEntry {
  const typeName = field.proto.typeName.replace(/^\./, "");
  const name = typeName.slice(typeName.lastIndexOf(".") + 1);
  const proto = field.parent.proto.nestedType.find((nested) => nested.name === name);
  if (!proto) throw new Error(`fingerprint: map field ${field.parent.typeName}.${field.name} has no entry message ${typeName}`);
  return { kind: "mapEntry", typeName, proto, value: field.mapKind === "message" ? field.message : field.mapKind === "enum" ? field.enum : undefined };
}

function reachedBy(field: DescField): Ref | undefined {
  switch (field.fieldKind) {
    case "message":
      return field.message;
    case "enum":
      return field.enum;
    case "list":
      return field.listKind === "message" ? field.message : field.listKind === "enum" ? field.enum : undefined;
    case "map":
      return mapEntry(field);
    case "scalar":
      return undefined;
  }
}

function describe(ref: Ref): Reached {
  if (ref.kind === "enum") {
    const values = [...ref.values].sort((a, b) => a.number - b.number || compareBytes(a.name, b.name));
    return { kind: "enum", lines: values.map((value) => `${value.number} ${value.name}`) };
  }
  if (ref.kind === "mapEntry") {
    const fields = [...ref.proto.field].sort((a, b) => a.number - b.number);
    return { kind: "message", lines: fields.map((field) => line(field, "")), refs: ref.value ? [ref.value] : [] };
  }
  const fields = [...ref.fields].sort((a, b) => a.number - b.number);
  return {
    kind: "message",
    // DescField.oneof leaves out the synthetic oneofs of proto3 optional fields, as the text must.
    lines: fields.map((field) => line(field.proto, field.oneof?.name ?? "")),
    refs: fields.flatMap((field) => reachedBy(field) ?? []),
  };
}

const byteOrder = new TextEncoder();

function compareBytes(a: string, b: string): number {
  const x = byteOrder.encode(a);
  const y = byteOrder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** The canonical text of the record's schema that the fingerprint hashes. */
export function schemaText(record: DescMessage): string {
  const reached = new Map<string, Reached>();
  const todo: Ref[] = [record];
  for (let ref = todo.pop(); ref !== undefined; ref = todo.pop()) {
    if (reached.has(ref.typeName)) continue;
    const described = describe(ref);
    reached.set(ref.typeName, described);
    if (described.kind === "message") todo.push(...described.refs);
  }
  let text = "";
  for (const name of [...reached.keys()].sort(compareBytes)) {
    const type = reached.get(name)!;
    text += `${type.kind} ${name}\n`;
    for (const l of type.lines) text += `${l}\n`;
  }
  return text;
}

/** The first 16 lowercase hex digits of the SHA-256 of the schema text (WebCrypto: the page is always a secure context). */
export async function schemaFingerprint(record: DescMessage): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(schemaText(record))));
  return [...digest.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
