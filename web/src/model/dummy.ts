import { create, fromBinary } from "@bufbuild/protobuf";
import { DummyDatasetSchema, type DummyDataset, type DummyRecord } from "../gen/codecbench/v1/datasets_pb";
import type { Model } from "./dataset";
import { message, repeated } from "./schema";

// dummy: a string-heavy profile. Keys are the wire names, in proto order, so a record is exactly
// the object a JSON or BSON payload holds.

export interface DummyFriend {
  id: number;
  name: string;
}

export interface Dummy {
  _id: string;
  index: number;
  guid: string;
  isActive: boolean;
  balance: number;
  picture: string;
  age: number;
  eyeColor: string;
  name: string;
  gender: string;
  company: string;
  email: string;
  phone: string;
  address: string;
  about: string;
  registered: string;
  latitude: number;
  longitude: number;
  tags: string[];
  friends: DummyFriend[];
  greeting: string;
  favoriteFruit: string;
}

export const dummyRecord = message({
  _id: "string",
  index: "int32",
  guid: "string",
  isActive: "bool",
  balance: "double",
  picture: "string",
  age: "int32",
  eyeColor: "string",
  name: "string",
  gender: "string",
  company: "string",
  email: "string",
  phone: "string",
  address: "string",
  about: "string",
  registered: "string",
  latitude: "double",
  longitude: "double",
  tags: repeated("string"),
  friends: repeated(message({ id: "int32", name: "string" })),
  greeting: "string",
  favoriteFruit: "string",
});

export function dummyFromProto(r: DummyRecord): Dummy {
  return {
    _id: r.id,
    index: r.index,
    guid: r.guid,
    isActive: r.isActive,
    balance: r.balance,
    picture: r.picture,
    age: r.age,
    eyeColor: r.eyeColor,
    name: r.name,
    gender: r.gender,
    company: r.company,
    email: r.email,
    phone: r.phone,
    address: r.address,
    about: r.about,
    registered: r.registered,
    latitude: r.latitude,
    longitude: r.longitude,
    tags: [...r.tags],
    friends: r.friends.map((f) => ({ id: f.id, name: f.name })),
    greeting: r.greeting,
    favoriteFruit: r.favoriteFruit,
  };
}

export const dummy: Model<Dummy, DummyDataset> = {
  record: dummyRecord,
  message: DummyDatasetSchema,
  toMessage: (records) =>
    create(DummyDatasetSchema, {
      records: records.map(({ _id, tags, friends, ...rest }) => ({ ...rest, id: _id, tags: [...tags], friends: friends.map((f) => ({ ...f })) })),
    }),
  fromMessage: (message) => message.records.map(dummyFromProto),
  fromCanonical: (bytes) => fromBinary(DummyDatasetSchema, bytes).records.map(dummyFromProto),
};
