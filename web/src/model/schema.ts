// The shape of a record as every codec carries it: wire names (proto JSON names) in proto field
// order, with the proto scalar type of each field. Codecs and verification walk this instead of
// guessing types from JS values (a JS number cannot tell an int32 from a double).

export type Scalar = "string" | "int32" | "int64" | "double" | "bool";

export interface MessageType {
  readonly kind: "message";
  readonly fields: ReadonlyArray<readonly [name: string, type: FieldType]>;
}

export interface RepeatedType {
  readonly kind: "repeated";
  readonly of: FieldType;
}

export type FieldType = Scalar | MessageType | RepeatedType;

/** A message whose fields are listed in proto field order (object key order is kept). */
export function message(fields: Record<string, FieldType>): MessageType {
  return { kind: "message", fields: Object.entries(fields) };
}

export function repeated(of: FieldType): RepeatedType {
  return { kind: "repeated", of };
}

/** Every field name in the schema with the scalar types it is declared with. */
export function fieldTypesByName(type: FieldType, into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  if (typeof type === "string") return into;
  if (type.kind === "repeated") return fieldTypesByName(type.of, into);
  for (const [name, fieldType] of type.fields) {
    let types = into.get(name);
    if (!types) into.set(name, (types = new Set()));
    types.add(typeof fieldType === "string" ? fieldType : fieldType.kind);
    fieldTypesByName(fieldType, into);
  }
  return into;
}

/**
 * Names of the int64 fields. Codecs that find int64 values by key (the JSON reviver) rely on a
 * name never being int64 in one place and something else in another; this checks that.
 */
export function int64FieldNames(type: FieldType): Set<string> {
  const names = new Set<string>();
  for (const [name, types] of fieldTypesByName(type)) {
    if (!types.has("int64")) continue;
    if (types.size > 1) throw new Error(`field name ${name} is int64 in one message and another type elsewhere`);
    names.add(name);
  }
  return names;
}

/** True when a double appears anywhere under this type. */
export function hasDouble(type: FieldType): boolean {
  if (typeof type === "string") return type === "double";
  if (type.kind === "repeated") return hasDouble(type.of);
  return type.fields.some(([, fieldType]) => hasDouble(fieldType));
}
