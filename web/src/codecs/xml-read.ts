import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { TIMESTAMP, type WireName } from "../datasets/schema";
import { show } from "./xml-text";

// Reading for the xml codec: the parser's object tree -> model records, by readers built once per
// dataset from the protobuf-es descriptors (src/codecs/xml.ts says what each field kind becomes).

/** A problem found while binding the parsed tree to records; `path` is filled in on the way out. */
export class Mismatch {
  constructor(
    readonly detail: string,
    public path = "",
  ) {}
}

/** `outer` followed by an inner path: "cars" + "[2]", "cars[2]" + "weight" -> "cars[2].weight". */
const within = (outer: string, path: string) => (path === "" || path.startsWith("[") ? `${outer}${path}` : `${outer}.${path}`);

export type Reader = (value: unknown) => unknown;
export type Element = Readonly<Record<string, unknown>>;

const EMPTY: Element = Object.freeze(Object.create(null) as Element);
const blank = (text: string) => /^[ \t\n\r]*$/.test(text);

/** What an element holding `value` has where text was expected, in words. */
function notText(value: unknown): Mismatch {
  if (Array.isArray(value)) return new Mismatch(`${value.length} elements where one is expected (the field is not repeated)`);
  if (typeof value === "object" && value !== null) {
    const attribute = Object.keys(value).find((key) => key.startsWith("@_"));
    if (attribute !== undefined) return new Mismatch(`attribute ${attribute.slice(2)} (the wire form has no attributes)`);
    return new Mismatch(`child elements where text is expected`);
  }
  return new Mismatch(`unexpected value ${String(value)}`);
}

/** The children of a message element; an empty (or whitespace-only) element has none. */
export function children(value: unknown): Element {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Element;
  if (typeof value === "string") {
    if (blank(value)) return EMPTY;
    throw new Mismatch(`text ${show(value)} where elements are expected`);
  }
  throw notText(value);
}

/** After the known fields: an element child, attribute or text that is not part of the message. */
export function unexpected(element: Element, known: ReadonlySet<string>): Mismatch | null {
  for (const key of Object.keys(element)) {
    if (known.has(key)) continue;
    const value = element[key];
    if (key === "#text" && typeof value === "string" && blank(value)) continue;
    if (key === "#text") return new Mismatch(`text ${show(String(value))} between elements`);
    if (key.startsWith("@_")) return new Mismatch(`attribute ${key.slice(2)} (the wire form has no attributes)`);
    return new Mismatch(`unexpected element <${key}>`);
  }
  return null;
}

const INTEGER = /^[-+]?[0-9]+$/;
const DECIMAL = /^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An integer kind's name in messages and its range. */
type IntegerKind = readonly [name: string, min: bigint, max: bigint];
const INT32: IntegerKind = ["an int32", -(2n ** 31n), 2n ** 31n - 1n];
const UINT32: IntegerKind = ["a uint32", 0n, 2n ** 32n - 1n];
const INT64: IntegerKind = ["an int64", -(2n ** 63n), 2n ** 63n - 1n];
const UINT64: IntegerKind = ["a uint64", 0n, 2n ** 64n - 1n];

/** Decimal text in range: a number (32-bit kinds) or a bigint (64-bit kinds, as the model holds them). */
function integerReader([name, min, max]: IntegerKind, long: boolean): Reader {
  return (value) => {
    if (typeof value !== "string") throw notText(value);
    const number = INTEGER.test(value) ? BigInt(value) : null;
    if (number === null || number < min || number > max) throw new Mismatch(`${show(value)} is not ${name}`);
    return long ? number : Number(number);
  };
}

/** Standard base64 with padding (proto/README.md), as proto3 JSON writes bytes. */
function readBytes(value: unknown): Uint8Array {
  if (typeof value !== "string") throw notText(value);
  if (value.length % 4 !== 0 || !BASE64.test(value)) throw new Mismatch(`${show(value)} is not base64 with padding`);
  return base64Decode(value);
}

const readText: Reader = (value) => {
  if (typeof value !== "string") throw notText(value);
  return value;
};

