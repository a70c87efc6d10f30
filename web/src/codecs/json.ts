import { base64Encode } from "@bufbuild/protobuf/wire";
import type { Dataset } from "../datasets/dataset";
import { hasScalar, LONGS, longFieldNames, NUMERIC, requireOffered, SCHEMALESS_KINDS, type FieldType } from "../datasets/schema";
import { binder, BOUND_SCALARS } from "./bind";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { treeToRecords } from "./tree";
import { catalogued } from "./catalogue";

// json: TextDecoder + JSON.parse to decode, JSON.stringify + TextEncoder to encode. JSON.parse's
// plain objects are the page's model objects (keys are the wire names), so typed decode needs no
// separate mapping; tree mode is JSON.parse without a reviver.
//
// 64-bit integer fields (int64, uint64 and their zigzag and fixed forms) are bigint in the native
// model. JSON.stringify cannot write a bigint and JSON.parse reads numbers as doubles, which would
// round anything above 2^53. So, only for schemas that have such fields: the replacer writes a
// bigint as its exact digits (JSON.rawJSON: a number however large, 18446744073709551615
// included), and the reviver reads those fields back from their source text (context.source):
// found by their names where names tell them apart, else every integer beyond 2^53 is read exact
// and bind.ts gives each field its type. Tree mode reads every integer beyond 2^53 exactly too,
// as Jackson's and serde_json's trees do. Schemas without 64-bit integers pay for neither.
//
// The other proto3 features (proto/README.md): bytes are standard base64 text with padding
// (written by the replacer, read by bind.ts), a float any decimal that reads back to its float32
// (the model's float32 value, written exactly), a map an object keyed by the key's text, a
// Timestamp its RFC 3339 string, a oneof its one set member (two present is an error).
//
// Node 20's V8 (tests, `npm run vectors`) garbles JSON.rawJSON output once the text holds a
// character beyond Latin-1 ("李"): it copies the raw bytes as one-byte characters into the
// two-byte buffer. Where that is so (checked once), the replacer writes a bigint as a string
// "\ud800<digits>" and the text is then unquoted: a record's strings come from protobuf's valid
// UTF-8, which has no lone surrogate, so nothing else is written that way. Chromium has no such bug.

type Reviver = (key: string, value: unknown, context: JSONReviverContext) => unknown;

export function sourceTextAccessMissing(): string | null {
  if (typeof JSON.rawJSON !== "function") return "JSON.rawJSON is missing";
  let source: string | undefined;
  JSON.parse("[1]", (key, value, context) => ((source ??= context?.source), value));
  return source === "1" ? null : "JSON.parse gives revivers no source text";
}

/** The element kinds of the record's repeated numeric fields, each with one such field's path. */
function repeatedNumbers(type: FieldType, path: string, into = new Map<string, string>()): Map<string, string> {
  if (typeof type === "string" || type.kind === "enum" || type.kind === "timestamp") return into;
  if (type.kind === "optional") return repeatedNumbers(type.of, path, into);
  if (type.kind === "map") return repeatedNumbers(type.value, path, into);
  if (type.kind === "repeated") {
    if (typeof type.of === "string" && NUMERIC.has(type.of)) {
      if (!into.has(type.of)) into.set(type.of, path);
      return into;
    }
    return repeatedNumbers(type.of, path, into);
  }
  for (const [name, fieldType] of type.fields) repeatedNumbers(fieldType, `${type.name}.${name}`, into);
  return into;
}

/**
 * Whether a reviver by names makes array elements bigints too ("elements"), needs not ("fields"),
 * or cannot: a reviver sees an element's index, not its field, so it can only where the record's
 * repeated numbers are all 64-bit integers.
 */
function elementsByName(record: FieldType): "fields" | "elements" | null {
  const kinds = [...repeatedNumbers(record, "of the record").keys()];
  if (!kinds.some((kind) => LONGS.has(kind))) return "fields";
  return kinds.every((kind) => LONGS.has(kind)) ? "elements" : null;
}

const INDEX = /^(?:0|[1-9][0-9]*)$/;
const INTEGER = /^-?[0-9]+$/;

