import type { Dataset } from "../datasets/dataset";

// One codec of the browser worker. `prepare` specialises it for one dataset outside any timed
// region (choosing a reviver, compiling a mapping); the prepared functions are what gets timed.
//
// One boundary (DESIGN.md rule 1): encode takes the page's model objects (native records) and
// returns the payload bytes; typed decode takes the bytes and returns model objects. Whatever a
// codec needs in between (UTF-8 coding, wrapping doubles, building protobuf-es messages) is
// inside, and declared in `timedRegions` with the vocabulary of results.proto's TimedRegion
// (written in codecs/catalogue.yaml: catalogue.ts).

export type DecodeMode = "typed" | "tree" | "lazy";

export interface TimedRegionInfo {
  /** "encode" or a decode mode. */
  readonly operation: "encode" | DecodeMode;
  /** serialize, parse, utf8, model-conversion, validation, copy, field-lookup. */
  readonly contains: readonly string[];
  readonly note: string;
}

export interface CodecInfo {
  readonly id: string;
  readonly mediaType: string;
  readonly decodeModes: readonly DecodeMode[];
  readonly library: string;
  readonly libraryVersion: string;
  readonly notes: string;
  /** One entry for encode and one per decode mode. */
  readonly timedRegions: readonly TimedRegionInfo[];
}

export interface PreparedCodec {
  /** Model records -> the payload {"records": [...]} as bytes. Timed. */
  encode(records: readonly unknown[]): Uint8Array;
  /** Payload bytes -> model records, every field materialised. Timed. */
  decodeTyped(payload: Uint8Array): unknown[];
  /** Payload bytes -> the library's generic document. Timed (tree mode). */
  decodeTree?(payload: Uint8Array): unknown;
  /** The generic document -> model records, for verification of tree mode. Untimed. */
  treeToRecords?(tree: unknown): unknown[];
  /** Reads `fields` of every record from the raw payload, record by record. Timed (lazy mode). */
  decodeLazy?(payload: Uint8Array, fields: readonly string[]): string[];
}

export interface Codec {
  readonly info: CodecInfo;
  prepare(dataset: Dataset): PreparedCodec;
}

/** The format a codec id implements: "msgpack" for "msgpack" and "msgpack/msgpackr" (results.proto CodecInfo.id). */
export function formatOf(codecId: string): string {
  return codecId.split("/", 1)[0]!;
}

/** Model records -> payload (for verification, tests and vectors). */
export function encodeRecords(prepared: PreparedCodec, records: readonly unknown[]): Uint8Array {
  return prepared.encode(records);
}

/** Payload -> model records (for verification, tests and vectors). */
export function decodeRecords(prepared: PreparedCodec, payload: Uint8Array): unknown[] {
  return prepared.decodeTyped(payload);
}

/** The records array of a decoded payload, or a precise error when the payload has another shape. */
export function recordsOf(document: unknown): unknown[] {
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new Error(`payload is not a document {"records": [...]}`);
  }
  const records = (document as { records?: unknown }).records;
  if (!Array.isArray(records)) throw new Error(`payload has no "records" array`);
  return records;
}