/** Doubles in any form that reads back to the same double (proto/README.md), plus what Rust and Java write for infinities and NaN. */
function readDouble(value: unknown): number {
  if (typeof value !== "string") throw notText(value);
  if (DECIMAL.test(value)) return Number(value);
  if (/^[-+]?(?:inf|infinity)$/i.test(value)) return value.startsWith("-") ? -Infinity : Infinity;
  if (/^[-+]?nan$/i.test(value)) return NaN;
  throw new Mismatch(`${show(value)} is not a double`);
}

function scalarReader(field: DescField, type: ScalarType): Reader {
  switch (type) {
    case ScalarType.STRING:
      return readText;
    case ScalarType.BOOL:
      return (value) => {
        if (value === "true") return true;
        if (value === "false") return false;
        if (typeof value !== "string") throw notText(value);
        throw new Mismatch(`${show(value)} is not true or false`);
      };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return integerReader(INT32, false);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return integerReader(UINT32, false);
    // The model holds 64-bit integers as bigint (exact beyond 2^53), as the other codecs do.
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return integerReader(INT64, true);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return integerReader(UINT64, true);
    // A float: any decimal that reads back to its float32; verification compares as float32.
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return readDouble;
    case ScalarType.BYTES:
      return readBytes;
    default:
      throw new Error(`xml: field ${field.parent.typeName}.${field.name} has proto type ${ScalarType[type]}, which the model has no type for`);
  }
}

/** A repeated field: its elements arrive as an array, one element as the value itself, none as nothing. */
function listReader(read: Reader, strings: boolean): Reader {
  if (strings) {
    // The parser's array of strings is the model's list (no copy).
    return (value) => {
      if (typeof value === "string") return [value];
      if (!Array.isArray(value)) throw Object.assign(notText(value), { path: "[0]" });
      for (let i = 0; i < value.length; i++) if (typeof value[i] !== "string") throw Object.assign(notText(value[i]), { path: `[${i}]` });
      return value;
    };
  }
  return (value) => {
    const items = Array.isArray(value) ? value : [value];
    const out = new Array<unknown>(items.length);
    let i = 0;
    try {
      for (; i < items.length; i++) out[i] = read(items[i]);
    } catch (error) {
      if (error instanceof Mismatch) error.path = within(`[${i}]`, error.path);
      throw error;
    }
    return out;
  };
}

/** An enum's text is its value's name (proto/README.md); a number no value names (an open enum's) is that number. */
function enumReader(desc: DescEnum): Reader {
  const names = new Set(desc.values.map((value) => value.name));
  return (value) => {
    if (typeof value !== "string") throw notText(value);
    if (names.has(value)) return value;
    const number = INTEGER.test(value) ? Number(value) : NaN;
    if (number >= -2147483648 && number <= 2147483647 && !desc.values.some((known) => known.number === number)) return number;
    throw new Mismatch(`${show(value)} is not a value of enum ${desc.typeName}`);
  };
}

/**
 * A map: one element per entry, named by the field, holding <key> and <value> (proto/README.md);
 * none when empty. The model keys it by the key's text (integers in decimal, bools true/false).
 */
function mapReader(field: DescField & { fieldKind: "map" }, readers: Readers): Reader {
  const readKey = scalarReader(field, field.mapKey);
  const readValue = field.mapKind === "scalar" ? scalarReader(field, field.scalar) : field.mapKind === "enum" ? enumReader(field.enum) : messageValueReader(field.message, readers);
  const parts = new Set(["key", "value"]);
  return (value) => {
    const items = Array.isArray(value) ? value : [value];
    const out: Record<string, unknown> = {};
    let i = 0;
    let part = "";
    try {
      for (; i < items.length; i++) {
        const entry = children(items[i]);
        part = "";
        const extra = unexpected(entry, parts);
        if (extra) throw extra;
        if (entry.key === undefined || entry.value === undefined) throw new Mismatch(`missing (no <${entry.key === undefined ? "key" : "value"}> element in a map entry)`);
        part = "key";
        const key = String(readKey(entry.key));
        part = "value";
        // A key "__proto__" is data, not the object's prototype.
        Object.defineProperty(out, key, { value: readValue(entry.value), enumerable: true, writable: true, configurable: true });
      }
    } catch (error) {
      if (error instanceof Mismatch) error.path = within(`[${i}]${part === "" ? "" : `.${part}`}`, error.path);
      throw error;
    }
    return out;
  };
}

