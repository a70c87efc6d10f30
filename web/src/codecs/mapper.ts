import type { FieldType, MapType } from "../datasets/schema";

// Encoders whose library writes a JS value by its JS type (js-bson, fast-xml-parser's builder)
// get the model objects with the values whose wire form the schema decides mapped first: bson's
// doubles wrapped in Double, xml's bytes as base64 text, ... A mapper is compiled once per dataset
// along the record schema and copies only the subtrees with such a value below; it is part of
// encoding from the model objects, so it runs inside the timed region.

export type Mapper = (value: unknown) => unknown;

export interface MapperRules {
  /** The mapping of a scalar, enum or Timestamp value, or null to pass it as it is. */
  leaf(type: FieldType): Mapper | null;
  /** A map's form, given its values' mapper; by default the same object with mapped values (null when they need none). */
  map?(type: MapType, value: Mapper | null): Mapper | null;
}

function objectOf(value: Mapper | null): Mapper | null {
  if (!value) return null;
  return (v) => {
    const source = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(source)) out[key] = value(source[key]);
    return out;
  };
}

/** A function giving the library the value with its leaves mapped, or null when nothing below needs mapping. */
export function modelMapper(type: FieldType, rules: MapperRules): Mapper | null {
  if (typeof type === "string") return rules.leaf(type);
  switch (type.kind) {
    case "enum":
    case "timestamp":
      return rules.leaf(type);
    case "optional":
      return modelMapper(type.of, rules);
    case "repeated": {
      const of = modelMapper(type.of, rules);
      return of ? (value) => (value as unknown[]).map(of) : null;
    }
    case "map": {
      const value = modelMapper(type.value, rules);
      return rules.map ? rules.map(type, value) : objectOf(value);
    }
    case "message": {
      const fields = type.fields.map(([name, fieldType]) => [name, modelMapper(fieldType, rules)] as const);
      if (fields.every(([, map]) => map === null)) return null;
      return (value) => {
        const source = value as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const [name, map] of fields) {
          const v = source[name];
          // An unset optional field or oneof member stays out (js-bson would write undefined as null).
          if (v !== undefined) out[name] = map ? map(v) : v;
        }
        return out;
      };
    }
  }
}
