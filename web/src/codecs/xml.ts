import type { DescMessage } from "@bufbuild/protobuf";
import { XMLBuilder, XMLParser, XMLValidator } from "fast-xml-parser";
import type { Dataset } from "../datasets/dataset";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { requireOffered, SCHEMALESS_KINDS, type FieldType } from "../datasets/schema";
import type { Codec, PreparedCodec } from "./codec";
import { modelMapper, type Mapper } from "./mapper";
import { children, messageReader, Mismatch, unexpected, type Element, type Reader } from "./xml-read";
import { escapeText, FORBIDDEN, strictEntities } from "./xml-text";
import { catalogued } from "./catalogue";

// xml: fast-xml-parser. The wire form of proto/README.md: root <payload>, one <records> element
// per record, every field an element named by its proto JSON name in field order, repeated
// fields as repeated elements (none when empty), a matrix row as <records><cells>..</cells>..</records>.
// XMLBuilder writes the model objects as they are (their keys are the wire names, in field
// order); XMLParser reads every element's text as a string. Neither knows which elements repeat
// or which text is a number, so both are derived once in prepare() from the dataset's protobuf-es
// descriptors (the schema every codec shares): a reader per field kind turns the parser's
// object tree into model records (int32 and double as numbers, int64 as bigint, bools, strings
// and enum value names as they are, one element of a repeated field as a one-entry list, no
// element of a proto3 `optional` field as unset: no key), and refuses anything else
// (xml-read.ts; entities and escaping in xml-text.ts).
//
// The other proto3 features (proto/README.md): every integer kind in decimal (64-bit ones as
// bigint in the model), a float any decimal that reads back to its float32, bytes standard base64
// with padding, a Timestamp its RFC 3339 text, a map one element per entry named by the field
// holding <key> and <value> (none when empty), a oneof its one set member's element (two is an
// error). The builder gets bytes and maps in those forms from a mapper compiled per schema.
//
// fast-xml-parser's parser is lenient: it drops text after the root element, does not match
// closing tags with opening ones and ends an unclosed document silently. XMLValidator (the
// library's well-formedness check) runs first and refuses those; the codec refuses what neither
// checks (a second root, a wrong root, attributes, unknown, missing or doubled elements, text
// where elements belong, characters XML 1.0 forbids, undefined entities and any DOCTYPE).
// ---- the codec ----------------------------------------------------------------------------------

/**
 * The record message and how the model holds a record: as an object keyed by wire names, or (a
 * `bare_list` dataset, the matrix row) as the list of the message's one repeated field, which
 * src/datasets/schema.ts has checked it has.
 */
function recordShape(dataset: Dataset): { message: DescMessage; name: string; unwrapped: string | null } {
  const records = dataset.message.fields;
  const list = records[0];
  if (records.length !== 1 || list?.fieldKind !== "list" || list.listKind !== "message") {
    throw new Error(`xml: ${dataset.message.typeName} is not a list message with one repeated message field`);
  }
  const message = list.message;
  return { message, name: dataset.wireName(list), unwrapped: dataset.bareList ? dataset.wireName(message.fields[0]!) : null };
}

const ROOT = "payload";

const toBase64: Mapper = (value) => base64Encode(value as Uint8Array);

/** The model objects with bytes as base64 and maps as lists of {key, value} entries, or null when the schema has neither. */
function encodeMapper(type: FieldType): Mapper | null {
  return modelMapper(type, {
    leaf: (leaf) => (leaf === "bytes" ? toBase64 : null),
    map: (_map, value) => (entries) => {
      const map = entries as Record<string, unknown>;
      return Object.keys(map).map((key) => ({ key, value: value ? value(map[key]) : map[key] }));
    },
  });
}

export const xmlCodec: Codec = {
  info: catalogued("xml"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("xml", dataset.record, SCHEMALESS_KINDS);
    const map = encodeMapper(dataset.record);
    const { message, name, unwrapped } = recordShape(dataset);
    const readMessage = messageReader(message, { messages: new Map(), wireName: dataset.wireName });
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
        const list = unwrapped !== null ? records.map((row) => ({ [unwrapped]: row })) : map ? records.map(map) : records;
        return encoder.encode(builder.build({ [ROOT]: { [name]: list } }));
      },
      decodeTyped: (payload) => readPayload(parse(decoder.decode(payload))),
    };
  },
};
