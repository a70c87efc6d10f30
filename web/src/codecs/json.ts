import type { Dataset } from "../model/dataset";
import { int64FieldNames, NUMERIC, requireOffered, type FieldType } from "../model/schema";
import { recordsOf, type Codec, type PreparedCodec } from "./codec";
import { treeToRecords } from "./tree";

// json: TextDecoder + JSON.parse to decode, JSON.stringify + TextEncoder to encode. JSON.parse's
// plain objects are the page's model objects (keys are the wire names), so typed decode needs no
// separate mapping; tree mode is JSON.parse without a reviver.
//
// int64 fields are bigint in the native model. JSON.stringify cannot write a bigint and
// JSON.parse reads numbers as doubles, which would round anything above 2^53. So, only for
// datasets that have int64 fields: the replacer writes a bigint as its exact digits
// (JSON.rawJSON), and the reviver reads those fields back from their source text
// (context.source). Datasets without int64 pay for neither.
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
 * Whether the reviver makes array elements bigints too: a reviver sees an element's index, not its
 * field, so it can where the record's only repeated numbers are int64s; a record with repeated
 * int64 and other repeated numbers is refused, naming both.
 */
function int64Elements(record: FieldType): boolean {
  const lists = repeatedNumbers(record, "of the record");
  const int64 = lists.get("int64");
  if (int64 === undefined) return false;
  const other = [...lists].find(([kind]) => kind !== "int64");
  if (other) throw new Error(`json: repeated int64 field ${int64} beside repeated ${other[0]} field ${other[1]} is not offered (its reviver cannot tell their elements apart)`);
  return true;
}

const INDEX = /^(?:0|[1-9][0-9]*)$/;

function int64Reviver(names: ReadonlySet<string>, elements: boolean): Reviver {
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

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? JSON.rawJSON(value.toString()) : value;
}

/** True where JSON.stringify writes raw JSON after a two-byte character correctly. */
function rawJsonKeepsTwoByteText(): boolean {
  return JSON.stringify(["\u674e", JSON.rawJSON("1")]) === '["\u674e",1]';
}

const MARKED = /"\\ud800(-?[0-9]+)"/g;
const markBigint = (_key: string, value: unknown): unknown => (typeof value === "bigint" ? `\ud800${value}` : value);

/** JSON.stringify of {records} with int64 bigints as exact numbers, by rawJSON where the engine gets it right. */
function int64Stringify(): (records: readonly unknown[]) => string {
  if (rawJsonKeepsTwoByteText()) return (records) => JSON.stringify({ records }, bigintReplacer);
  return (records) => JSON.stringify({ records }, markBigint).replace(MARKED, "$1");
}

export const jsonCodec: Codec = {
  info: {
    id: "json",
    mediaType: "application/json",
    decodeModes: ["typed", "tree"],
    library: "JSON (built in) + TextEncoder/TextDecoder",
    libraryVersion: "ECMAScript",
    notes:
      "int64 fields are exact: JSON.rawJSON in a replacer on encode, a reviver reading context.source on decode, " +
      "only for datasets with int64 fields; tree = JSON.parse without reviver",
    timedRegions: [
      { operation: "encode", contains: ["serialize", "utf8"], note: "JSON.stringify of the model objects (int64 bigints written exactly by a JSON.rawJSON replacer, datasets with int64 only), then TextEncoder" },
      {
        operation: "typed",
        contains: ["utf8", "parse", "model-conversion"],
        note: "TextDecoder (fatal) then JSON.parse, whose objects are the model objects; the conversion is the reviver making int64 fields exact bigints from their source text (datasets with int64 only)",
      },
      { operation: "tree", contains: ["utf8", "parse"], note: "TextDecoder (fatal) then JSON.parse without a reviver" },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("json", dataset.record);
    const int64Names = int64FieldNames(dataset.record);
    if (int64Names.size > 0) {
      const missing = sourceTextAccessMissing();
      if (missing) throw new Error(`this JavaScript engine cannot keep int64 values exact in JSON: ${missing}`);
    }
    const reviver = int64Names.size > 0 ? int64Reviver(int64Names, int64Elements(dataset.record)) : undefined;
    const stringify = int64Names.size > 0 ? int64Stringify() : (records: readonly unknown[]) => JSON.stringify({ records });
    // fatal: invalid UTF-8 is an error, not U+FFFD.
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const encoder = new TextEncoder();
    return {
      encode: (records) => encoder.encode(stringify(records)),
      decodeTyped: (payload) => recordsOf(reviver ? JSON.parse(decoder.decode(payload), reviver) : JSON.parse(decoder.decode(payload))),
      decodeTree: (payload) => JSON.parse(decoder.decode(payload)),
      treeToRecords: (tree) => treeToRecords(dataset.record, tree),
    };
  },
};
