import { create, fromBinary } from "@bufbuild/protobuf";
import { NumericDatasetSchema, type NumericDataset, type NumericRecord } from "../gen/codecbench/v1/datasets_pb";
import type { Model } from "./dataset";
import { message, repeated } from "./schema";

// numeric: number-heavy. Timestamps are int64 and stay bigint: above 2^53 a double would round
// them silently.

export interface NumericCoordinate {
  timestamp: bigint;
  latitude: number;
  longitude: number;
}

export interface Numeric {
  _id: string;
  index: number;
  numbr: number;
  coordinates: NumericCoordinate[];
}

export const numericRecord = message({
  _id: "string",
  index: "int32",
  numbr: "int32",
  coordinates: repeated(message({ timestamp: "int64", latitude: "double", longitude: "double" })),
});

export function numericFromProto(r: NumericRecord): Numeric {
  return {
    _id: r.id,
    index: r.index,
    numbr: r.numbr,
    coordinates: r.coordinates.map((c) => ({ timestamp: c.timestamp, latitude: c.latitude, longitude: c.longitude })),
  };
}

export const numeric: Model<Numeric, NumericDataset> = {
  record: numericRecord,
  message: NumericDatasetSchema,
  toMessage: (records) =>
    create(NumericDatasetSchema, {
      records: records.map((r) => ({ id: r._id, index: r.index, numbr: r.numbr, coordinates: r.coordinates.map((c) => ({ ...c })) })),
    }),
  fromMessage: (message) => message.records.map(numericFromProto),
  fromCanonical: (bytes) => fromBinary(NumericDatasetSchema, bytes).records.map(numericFromProto),
};
