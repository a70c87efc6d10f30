import { create, fromBinary } from "@bufbuild/protobuf";
import {
  DocAddressSchema,
  DocDataSchema,
  DocDeliverySchema,
  DocDepartmentSchema,
  DocEmployeeSchema,
  DocOwnerSchema,
  DocPriceSchema,
  DocsDatasetSchema,
  DocTransactionSchema,
  type DocRecord,
  type DocsDataset,
} from "../gen/codecbench/v1/datasets_pb";
import type { Model } from "./dataset";
import { message, repeated } from "./schema";

// docs: a nested business document. department.time is int64 (bigint here). An unset nested
// message reads as its default instance, as proto3 defines, so every payload has every field.

export interface DocEmployee {
  name: string;
  surname: string;
  code: string;
}

export interface DocDepartment {
  code: string;
  time: bigint;
  employee: DocEmployee;
}

export interface DocPrice {
  categoryA: string;
  categoryB: string;
  categoryC: string;
}

export interface DocOwner {
  uuid: string;
  secret: string;
}

export interface DocTransaction {
  type: string;
  uuid: string;
  pointCode: string;
}

export interface DocAddress {
  code: string;
  country: string;
  street: string;
  apartment: string;
}

export interface DocGood {
  name: string;
  amount: number;
  code: string;
}

export interface Doc {
  name: string;
  department: DocDepartment;
  price: DocPrice;
  owner: DocOwner;
  data: { transaction: DocTransaction };
  delivery: { company: string; address: DocAddress };
  goods: DocGood[];
}

export const docRecord = message({
  name: "string",
  department: message({
    code: "string",
    time: "int64",
    employee: message({ name: "string", surname: "string", code: "string" }),
  }),
  price: message({ categoryA: "string", categoryB: "string", categoryC: "string" }),
  owner: message({ uuid: "string", secret: "string" }),
  data: message({ transaction: message({ type: "string", uuid: "string", pointCode: "string" }) }),
  delivery: message({
    company: "string",
    address: message({ code: "string", country: "string", street: "string", apartment: "string" }),
  }),
  goods: repeated(message({ name: "string", amount: "int32", code: "string" })),
});

export function docFromProto(r: DocRecord): Doc {
  const department = r.department ?? create(DocDepartmentSchema);
  const employee = department.employee ?? create(DocEmployeeSchema);
  const price = r.price ?? create(DocPriceSchema);
  const owner = r.owner ?? create(DocOwnerSchema);
  const transaction = (r.data ?? create(DocDataSchema)).transaction ?? create(DocTransactionSchema);
  const delivery = r.delivery ?? create(DocDeliverySchema);
  const address = delivery.address ?? create(DocAddressSchema);
  return {
    name: r.name,
    department: {
      code: department.code,
      time: department.time,
      employee: { name: employee.name, surname: employee.surname, code: employee.code },
    },
    price: { categoryA: price.categoryA, categoryB: price.categoryB, categoryC: price.categoryC },
    owner: { uuid: owner.uuid, secret: owner.secret },
    data: { transaction: { type: transaction.type, uuid: transaction.uuid, pointCode: transaction.pointCode } },
    delivery: {
      company: delivery.company,
      address: { code: address.code, country: address.country, street: address.street, apartment: address.apartment },
    },
    goods: r.goods.map((g) => ({ name: g.name, amount: g.amount, code: g.code })),
  };
}

export const docs: Model<Doc, DocsDataset> = {
  record: docRecord,
  message: DocsDatasetSchema,
  // Every nested message is set, as in the canonical records (docFromProto reads unset ones as defaults).
  toMessage: (records) =>
    create(DocsDatasetSchema, {
      records: records.map((r) => ({
        name: r.name,
        department: { code: r.department.code, time: r.department.time, employee: { ...r.department.employee } },
        price: { ...r.price },
        owner: { ...r.owner },
        data: { transaction: { ...r.data.transaction } },
        delivery: { company: r.delivery.company, address: { ...r.delivery.address } },
        goods: r.goods.map((g) => ({ ...g })),
      })),
    }),
  fromMessage: (message) => message.records.map(docFromProto),
  fromCanonical: (bytes) => fromBinary(DocsDatasetSchema, bytes).records.map(docFromProto),
};
