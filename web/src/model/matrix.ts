import { fromBinary } from "@bufbuild/protobuf";
import { MatrixDatasetSchema } from "../gen/codecbench/v1/datasets_pb";
import type { Dataset } from "./dataset";
import { repeated } from "./schema";

// matrix: a record is one row of decimal strings; on the wire a row is a plain array of strings,
// so the native row is a string[] too.

export type MatrixRow = string[];

export const matrixRow = repeated("string");

export const matrix: Dataset<MatrixRow> = {
  id: "matrix",
  record: matrixRow,
  lazyField: "0",
  fromCanonical: (bytes) => fromBinary(MatrixDatasetSchema, bytes).records.map((row) => [...row.cells]),
};
