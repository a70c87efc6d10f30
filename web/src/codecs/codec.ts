import type { Dataset } from "../model/dataset";

// One codec of the browser worker. `prepare` specialises it for one dataset outside any timed
// region (choosing a reviver, compiling a mapping); the prepared functions are what gets timed.

export type DecodeMode = "typed" | "lazy";

export interface CodecInfo {
  readonly id: string;
  readonly mediaType: string;
  readonly decodeModes: readonly DecodeMode[];
  readonly library: string;
  readonly libraryVersion: string;
  readonly notes: string;
}

export interface PreparedCodec {
  /** Native records -> the payload {"records": [...]} as bytes. */
  encode(records: readonly unknown[]): Uint8Array;
  /** Payload bytes -> native records (every field materialised). */
  decodeTyped(payload: Uint8Array): unknown[];
  /** Payload bytes -> the library's document tree, reading `field` of every record as a string. */
  decodeLazy?(payload: Uint8Array, field: string): string[];
}

export interface Codec {
  readonly info: CodecInfo;
  prepare(dataset: Dataset): PreparedCodec;
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
