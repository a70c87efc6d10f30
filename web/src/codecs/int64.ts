import { messageFields, type FieldType } from "../model/schema";

// Binary codecs with variable-width integers (UBJSON, MessagePack) write an int64 field in the
// smallest integer that holds its value, as Rust and Java do, and their JS libraries give those
// back as numbers; only 64-bit markers come back as bigint. The native model holds int64 as
// bigint, so typed decode turns the numbers in int64 positions into bigints (exact: such markers
// hold at most 32 bits). It is part of decoding into the native model, so it runs inside decode,
// and is null for datasets without int64 fields, which then pay nothing.

type Fix = (value: unknown) => unknown;

function fixer(type: FieldType): Fix | null {
  if (typeof type === "string") {
    if (type !== "int64") return null;
    // Anything else (a fraction, a string) is left alone for verification to name.
    return (value) => (typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value);
  }
  // An unset optional field has no key (the message's fixer skips it); enums are not int64.
  if (type.kind === "optional") return fixer(type.of);
  if (type.kind === "enum") return null;
  if (type.kind === "repeated") {
    const of = fixer(type.of);
    if (!of) return null;
    return (value) => {
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = of(value[i]);
      return value;
    };
  }
  const fields = messageFields(type).flatMap(([name, fieldType]) => {
    const fix = fixer(fieldType);
    return fix ? [[name, fix] as const] : [];
  });
  if (fields.length === 0) return null;
  return (value) => {
    if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      for (const [name, fix] of fields) if (name in record) record[name] = fix(record[name]);
    }
    return value;
  };
}

/** Turns int64 fields decoded as numbers into bigints, in place; null when the record has none. */
export function int64Widener(record: FieldType): ((records: unknown[]) => unknown[]) | null {
  const fix = fixer(record);
  if (!fix) return null;
  return (records) => {
    for (let i = 0; i < records.length; i++) records[i] = fix(records[i]);
    return records;
  };
}
