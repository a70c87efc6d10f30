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
  /** The lazy fields of proto/README.md, one near the start and one at the end (control sends them in each task). */
  readonly lazyFields: readonly [string, string];
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
 * Reads a lazy field of one model record as a string (integers in decimal): a dotted path into
 * nested objects; for matrix rows, the cell index (`row["0"]` reads an array's cell 0).
 */
export function readLazyField(record: unknown, field: string): string {
  let value: unknown = record;
  for (const part of field.split(".")) {
    if (typeof value !== "object" || value === null) throw new Error(`record has no field ${JSON.stringify(field)}`);
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined) throw new Error(`record has no field ${JSON.stringify(field)}`);
  return typeof value === "string" ? value : String(value);
}
