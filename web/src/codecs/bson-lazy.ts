import { onDemand } from "bson";

// Lazy BSON reading with js-bson's onDemand.parseToElements (experimental in js-bson 7, the
// parser the MongoDB Node driver uses for raw server replies): it walks a document's element
// table (type, name and value offsets) without materialising values, like Rust's
// bson::RawDocument or Java's RawBsonDocument. Only the one field read per record is decoded.

const { parseToElements, ByteUtils, NumberUtils } = onDemand;

const STRING = 0x02;
const DOCUMENT = 0x03;
const ARRAY = 0x04;
const DOUBLE = 0x01;
const BOOLEAN = 0x08;
const INT32 = 0x10;
const INT64 = 0x12;

type Element = [type: number, nameOffset: number, nameLength: number, offset: number, length: number];

function nameEquals(bytes: Uint8Array, element: Element, name: Uint8Array): boolean {
  if (element[2] !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[element[1] + i] !== name[i]) return false;
  return true;
}

function find(bytes: Uint8Array, documentOffset: number, name: Uint8Array): Element | undefined {
  for (const element of parseToElements(bytes, documentOffset) as Iterable<Element>) {
    if (nameEquals(bytes, element, name)) return element;
  }
  return undefined;
}

/** One scalar element's value as a string; only this value is decoded. */
function scalarText(bytes: Uint8Array, [type, , , offset, length]: Element, field: string): string {
  switch (type) {
    case STRING:
      // int32 length, the UTF-8 bytes, a NUL; fatal: invalid UTF-8 is an error.
      return ByteUtils.toUTF8(bytes, offset + 4, offset + length - 1, true);
    case INT32:
      return String(NumberUtils.getInt32LE(bytes, offset));
    case INT64:
      return String(NumberUtils.getBigInt64LE(bytes, offset));
    case DOUBLE:
      return String(NumberUtils.getFloat64LE(bytes, offset));
    case BOOLEAN:
      return String(bytes[offset] === 1);
    default:
      throw new Error(`field ${JSON.stringify(field)} has BSON type 0x${type.toString(16)}, which a lazy read does not turn into text`);
  }
}

const encoder = new TextEncoder();
const RECORDS = encoder.encode("records");

/** Reads `field` of every record of {"records": [...]} (a matrix row's cell, by index). */
export function readLazyBson(payload: Uint8Array, field: string): string[] {
  const records = find(payload, 0, RECORDS);
  if (!records || records[0] !== ARRAY) throw new Error(`payload has no "records" array`);
  const name = encoder.encode(field);
  const values: string[] = [];
  for (const record of parseToElements(payload, records[3]) as Iterable<Element>) {
    if (record[0] !== DOCUMENT && record[0] !== ARRAY) throw new Error(`record ${values.length} is BSON type 0x${record[0].toString(16)}, not a document`);
    const element = find(payload, record[3], name);
    if (!element) throw new Error(`record ${values.length} has no field ${JSON.stringify(field)}`);
    values.push(scalarText(payload, element, field));
  }
  return values;
}
