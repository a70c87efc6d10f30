import { create, fromBinary } from "@bufbuild/protobuf";
import { BeersDatasetSchema, type BeerRecord, type BeersDataset } from "../gen/codecbench/v1/datasets_pb";
import type { Model } from "./dataset";
import { message } from "./schema";

// beers: a catalogue entry.

export interface Beer {
  alcohol: number;
  name: string;
  brewedBy: string;
  style: string;
  availability: string;
  serving: string;
  details: string;
}

export const beerRecord = message({
  alcohol: "double",
  name: "string",
  brewedBy: "string",
  style: "string",
  availability: "string",
  serving: "string",
  details: "string",
});

export function beerFromProto(r: BeerRecord): Beer {
  return {
    alcohol: r.alcohol,
    name: r.name,
    brewedBy: r.brewedBy,
    style: r.style,
    availability: r.availability,
    serving: r.serving,
    details: r.details,
  };
}

export const beers: Model<Beer, BeersDataset> = {
  record: beerRecord,
  message: BeersDatasetSchema,
  toMessage: (records) => create(BeersDatasetSchema, { records: records.map((r) => ({ ...r })) }),
  fromMessage: (message) => message.records.map(beerFromProto),
  fromCanonical: (bytes) => fromBinary(BeersDatasetSchema, bytes).records.map(beerFromProto),
};
