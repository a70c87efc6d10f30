import { create, createFileRegistry, fromBinary, getOption, type DescMessage, type Message } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { dataset as datasetOption, type DatasetOptions } from "../gen/codecbench/v1/dataset_options_pb";
import { recordConverter } from "./convert";
import { kindOf, recordType, wireNames, type FieldNames, type FieldType, type WireName } from "./schema";

// A dataset as the worker sees it, all of it derived from its record message's descriptor: what
// the `(dataset)` option declares, the record schema codecs and verification walk, the list
// message control's canonical blob holds, and the conversions between that message and the native
// model (never timed, except inside the protobuf codec, which declares them).

export interface Dataset {
  /** The `(dataset)` option's id, e.g. "dummy". */
  readonly id: string;
  readonly description: string;
  /** The record message that carries the option. */
  readonly recordMessage: DescMessage;
  /** How self-describing payloads (and the native model) name fields: "json" for every built-in. */
  readonly fieldNames: FieldNames;
  /** A field's name on the wire and in the model, by `fieldNames`. */
  readonly wireName: WireName;
  /** The record's schema: wire names in proto order with their proto types. */
  readonly record: FieldType;
  /** The fields a lazy decode reads (control sends them in each task): dotted paths, cell indexes of a bare list. */
  readonly lazyFields: readonly string[];
  /** On the wire of schema-less codecs, a record is its one repeated field as a plain array. */
  readonly bareList: boolean;
  /** The list message {records: [...]}: control's canonical blob, and the protobuf codec's payload. */
  readonly message: DescMessage;
  /** Native records -> the list message. */
  toMessage(records: readonly unknown[]): Message;
  /** The list message -> native records. */
  fromMessage(message: Message): unknown[];
  /** Parses the protobuf encoding of the list message into native records. */
  fromCanonical(bytes: Uint8Array): unknown[];
}

/**
 * The list message of a record: the message of its file that is `repeated <record> records = 1;`
 * (the `*Dataset` messages of datasets.proto, proto/README.md), or else one made here the same,
 * which is the same on the wire.
 */
function listMessage(record: DescMessage): DescMessage {
  const declared = record.file.messages.find((message) => {
    const only = message.fields[0];
    // Named `records` too: self-describing payloads are {"records": [...]} (a user's own list message may name it otherwise).
    return message.fields.length === 1 && only?.number === 1 && only.name === "records" && only.fieldKind === "list" && only.listKind === "message" && only.message === record;
  });
  if (declared) return declared;
  const file = create(FileDescriptorProtoSchema, {
    name: `codecbench-web/records/${record.typeName}.proto`,
    syntax: "proto3",
    dependency: [record.file.proto.name],
    messageType: [
      {
        name: `${record.typeName.replaceAll(".", "_")}_Records`,
        field: [{ name: "records", number: 1, label: FieldDescriptorProto_Label.REPEATED, type: FieldDescriptorProto_Type.MESSAGE, typeName: `.${record.typeName}` }],
      },
    ],
  });
  return createFileRegistry(file, (name) => (name === record.file.proto.name ? record.file : undefined)).getMessage(file.messageType[0]!.name)!;
}

/**
 * The dataset a record message with the `(dataset)` option declares (or `option`, for a message
 * without one: a user's dataset, whose manifest also says how its fields are named).
 */
export function datasetOf(record: DescMessage, option: DatasetOptions = getOption(record, datasetOption), fieldNames: FieldNames = "json"): Dataset {
  const wireName = wireNames(fieldNames);
  // The schema first: it refuses what the model cannot hold, with the reason.
  const schema = recordType(record, option.bareList, wireName);
  const message = listMessage(record);
  const records = message.fields[0]!.localName;
  const convert = recordConverter(record, option.bareList, wireName);
  const fromMessage = (list: Message) => ((list as unknown as Record<string, unknown[]>)[records] ?? []).map(convert.toNative);
  return {
    id: option.id,
    description: option.description,
    recordMessage: record,
    fieldNames,
    wireName,
    record: schema,
    lazyFields: option.lazyFields,
    bareList: option.bareList,
    message,
    toMessage: (list) => create(message, { [records]: list.map(convert.fromNative) }),
    fromMessage,
    fromCanonical: (bytes) => fromMessage(fromBinary(message, bytes)),
  };
}

/**
 * Reads a lazy field of one model record as a string (integers in decimal, bytes in base64, an
 * enum by name, a Timestamp its RFC 3339 text, as the model holds them): a dotted path into
 * nested objects; for a bare list, the cell index (`row["0"]` reads an array's cell 0).
 */
export function readLazyField(record: unknown, field: string): string {
  let value: unknown = record;
  for (const part of field.split(".")) {
    if (typeof value !== "object" || value === null) throw new Error(`record has no field ${JSON.stringify(field)}`);
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined) throw new Error(`record has no field ${JSON.stringify(field)}`);
  return typeof value === "string" ? value : value instanceof Uint8Array ? base64Encode(value) : String(value);
}

/** An optional field's values have the type it wraps. */
const unwrap = (type: FieldType): FieldType => (typeof type === "object" && type.kind === "optional" ? type.of : type);

/**
 * Why a lazy decode cannot read `path` of every record, or null: a lazy field is a dotted path of
 * wire names through message fields to a scalar, an enum or a Timestamp, which every lazy reader
 * turns into text (proto/README.md, "Decode modes"); a codec that cannot carry one of those
 * refuses the whole schema first.
 */
export function lazyFieldProblem(record: FieldType, path: string): string | null {
  let type = unwrap(record);
  for (const part of path.split(".")) {
    if (typeof type !== "object" || type.kind !== "message") return `lazy field ${JSON.stringify(path)} goes into a ${kindOf(type)} field, where a lazy read takes a dotted path through messages`;
    const field = type.fields.find(([name]) => name === part);
    if (!field) return `lazy field ${JSON.stringify(path)}: ${type.name} has no field ${JSON.stringify(part)} (its fields: ${type.fields.map(([name]) => name).join(", ")})`;
    type = unwrap(field[1]);
  }
  if (typeof type === "object" && type.kind !== "enum" && type.kind !== "timestamp") return `lazy field ${JSON.stringify(path)} is a ${type.kind} field, where a lazy read takes a scalar, an enum or a Timestamp`;
  return null;
}
