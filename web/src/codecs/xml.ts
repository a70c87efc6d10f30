import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { XMLBuilder, XMLParser, XMLValidator } from "fast-xml-parser";
import type { Dataset } from "../model/dataset";
import { requireOffered, wireName } from "../model/schema";
import type { Codec, PreparedCodec } from "./codec";
import { libraryVersion } from "./versions";

// xml: fast-xml-parser. The wire form of proto/README.md: root <payload>, one <records> element
// per record, every field an element named by its proto JSON name in field order, repeated
// fields as repeated elements (none when empty), a matrix row as <records><cells>..</cells>..</records>.
// XMLBuilder writes the model objects as they are (their keys are the wire names, in field
// order); XMLParser reads every element's text as a string. Neither knows which elements repeat
// or which text is a number, so both are derived once in prepare() from the dataset's protobuf-es
// descriptors (the schema every codec shares): a reader per field kind turns the parser's
// object tree into model records (int32 and double as numbers, int64 as bigint, bools, strings
// as they are, one element of a repeated field as a one-entry list), and refuses anything else.
//
// fast-xml-parser's parser is lenient: it drops text after the root element, does not match
// closing tags with opening ones and ends an unclosed document silently. XMLValidator (the
// library's well-formedness check) runs first and refuses those; this file refuses what neither
// checks (a second root, a wrong root, attributes, unknown, missing or doubled elements, text
// where elements belong, characters XML 1.0 forbids, undefined entities and any DOCTYPE).

/** A problem found while binding the parsed tree to records; `path` is filled in on the way out. */
class Mismatch {
  constructor(
    readonly detail: string,
    public path = "",
  ) {}
}

/** `outer` followed by an inner path: "cars" + "[2]", "cars[2]" + "weight" -> "cars[2].weight". */
const within = (outer: string, path: string) => (path === "" || path.startsWith("[") ? `${outer}${path}` : `${outer}.${path}`);

const show = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);

// ---- entities ---------------------------------------------------------------------------------

// Written by hand (the library's hook for it is the entityDecoder option): its default decoder
// (@nodable/entities) leaves character references such as &#13; undecoded unless htmlEntities is
// on, which also admits HTML's named entities (&nbsp;), keeps undefined entities as literal text
// and drops references to forbidden characters silently. XML 1.0 has exactly the five predefined
// entities and references to legal characters; anything else is a well-formedness error. A
// DOCTYPE's entity declarations arrive here too and are refused: no DTD is processed, so no
// entity ever expands to more than one character.
const PREDEFINED = new Map([
  ["lt", "<"],
  ["gt", ">"],
  ["amp", "&"],
  ["apos", "'"],
  ["quot", '"'],
]);

const legalChar = (cp: number) => cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);

function characterReference(name: string): string {
  const hex = name.charCodeAt(1) === 0x78; // &#x...;
  const digits = name.slice(hex ? 2 : 1);
  const code = (hex ? /^[0-9a-fA-F]{1,6}$/ : /^[0-9]{1,7}$/).test(digits) ? parseInt(digits, hex ? 16 : 10) : -1;
  if (!legalChar(code)) throw new Error(`character reference &${name}; is not a legal XML character`);
  return String.fromCodePoint(code);
}

const strictEntities = {
  setExternalEntities(): void {},
  addInputEntities(): void {
    throw new Error("DOCTYPE declarations are not accepted (no DTD processing)");
  },
  reset(): void {},
  setXmlVersion(): void {},
  decode(text: string): string {
    let at = text.indexOf("&");
    if (at === -1) return text;
    let out = "";
    let from = 0;
    while (at !== -1) {
      const end = text.indexOf(";", at + 1);
      if (end === -1) throw new Error(`"&" without ";" in ${show(text)}`);
      const name = text.slice(at + 1, end);
      const replacement = name.charCodeAt(0) === 0x23 ? characterReference(name) : PREDEFINED.get(name);
      if (replacement === undefined) throw new Error(`undefined entity &${name}; (XML defines &lt; &gt; &amp; &apos; &quot; and character references; no DTD is read)`);
      out += text.slice(from, at) + replacement;
      from = end + 1;
      at = text.indexOf("&", from);
    }
    return out + text.slice(from);
  },
};

