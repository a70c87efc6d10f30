import { create, fromBinary } from "@bufbuild/protobuf";
import { MatrixDatasetSchema, type MatrixDataset } from "../gen/codecbench/v1/datasets_pb";
import type { Model } from "./dataset";
import { repeated } from "./schema";

// matrix: a record is one row of decimal strings; on the wire a row is a plain array of strings,
// so the native row is a string[] too.

export type MatrixRow = string[];

export const matrixRow = repeated("string");

export const matrix: Model<MatrixRow, MatrixDataset> = {
  record: matrixRow,
  message: MatrixDatasetSchema,
  toMessage: (rows) => create(MatrixDatasetSchema, { records: rows.map((cells) => ({ cells: [...cells] })) }),
  fromMessage: (message) => message.records.map((row) => [...row.cells]),
  fromCanonical: (bytes) => fromBinary(MatrixDatasetSchema, bytes).records.map((row) => [...row.cells]),
};
