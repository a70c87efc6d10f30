import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { WireName } from "../model/schema";
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
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

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
      return (value) => {
        if (typeof value !== "string") throw notText(value);
        return value;
      };
    case ScalarType.BOOL:
      return (value) => {
        if (value === "true") return true;
        if (value === "false") return false;
        if (typeof value !== "string") throw notText(value);
        throw new Mismatch(`${show(value)} is not true or false`);
      };
    case ScalarType.INT32:
      return (value) => {
        if (typeof value !== "string") throw notText(value);
        const number = INTEGER.test(value) ? Number(value) : NaN;
        if (!(number >= -2147483648 && number <= 2147483647)) throw new Mismatch(`${show(value)} is not an int32`);
        return number;
      };
    case ScalarType.INT64:
      // The model holds int64 as bigint (exact beyond 2^53), as the other codecs do.
      return (value) => {
        if (typeof value !== "string") throw notText(value);
        const number = INTEGER.test(value) ? BigInt(value) : null;
        if (number === null || number < INT64_MIN || number > INT64_MAX) throw new Mismatch(`${show(value)} is not an int64`);
        return number;
      };
    case ScalarType.DOUBLE:
      return readDouble;
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

interface FieldReader {
  readonly name: string;
  readonly repeated: boolean;
  /** A proto3 `optional` field: no element when unset, and no key in the record then. */
  readonly optional: boolean;
  readonly read: Reader;
}

/** What building a record's readers shares: one reader per message, and the payload's field names. */
export interface Readers {
  readonly messages: Map<DescMessage, Reader>;
  readonly wireName: WireName;
}

// An element name of the ASCII kind (XML allows more; a custom json_name may be anything).
const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function valueReader(field: DescField, readers: Readers): Pick<FieldReader, "repeated" | "read"> {
  switch (field.fieldKind) {
    case "scalar":
      return { repeated: false, read: scalarReader(field, field.scalar) };
    case "enum":
      return { repeated: false, read: enumReader(field.enum) };
    case "message":
      return { repeated: false, read: messageReader(field.message, readers) };
    case "list":
      if (field.listKind === "scalar") return { repeated: true, read: listReader(scalarReader(field, field.scalar), field.scalar === ScalarType.STRING) };
      if (field.listKind === "enum") return { repeated: true, read: listReader(enumReader(field.enum), false) };
      return { repeated: true, read: listReader(messageReader(field.message, readers), false) };
    case "map":
      throw new Error(`xml: field ${field.parent.typeName}.${field.name} is a map, which the xml codec has no rule for`);
  }
}

function fieldReader(field: DescField, readers: Readers): FieldReader {
  const name = readers.wireName(field);
  if (name in Object.prototype) throw new Error(`xml: field ${field.parent.typeName}.${field.name} is named like an Object.prototype property`);
  if (!ELEMENT_NAME.test(name)) throw new Error(`xml: field ${field.parent.typeName}.${field.name} is named ${JSON.stringify(name)} on the wire, which is not an XML element name`);
  return { name, optional: field.proto.proto3Optional, ...valueReader(field, readers) };
}

/** A message element -> a model object with every field, in field order. */
export function messageReader(message: DescMessage, readers: Readers): Reader {
  const known = readers.messages.get(message);
  if (known) return known;
  let fields: FieldReader[] = [];
  const names = new Set<string>();
  const read: Reader = (value) => {
    const element = children(value);
    const out: Record<string, unknown> = {};
    let present = 0;
    let i = 0;
    try {
      for (; i < fields.length; i++) {
        const field = fields[i]!;
        const child = element[field.name];
        if (child === undefined) {
          // A repeated field without elements is empty, an optional one unset; every other field is always written.
          if (field.repeated) out[field.name] = [];
          else if (!field.optional) throw new Mismatch(`missing (no <${field.name}> element; every field is written, defaults included)`);
          continue;
        }
        present++;
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
  return read;
}
