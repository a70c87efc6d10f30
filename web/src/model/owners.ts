import { create, fromBinary } from "@bufbuild/protobuf";
import { OwnersDatasetSchema, type OwnerRecord, type OwnersDataset } from "../gen/codecbench/v1/datasets_pb";
import type { Model } from "./dataset";
import { message, repeated } from "./schema";

// owners: one car owner with four cars. The telephone is int64 (bigint here).

export interface OwnerCar {
  uid: number;
  brand: string;
  model: string;
  bodyType: string;
  approval: string;
  chassis: string;
  tyreSize: string;
  weight: number;
  fuel: string;
  seats: number;
  noise: number;
  co2Emissions: number;
  engineSize: number;
  power: number;
  color: string;
  consumption: number;
  plate: string;
  date: string;
}

export interface Owner {
  uid: number;
  name: string;
  telephone: bigint;
  address: string;
  licenceNumber: number;
  idNumber: number;
  taxNumber: number;
  cars: OwnerCar[];
}

export const ownerRecord = message({
  uid: "int32",
  name: "string",
  telephone: "int64",
  address: "string",
  licenceNumber: "int32",
  idNumber: "int32",
  taxNumber: "int32",
  cars: repeated(
    message({
      uid: "int32",
      brand: "string",
      model: "string",
      bodyType: "string",
      approval: "string",
      chassis: "string",
      tyreSize: "string",
      weight: "int32",
      fuel: "string",
      seats: "int32",
      noise: "int32",
      co2Emissions: "double",
      engineSize: "int32",
      power: "int32",
      color: "string",
      consumption: "double",
      plate: "string",
      date: "string",
    }),
  ),
});

export function ownerFromProto(r: OwnerRecord): Owner {
  return {
    uid: r.uid,
    name: r.name,
    telephone: r.telephone,
    address: r.address,
    licenceNumber: r.licenceNumber,
    idNumber: r.idNumber,
    taxNumber: r.taxNumber,
    cars: r.cars.map((c) => ({
      uid: c.uid,
      brand: c.brand,
      model: c.model,
      bodyType: c.bodyType,
      approval: c.approval,
      chassis: c.chassis,
      tyreSize: c.tyreSize,
      weight: c.weight,
      fuel: c.fuel,
      seats: c.seats,
      noise: c.noise,
      co2Emissions: c.co2Emissions,
      engineSize: c.engineSize,
      power: c.power,
      color: c.color,
      consumption: c.consumption,
      plate: c.plate,
      date: c.date,
    })),
  };
}

export const owners: Model<Owner, OwnersDataset> = {
  record: ownerRecord,
  message: OwnersDatasetSchema,
  toMessage: (records) => create(OwnersDatasetSchema, { records: records.map((r) => ({ ...r, cars: r.cars.map((c) => ({ ...c })) })) }),
  fromMessage: (message) => message.records.map(ownerFromProto),
  fromCanonical: (bytes) => fromBinary(OwnersDatasetSchema, bytes).records.map(ownerFromProto),
};
