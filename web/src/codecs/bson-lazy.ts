import { base64Encode } from "@bufbuild/protobuf/wire";
import { onDemand } from "bson";

// Lazy BSON reading: for every record of {"records": [...]}, find each named field by walking the
// record's raw bytes element by element, skipping each element by its size, and decode only the
// value found; the walk stops at the field. Written by hand because js-bson's
// onDemand.parseToElements builds the whole element table of a document (every element header of
// every record), which is not what Rust's bson::RawDocument or Java's RawBsonDocument do for a
// field near the start. Value decoding reuses js-bson's own byte utilities.

const { ByteUtils, NumberUtils } = onDemand;

const DOUBLE = 0x01;
const STRING = 0x02;
const DOCUMENT = 0x03;
const ARRAY = 0x04;
const BINARY = 0x05;
const BOOLEAN = 0x08;
const INT32 = 0x10;
const INT64 = 0x12;

/** Bytes of an element's value after its name, for the types with a fixed size. */
const FIXED: Readonly<Record<number, number>> = { 0x01: 8, 0x06: 0, 0x07: 12, 0x08: 1, 0x09: 8, 0x0a: 0, 0x10: 4, 0x11: 8, 0x12: 8, 0x13: 16, 0xff: 0, 0x7f: 0 };

class LazyBsonError extends Error {}

function int32At(bytes: Uint8Array, offset: number, end: number, what: string): number {
  if (offset + 4 > end) throw new LazyBsonError(`${what} at byte ${offset} runs past the end of its document`);
  return NumberUtils.getInt32LE(bytes, offset);
}

/** Offset just past the C string starting at `offset`. */
function cstringEnd(bytes: Uint8Array, offset: number, end: number): number {
  const nul = bytes.indexOf(0, offset);
  if (nul < 0 || nul >= end) throw new LazyBsonError(`unterminated element name at byte ${offset}`);
  return nul + 1;
}

/** Size of the value of an element of `type` starting at `offset`. */
function valueSize(bytes: Uint8Array, type: number, offset: number, end: number): number {
  const fixed = FIXED[type];
  if (fixed !== undefined) return fixed;
  switch (type) {
    case 0x02: // string, JavaScript code, symbol: int32 length, then that many bytes
    case 0x0d:
    case 0x0e:
      return 4 + int32At(bytes, offset, end, "string length");
    case 0x03: // document, array, code with scope: int32 total size
    case 0x04:
    case 0x0f:
      return int32At(bytes, offset, end, "document length");
    case 0x05: // binary: int32 length, subtype, bytes
      return 5 + int32At(bytes, offset, end, "binary length");
    case 0x0b: // regex: two C strings
      return cstringEnd(bytes, cstringEnd(bytes, offset, end), end) - offset;
    case 0x0c: // DBPointer: string, 12-byte id
      return 4 + int32At(bytes, offset, end, "string length") + 12;
    default:
      throw new LazyBsonError(`unknown BSON element type 0x${type.toString(16)} at byte ${offset - 1}`);
  }
}

/** The document starting at `offset`: [first element, end (its terminating NUL)]. */
function documentBounds(bytes: Uint8Array, offset: number, limit: number): [number, number] {
  const size = int32At(bytes, offset, limit, "document length");
  if (size < 5 || offset + size > limit) throw new LazyBsonError(`document at byte ${offset} claims ${size} bytes, ${limit - offset} are there`);
  const end = offset + size - 1;
  if (bytes[end] !== 0) throw new LazyBsonError(`document at byte ${offset} does not end with a NUL`);
  return [offset + 4, end];
}

function nameIs(bytes: Uint8Array, start: number, nameEnd: number, name: Uint8Array): boolean {
  if (nameEnd - 1 - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[start + i] !== name[i]) return false;
  return true;
}

/** Type and value offset of the element called `name` in the document at `offset`, or null. */
function find(bytes: Uint8Array, offset: number, limit: number, name: Uint8Array): [type: number, value: number, end: number] | null {
  const [first, end] = documentBounds(bytes, offset, limit);
  let at = first;
  while (at < end) {
    const type = bytes[at]!;
    const nameEnd = cstringEnd(bytes, at + 1, end);
    if (nameIs(bytes, at + 1, nameEnd, name)) return [type, nameEnd, end];
    at = nameEnd + valueSize(bytes, type, nameEnd, end);
    if (at > end) throw new LazyBsonError(`element at byte ${nameEnd} runs past the end of its document`);
  }
  return null;
}

