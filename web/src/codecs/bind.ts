import { base64Decode } from "@bufbuild/protobuf/wire";
import { LONGS, NUMERIC, type FieldType, type MessageType } from "../datasets/schema";

// Decoded values -> the native model (src/datasets/schema.ts), along the record schema. A schema-less
// library gives most values as the model holds them; what it cannot know from the bytes is bound
// here, in place, by a pass compiled once per dataset and codec:
// - 64-bit integers another writer put in narrower integers come back as numbers (exact: such
//   markers hold at most 53 bits), and bson's tree gives a Long beyond 2^53: made bigints;
// - other numbers that came as bigint or Long (bson writes uint32 as int64; json's generic reviver
//   reads every integer beyond 2^53 exactly) become numbers;
// - bytes given as base64 text (json), a js-bson Binary (its tree) or a list of byte values
//   (ubjson's unoptimised array) become a Uint8Array;
// - in a typed decode, two members of one oneof present is an error (proto/README.md).
// A value of the wrong form is left for verification to name. The pass exists only when a kind
// the codec names is in the schema (or a oneof, for a typed decode), so the built-ins pay nothing
// new.

type Fix = (value: unknown) => unknown;

export interface BindRules {
  /** Scalar kinds whose values this decode must bind (the others arrive as the model holds them). */
  readonly scalars: ReadonlySet<string>;
  /** A typed decode: a oneof with two members present, or bytes that are not base64, are errors. */
  readonly typed: boolean;
}

/** Every scalar kind a pass can bind: tree verification binds them all. */
export const BOUND_SCALARS: ReadonlySet<string> = new Set([...NUMERIC, "bytes"]);

// ±2^53 itself is exact too: js-bson's tree gives a number up to there, a Long beyond.
const toLong: Fix = (value) => {
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) <= 2 ** 53 ? BigInt(value) : value;
  const long = value as { toBigInt?: () => bigint } | null;
  return typeof long === "object" && long !== null && typeof long.toBigInt === "function" ? long.toBigInt() : value;
};

const toNumber: Fix = (value) => {
  if (typeof value === "bigint") return Number(value);
  const long = value as { toNumber?: () => number } | null;
  return typeof long === "object" && long !== null && typeof long.toNumber === "function" ? long.toNumber() : value;
};

const isByte = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 255;

function toBytes(typed: boolean): Fix {
  return (value) => {
    if (value instanceof Uint8Array) return value;
    if (typeof value === "string") {
      try {
        return base64Decode(value);
      } catch (error) {
        if (typed) throw new Error(`bytes ${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)} are not base64`, { cause: error });
        return value;
      }
    }
    const binary = value as { _bsontype?: string; value?: () => Uint8Array } | null;
    if (typeof binary === "object" && binary !== null && binary._bsontype === "Binary" && typeof binary.value === "function") return binary.value();
    if (Array.isArray(value) && value.every(isByte)) return Uint8Array.from(value as number[]);
    return value;
  };
}

function scalarFix(kind: string, rules: BindRules): Fix | null {
  if (!rules.scalars.has(kind)) return null;
  if (LONGS.has(kind)) return toLong;
  if (kind === "bytes") return toBytes(rules.typed);
  return NUMERIC.has(kind) ? toNumber : null;
}

function oneofCheck(type: MessageType): ((record: Record<string, unknown>) => void) | null {
  if (type.oneofs.length === 0) return null;
  return (record) => {
    for (const oneof of type.oneofs) {
      let present: string | undefined;
      for (const name of oneof.fields) {
        if (record[name] === undefined) continue;
        if (present !== undefined) throw new Error(`oneof ${type.name}.${oneof.name} has two members present, ${present} and ${name}`);
        present = name;
      }
    }
  };
}

function fixer(type: FieldType, rules: BindRules): Fix | null {
  if (typeof type === "string") return scalarFix(type, rules);
  switch (type.kind) {
    case "enum":
    case "timestamp":
      return null;
    // An unset optional field has no key (its message skips it).
    case "optional":
      return fixer(type.of, rules);
    case "repeated": {
      const of = fixer(type.of, rules);
      if (!of) return null;
      return (value) => {
        if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = of(value[i]);
        return value;
      };
    }
    case "map": {
      const of = fixer(type.value, rules);
      if (!of) return null;
      return (value) => {
        if (typeof value === "object" && value !== null) {
          const map = value as Record<string, unknown>;
          for (const key of Object.keys(map)) map[key] = of(map[key]);
        }
        return value;
      };
    }
    case "message": {
      const fields = type.fields.flatMap(([name, fieldType]) => {
        const fix = fixer(fieldType, rules);
        return fix ? [[name, fix] as const] : [];
      });
      const check = rules.typed ? oneofCheck(type) : null;
      if (fields.length === 0 && !check) return null;
      return (value) => {
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          const record = value as Record<string, unknown>;
          for (const [name, fix] of fields) if (name in record) record[name] = fix(record[name]);
          check?.(record);
        }
        return value;
      };
    }
  }
}

/** Binds decoded records to the model in place; null when this schema needs nothing under these rules. */
export function binder(record: FieldType, rules: BindRules): ((records: unknown[]) => unknown[]) | null {
  const fix = fixer(record, rules);
  if (!fix) return null;
  return (records) => {
    for (let i = 0; i < records.length; i++) records[i] = fix(records[i]);
    return records;
  };
}

/** Binds a typed decode's records when the schema needs it, else hands them on as they are. */
export function typedBinding(record: FieldType, scalars: ReadonlySet<string>): (records: unknown[]) => unknown[] {
  return binder(record, { scalars, typed: true }) ?? ((records) => records);
}
