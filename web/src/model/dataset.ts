import type { DescMessage, Message } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import type { FieldType } from "./schema";

// A dataset as the worker sees it: its record message and what its `(dataset)` option declares
// (src/model/registry.ts finds them in the descriptors), how to read control's canonical blob into
// the native model (outside any timed region), and the record schema codecs and verification walk.

export interface Dataset<R = unknown, M extends Message = Message> {
  /** The `(dataset)` option's id, e.g. "dummy". */
  readonly id: string;
  readonly description: string;
  /** The record message that carries the option. */
  readonly recordMessage: DescMessage;
  /** The record's schema: wire names in proto order with their proto types. */
  readonly record: FieldType;
  /** The fields a lazy decode reads (control sends them in each task): dotted paths, cell indexes of a bare list. */
  readonly lazyFields: readonly string[];
  /** On the wire of schema-less codecs, a record is its one repeated field as a plain array. */
  readonly bareList: boolean;
  /** The dataset's `*Dataset` list message: control's canonical blob, and the protobuf codec's payload. */
  readonly message: GenMessage<M>;
  /** Native records -> the list message (never timed). */
  toMessage(records: readonly R[]): M;
  /** The list message -> native records (never timed). */
  fromMessage(message: M): R[];
  /** Parses the protobuf encoding of the `*Dataset` message into native records. */
  fromCanonical(bytes: Uint8Array): R[];
}

/** A dataset's hand-written native model, until the models are derived from the descriptors too. */
export type Model<R = unknown, M extends Message = Message> = Pick<Dataset<R, M>, "record" | "message" | "toMessage" | "fromMessage" | "fromCanonical">;

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