// Characters XML 1.0 does not allow anywhere in a document (raw; lone surrogates cannot get past
// the fatal UTF-8 decoder). Neither the validator nor the parser looks for them.
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

// Written by hand for the same reason: the builder's own escaping (processEntities) is a fixed
// list without the carriage return, which XML's line-end normalisation would turn into a line
// feed; proto/README.md has it written &#13;. Only &, <, > and CR need escaping in element text.
const ESCAPES = /[&<>\r]/g;
const escapeOne = (c: string) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;");
const escapeText = (_name: string, value: unknown): unknown => (typeof value === "string" && /[&<>\r]/.test(value) ? value.replace(ESCAPES, escapeOne) : value);

// ---- reading: the parser's tree -> model records -----------------------------------------------

type Reader = (value: unknown) => unknown;
type Element = Readonly<Record<string, unknown>>;

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
function children(value: unknown): Element {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Element;
  if (typeof value === "string") {
    if (blank(value)) return EMPTY;
    throw new Mismatch(`text ${show(value)} where elements are expected`);
  }
  throw notText(value);
}

/** After the known fields: an element child, attribute or text that is not part of the message. */
function unexpected(element: Element, known: ReadonlySet<string>): Mismatch | null {
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

interface FieldReader {
  readonly name: string;
  readonly repeated: boolean;
  readonly read: Reader;
}

function fieldReader(field: DescField, messages: Map<DescMessage, Reader>): FieldReader {
  const name = wireName(field);
  if (name in Object.prototype) throw new Error(`xml: field ${field.parent.typeName}.${field.name} is named like an Object.prototype property`);
  switch (field.fieldKind) {
    case "scalar":
      return { name, repeated: false, read: scalarReader(field, field.scalar) };
    case "message":
      return { name, repeated: false, read: messageReader(field.message, messages) };
    case "list":
      if (field.listKind === "scalar") return { name, repeated: true, read: listReader(scalarReader(field, field.scalar), field.scalar === ScalarType.STRING) };
      if (field.listKind === "message") return { name, repeated: true, read: listReader(messageReader(field.message, messages), false) };
      break;
  }
  throw new Error(`xml: field ${field.parent.typeName}.${field.name} is a ${field.fieldKind}, which the datasets' model does not have`);
}

/** A message element -> a model object with every field, in field order. */
function messageReader(message: DescMessage, messages: Map<DescMessage, Reader>): Reader {
  const known = messages.get(message);
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
          // A repeated field without elements is empty; every other field is always written.
          if (field.repeated) out[field.name] = [];
          else throw new Mismatch(`missing (no <${field.name}> element; every field is written, defaults included)`);
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
  messages.set(message, read);
  fields = message.fields.map((field) => fieldReader(field, messages));
  for (const field of fields) names.add(field.name);
  return read;
}

// ---- the codec ----------------------------------------------------------------------------------

/**
 * The record message and how the model holds a record: as an object keyed by wire names, or (a
 * `bare_list` dataset, the matrix row) as the list of the message's one repeated field, which
 * src/model/schema.ts has checked it has.
 */
function recordShape(dataset: Dataset): { message: DescMessage; name: string; unwrapped: string | null } {
  const records = dataset.message.fields;
  const list = records[0];
  if (records.length !== 1 || list?.fieldKind !== "list" || list.listKind !== "message") {
    throw new Error(`xml: ${dataset.message.typeName} is not a list message with one repeated message field`);
  }
  const message = list.message;
  return { message, name: wireName(list), unwrapped: dataset.bareList ? wireName(message.fields[0]!) : null };
}

const ROOT = "payload";

export const xmlCodec: Codec = {
  info: {
    id: "xml",
    mediaType: "application/xml",
    decodeModes: ["typed"],
    library: "fast-xml-parser",
    libraryVersion: libraryVersion("fast-xml-parser"),
    notes:
      `XMLBuilder (fast-xml-builder ${libraryVersion("fast-xml-builder")}, re-exported) writes the model objects, text escaped &amp; &lt; &gt; and CR as &#13;, no declaration; ` +
      "XMLValidator then XMLParser (parseTagValue: false, trimValues: false) read; element kinds, lists and number types come from the protobuf descriptors, " +
      "bound once per dataset; int64 as bigint; a strict entity decoder (the five XML entities and character references, no DTD); " +
      "missing, unknown or doubled elements, attributes and a wrong root are errors",
    timedRegions: [
      {
        operation: "encode",
        contains: ["model-conversion", "serialize", "utf8"],
        note: "XMLBuilder.build of the model objects as they are (the conversion only wraps records the model holds as plain lists, the matrix rows, as {cells: row}), then TextEncoder",
      },
      {
        operation: "typed",
        contains: ["utf8", "validation", "parse", "model-conversion"],
        note: "TextDecoder (fatal); XMLValidator.validate and a scan for characters XML forbids; XMLParser.parse into the library's object tree; the descriptor-built readers turn that tree into model records (numbers, bigints, bools, lists) and refuse missing, unknown or doubled elements",
      },
    ],
  },
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("xml", dataset.record);
    const { message, name, unwrapped } = recordShape(dataset);
    const readMessage = messageReader(message, new Map());
    const payloadFields = new Set([name]);
    const readRecord: Reader = unwrapped === null ? readMessage : (value) => (readMessage(value) as Record<string, unknown>)[unwrapped];
    const builder = new XMLBuilder({ processEntities: false, tagValueProcessor: escapeText });
    const parser = new XMLParser({
      parseTagValue: false,
      trimValues: false,
      // Attributes are read only to refuse them.
      ignoreAttributes: false,
      ignoreDeclaration: true,
      ignorePiTags: true,
      entityDecoder: strictEntities,
      // Callbacks get the path matcher itself, not a path string built for every element.
      jPath: false,
    });
    const encoder = new TextEncoder();
    // fatal: invalid UTF-8 is an error, not U+FFFD.
    const decoder = new TextDecoder("utf-8", { fatal: true });

    const parse = (text: string): Element => {
      const verdict = XMLValidator.validate(text);
      if (verdict !== true) {
        const { line, col, msg } = verdict.err;
        throw new Error(`malformed XML (line ${line}${col === undefined ? "" : `, column ${col}`}): ${msg}`);
      }
      const forbidden = FORBIDDEN.exec(text);
      if (forbidden) throw new Error(`malformed XML: character U+${forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")} at offset ${forbidden.index} is not allowed in XML 1.0`);
      try {
        return parser.parse(text) as Element;
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        const engine = error.constructor === Error ? "" : `fast-xml-parser failed with ${error.name}: `;
        throw new Error(`malformed XML: ${engine}${error.message}`, { cause: error });
      }
    };

    const readPayload = (document: Element): unknown[] => {
      const roots = Object.keys(document);
      if (roots[0] !== ROOT) throw new Error(roots.length === 0 ? "XML payload: no root element" : `XML payload: root element <${roots[0]}>, expected <${ROOT}>`);
      if (roots.length > 1) throw new Error(`XML payload: a second root element <${roots[1]}>`);
      const root = document[ROOT];
      if (Array.isArray(root)) throw new Error(`XML payload: ${root.length} root elements <${ROOT}>`);
      let element: Element;
      try {
        element = children(root);
        const extra = unexpected(element, payloadFields);
        if (extra) throw extra;
      } catch (error) {
        if (error instanceof Mismatch) throw new Error(`XML payload: <${ROOT}> has ${error.detail}`);
        throw error;
      }
      const value = element[name];
      const items = value === undefined ? [] : Array.isArray(value) ? value : [value];
      const records = new Array<unknown>(items.length);
      let i = 0;
      try {
        for (; i < items.length; i++) records[i] = readRecord(items[i]);
      } catch (error) {
        if (error instanceof Mismatch) throw new Error(error.path === "" ? `record ${i}: ${error.detail}` : `record ${i} field ${error.path}: ${error.detail}`);
        throw error;
      }
      return records;
    };

    return {
      encode: (records) => {
        const list = unwrapped === null ? records : records.map((row) => ({ [unwrapped]: row }));
        return encoder.encode(builder.build({ [ROOT]: { [name]: list } }));
      },
      decodeTyped: (payload) => readPayload(parse(decoder.decode(payload))),
    };
  },
};