function text(bytes: Uint8Array, type: number, offset: number, end: number, field: string): string {
  if (type in FIXED && offset + FIXED[type]! > end) throw new LazyBsonError(`field ${JSON.stringify(field)} at byte ${offset} runs past the end of its document`);
  switch (type) {
    case STRING: {
      const length = int32At(bytes, offset, end, "string length");
      if (length < 1 || offset + 4 + length > end || bytes[offset + 3 + length] !== 0) throw new LazyBsonError(`string ${JSON.stringify(field)} at byte ${offset} is malformed`);
      // fatal: invalid UTF-8 is an error.
      return ByteUtils.toUTF8(bytes, offset + 4, offset + 3 + length, true);
    }
    case BINARY: {
      // Bytes in base64 (proto/README.md, "Decode modes"), whatever the subtype.
      const length = int32At(bytes, offset, end, "binary length");
      if (length < 0 || offset + 5 + length > end) throw new LazyBsonError(`binary ${JSON.stringify(field)} at byte ${offset} is malformed`);
      if (bytes[offset + 4] !== 0x02) return base64Encode(bytes.subarray(offset + 5, offset + 5 + length));
      // The old binary subtype holds its own length again, which must be the rest (BSON corpus binary.json).
      const inner = length >= 4 ? NumberUtils.getInt32LE(bytes, offset + 5) : -1;
      if (inner !== length - 4) throw new LazyBsonError(`binary ${JSON.stringify(field)} at byte ${offset}: subtype 0x02 declares ${inner} bytes of ${length - 4}`);
      return base64Encode(bytes.subarray(offset + 9, offset + 5 + length));
    }
    case INT32:
      return String(NumberUtils.getInt32LE(bytes, offset));
    case INT64:
      return String(NumberUtils.getBigInt64LE(bytes, offset));
    case DOUBLE:
      return String(NumberUtils.getFloat64LE(bytes, offset));
    case BOOLEAN: {
      // Only 0x00 and 0x01 are booleans (BSON corpus boolean.json decodeErrors: 0x02 and 0xff).
      const byte = bytes[offset];
      if (byte !== 0 && byte !== 1) throw new LazyBsonError(`boolean ${JSON.stringify(field)} at byte ${offset} is 0x${byte!.toString(16)}, not 0x00 or 0x01`);
      return String(byte === 1);
    }
    default:
      throw new LazyBsonError(`field ${JSON.stringify(field)} has BSON type 0x${type.toString(16)}, which a lazy read does not turn into text`);
  }
}

const encoder = new TextEncoder();
const RECORDS = encoder.encode("records");

/** A compiled lazy reader of `fields` (dotted paths; a matrix row's cell index). */
export function lazyBsonReader(fields: readonly string[]): (payload: Uint8Array) => string[] {
  if (fields.length === 0) throw new Error("a lazy read needs at least one field");
  const paths = fields.map((field) => ({ field, parts: field.split(".").map((part) => encoder.encode(part)) }));
  return (payload) => {
    try {
      // The payload is one document: bytes after it are an error (as in js-bson), checked in O(1).
      const size = int32At(payload, 0, payload.length, "document length");
      if (size !== payload.length) throw new LazyBsonError(`document at byte 0 claims ${size} bytes, ${payload.length} are there`);
      const records = find(payload, 0, payload.length, RECORDS);
      if (!records || records[0] !== ARRAY) throw new LazyBsonError(`payload has no "records" array`);
      const [first, end] = documentBounds(payload, records[1], records[2]);
      const values: string[] = [];
      let at = first;
      let index = 0;
      while (at < end) {
        const type = payload[at]!;
        const valueAt = cstringEnd(payload, at + 1, end);
        if (type !== DOCUMENT && type !== ARRAY) throw new LazyBsonError(`record ${index} is BSON type 0x${type.toString(16)}, not a document`);
        for (const { field, parts } of paths) {
          let documentAt = valueAt;
          let limit = end;
          let found: [number, number, number] | null = null;
          for (let p = 0; p < parts.length; p++) {
            found = find(payload, documentAt, limit, parts[p]!);
            if (!found) throw new LazyBsonError(`record ${index} has no field ${JSON.stringify(field)}`);
            if (p < parts.length - 1) {
              if (found[0] !== DOCUMENT) throw new LazyBsonError(`record ${index} field ${JSON.stringify(field)}: ${new TextDecoder().decode(parts[p])} is BSON type 0x${found[0].toString(16)}, not a document`);
              [documentAt, limit] = [found[1], found[2]];
            }
          }
          values.push(text(payload, found![0], found![1], found![2], field));
        }
        at = valueAt + valueSize(payload, type, valueAt, end);
        index++;
      }
      return values;
    } catch (error) {
      if (error instanceof LazyBsonError) throw error;
      // Out-of-range reads in the value decoders (a length pointing past the buffer).
      throw new LazyBsonError(`malformed BSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

/** Reads `fields` of every record of {"records": [...]}, record by record (tests and tools). */
export function readLazyBson(payload: Uint8Array, fields: readonly string[]): string[] {
  return lazyBsonReader(fields)(payload);
}