/** Every integer beyond 2^53 as an exact bigint, from its source text; a fraction or exponent stays a number. */
const exactIntegers: Reviver = (_key, value, context) => (typeof value === "number" && !Number.isSafeInteger(value) && context.source !== undefined && INTEGER.test(context.source) ? BigInt(context.source) : value);

function longReviver(names: ReadonlySet<string>, elements: boolean): Reviver {
  const only = names.size === 1 ? [...names][0] : undefined;
  const toBigInt = (key: string, value: unknown, context: JSONReviverContext): unknown => {
    // A number whose digits are not an integer (e.g. 1.5, 1e3) is left as a number; verification
    // then reports it as a wrong type instead of silently converting it.
    if (typeof value !== "number" || context.source === undefined) return value;
    try {
      return BigInt(context.source);
    } catch {
      return value;
    }
  };
  if (elements) return (key, value, context) => (typeof value === "number" && (names.has(key) || INDEX.test(key)) ? toBigInt(key, value, context) : value);
  return only !== undefined
    ? (key, value, context) => (key === only ? toBigInt(key, value, context) : value)
    : (key, value, context) => (names.has(key) ? toBigInt(key, value, context) : value);
}

/** A replacer writing bigints by `bigint` and, for a schema with bytes, bytes as base64 text (a schema without pays no check). */
function replacer(bigint: (value: bigint) => unknown, bytes: boolean): (key: string, value: unknown) => unknown {
  if (!bytes) return (_key, value) => (typeof value === "bigint" ? bigint(value) : value);
  return (_key, value) => (typeof value === "bigint" ? bigint(value) : value instanceof Uint8Array ? base64Encode(value) : value);
}

/** True where JSON.stringify writes raw JSON after a two-byte character correctly. */
function rawJsonKeepsTwoByteText(): boolean {
  return JSON.stringify(["\u674e", JSON.rawJSON("1")]) === '["\u674e",1]';
}

const MARKED = /"\\ud800(-?[0-9]+)"/g;

/** JSON.stringify of {records} with bigints as exact numbers (by rawJSON where the engine gets it right) and bytes as base64. */
function replacingStringify(bytes: boolean): (records: readonly unknown[]) => string {
  if (rawJsonKeepsTwoByteText()) {
    const exact = replacer((value) => JSON.rawJSON(value.toString()), bytes);
    return (records) => JSON.stringify({ records }, exact);
  }
  const marked = replacer((value) => `\ud800${value}`, bytes);
  return (records) => JSON.stringify({ records }, marked).replace(MARKED, "$1");
}

export const jsonCodec: Codec = {
  info: catalogued("json"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("json", dataset.record, SCHEMALESS_KINDS);
    const longs = hasScalar(dataset.record, LONGS);
    const bytes = hasScalar(dataset.record, new Set(["bytes"]));
    if (longs) {
      const missing = sourceTextAccessMissing();
      if (missing) throw new Error(`this JavaScript engine cannot keep 64-bit integers exact in JSON: ${missing}`);
    }
    // 64-bit fields found by name where names and elements tell them apart (the built-ins), else every big integer read exactly and bound by the schema.
    const names = longs ? longFieldNames(dataset.record) : null;
    const elements = names ? elementsByName(dataset.record) : null;
    const byName = names !== null && elements !== null;
    const reviver = !longs ? undefined : byName ? longReviver(names, elements === "elements") : exactIntegers;
    const bind = binder(dataset.record, { scalars: byName || !longs ? new Set(["bytes"]) : BOUND_SCALARS, typed: true });
    const stringify = longs || bytes ? replacingStringify(bytes) : (records: readonly unknown[]) => JSON.stringify({ records });
    // fatal: invalid UTF-8 is an error, not U+FFFD.
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const encoder = new TextEncoder();
    const parse = (payload: Uint8Array) => recordsOf(reviver ? JSON.parse(decoder.decode(payload), reviver) : JSON.parse(decoder.decode(payload)));
    return {
      encode: (records) => encoder.encode(stringify(records)),
      decodeTyped: bind ? (payload) => bind(parse(payload)) : parse,
      decodeTree: longs ? (payload) => JSON.parse(decoder.decode(payload), exactIntegers) : (payload) => JSON.parse(decoder.decode(payload)),
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