/** A message-typed value: a Timestamp is its RFC 3339 text (as the model holds it), any other message its element. */
function messageValueReader(message: DescMessage, readers: Readers): Reader {
  return message.typeName === TIMESTAMP ? readText : messageReader(message, readers);
}

interface FieldReader {
  readonly name: string;
  /** A repeated field or a map: its elements repeated, none when empty. */
  readonly repeated: boolean;
  readonly map: boolean;
  /** A proto3 `optional` field or a oneof member: no element when unset, and no key in the record then. */
  readonly optional: boolean;
  /** The real oneof holding the field, if any: two of its members present is an error. */
  readonly oneof: string | null;
  readonly read: Reader;
}

/** What building a record's readers shares: one reader per message, and the payload's field names. */
export interface Readers {
  readonly messages: Map<DescMessage, Reader>;
  readonly wireName: WireName;
}

// An element name of the ASCII kind (XML allows more; a custom json_name may be anything).
const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function valueReader(field: DescField, readers: Readers): Pick<FieldReader, "repeated" | "read"> & { map?: boolean } {
  switch (field.fieldKind) {
    case "scalar":
      return { repeated: false, read: scalarReader(field, field.scalar) };
    case "enum":
      return { repeated: false, read: enumReader(field.enum) };
    case "message":
      return { repeated: false, read: messageValueReader(field.message, readers) };
    case "list":
      if (field.listKind === "scalar") return { repeated: true, read: listReader(scalarReader(field, field.scalar), field.scalar === ScalarType.STRING) };
      if (field.listKind === "enum") return { repeated: true, read: listReader(enumReader(field.enum), false) };
      return { repeated: true, read: listReader(messageValueReader(field.message, readers), false) };
    case "map":
      return { repeated: true, map: true, read: mapReader(field, readers) };
  }
}

function fieldReader(field: DescField, readers: Readers): FieldReader {
  const name = readers.wireName(field);
  if (name in Object.prototype) throw new Error(`xml: field ${field.parent.typeName}.${field.name} is named like an Object.prototype property`);
  if (!ELEMENT_NAME.test(name)) throw new Error(`xml: field ${field.parent.typeName}.${field.name} is named ${JSON.stringify(name)} on the wire, which is not an XML element name`);
  return { name, optional: field.proto.proto3Optional || field.oneof !== undefined, oneof: field.oneof?.name ?? null, map: false, ...valueReader(field, readers) };
}

/** A message element -> a model object with every field, in field order. */
export function messageReader(message: DescMessage, readers: Readers): Reader {
  const known = readers.messages.get(message);
  if (known) return known;
  let fields: FieldReader[] = [];
  const names = new Set<string>();
  let oneofs = false;
  const read: Reader = (value) => {
    const element = children(value);
    const out: Record<string, unknown> = {};
    let present = 0;
    let i = 0;
    let chosen: Record<string, string> | null = oneofs ? {} : null;
    try {
      for (; i < fields.length; i++) {
        const field = fields[i]!;
        const child = element[field.name];
        if (child === undefined) {
          // A repeated field or map without elements is empty, an optional one unset; every other field is always written.
          if (field.repeated) out[field.name] = field.map ? {} : [];
          else if (!field.optional) throw new Mismatch(`missing (no <${field.name}> element; every field is written, defaults included)`);
          continue;
        }
        present++;
        if (field.oneof !== null && chosen !== null) {
          const other = chosen[field.oneof];
          if (other !== undefined) throw new Mismatch(`a second member of oneof ${field.oneof} (<${other}> is there too)`);
          chosen[field.oneof] = field.name;
        }
        out[field.name] = field.read(child);
      }
    } catch (error) {
      if (error instanceof Mismatch) error.path = within(fields[i]!.name, error.path);
      throw error;
    }
    let count = 0;
    for (const _ in element) count++;
    if (count !== present) {
      const extra = unexpected(element, names);
      if (extra) throw extra;
    }
    return out;
  };
  readers.messages.set(message, read);
  fields = message.fields.map((field) => fieldReader(field, readers));
  for (const field of fields) names.add(field.name);
  oneofs = fields.some((field) => field.oneof !== null);
  return read;
}
