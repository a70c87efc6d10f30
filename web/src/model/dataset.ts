import type { Message } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import type { FieldType } from "./schema";

// A dataset as the worker sees it: how to read control's canonical blob into the native model
// (outside any timed region), the record schema codecs and verification walk, and the field a
// lazy decode reads.

export type DatasetId = "dummy" | "numeric" | "owners" | "docs" | "beers" | "matrix";

export interface Dataset<R = unknown, M extends Message = Message> {
  readonly id: DatasetId;
  /** The record's schema: wire names in proto order with their proto types. */
  readonly record: FieldType;
  /** The default lazy field (control sends the one to use in each task). */
  readonly lazyField: string;
  /** The dataset's `*Dataset` list message: control's canonical blob, and the protobuf codec's payload. */
  readonly message: GenMessage<M>;
  /** Native records -> the list message (never timed). */
  toMessage(records: readonly R[]): M;
  /** The list message -> native records (never timed). */
  fromMessage(message: M): R[];
  /** Parses the protobuf encoding of the `*Dataset` message into native records. */
  fromCanonical(bytes: Uint8Array): R[];
}

/**
 * Reads a lazy field of one record (a native record or a parsed JSON tree) as a string. For
 * matrix rows, the field is the cell index; `row["0"]` reads an array's cell 0.
 */
export function readLazyField(record: unknown, field: string): string {
  if (typeof record !== "object" || record === null) throw new Error(`record is ${record === null ? "null" : typeof record}, not an object`);
  const value = (record as Record<string, unknown>)[field];
  if (value === undefined) throw new Error(`record has no field ${JSON.stringify(field)}`);
  return typeof value === "string" ? value : String(value);
}
