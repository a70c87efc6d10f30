import type { Dataset } from "../model/dataset";

// One codec of the browser worker. `prepare` specialises it for one dataset outside any timed
// region (choosing a reviver, compiling a mapping); the prepared functions are what gets timed.
//
// The wire form: what `encode` takes and `decodeTyped` gives back. For most codecs it is the
// native records themselves. A codec whose library works on its own types (protobuf-es messages)
// converts between those and the native model in `toWire`/`fromWire`, which run outside timing:
// the issue (and DESIGN.md rule 1) keeps model conversion out of the codec's timed region, so
// what is timed is exactly the library's encode/decode call, as in Rust (prost structs) and Java.

export type DecodeMode = "typed" | "lazy";

export interface CodecInfo {
  readonly id: string;
  readonly mediaType: string;
  readonly decodeModes: readonly DecodeMode[];
  readonly library: string;
  readonly libraryVersion: string;
  readonly notes: string;
}

export interface PreparedCodec<Wire = unknown> {
  /** Native records -> the wire form `encode` takes. Untimed. */
  toWire(records: readonly unknown[]): Wire;
  /** Wire form -> the payload {"records": [...]} as bytes. Timed. */
  encode(wire: Wire): Uint8Array;
  /** Payload bytes -> the wire form, every field materialised. Timed. */
  decodeTyped(payload: Uint8Array): Wire;
  /** Wire form -> native records, for verification. Untimed. */
  fromWire(wire: Wire): unknown[];
  /** Payload bytes -> the library's document tree, reading `field` of every record as a string. */
  decodeLazy?(payload: Uint8Array, field: string): string[];
}

export interface Codec {
  readonly info: CodecInfo;
  prepare(dataset: Dataset): PreparedCodec;
}

/** The wire conversions of a codec whose wire form is the native records. */
export const identityWire = {
  toWire: (records: readonly unknown[]): readonly unknown[] => records,
  fromWire: (wire: readonly unknown[]): unknown[] => wire as unknown[],
};

/** Native records -> payload, conversion included (for verification, tests and vectors; never timed). */
export function encodeRecords(prepared: PreparedCodec, records: readonly unknown[]): Uint8Array {
  return prepared.encode(prepared.toWire(records));
}

/** Payload -> native records, conversion included (for verification, tests and vectors; never timed). */
export function decodeRecords(prepared: PreparedCodec, payload: Uint8Array): unknown[] {
  return prepared.fromWire(prepared.decodeTyped(payload));
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
