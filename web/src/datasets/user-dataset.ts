import { create, createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { DatasetOptionsSchema } from "../gen/codecbench/v1/dataset_options_pb";
import { datasetOf, type Dataset } from "./dataset";
import type { FieldNames } from "./schema";

// A user's dataset (proto/README.md, "A user's dataset"): a record message of a .proto no code of
// the page was generated from, given at startup as its manifest and descriptor set (the driver's
// --user-dataset). protobuf-es's generated code is itself descriptors embedded at build time, so a
// registry built from the descriptor set at run time gives the descriptors, messages and dataset a
// generated file would: codecs, verification and the fingerprint see no difference.

/** A manifest with its descriptor set, as the driver hands it to the page (JSON-safe: the set in base64). */
export interface UserDatasetSource {
  readonly id: string;
  /** The record message's full name. */
  readonly message: string;
  readonly fieldNames: FieldNames;
  readonly lazyFields: readonly string[];
  /** What the manifest declares; the page announces the fingerprint it computes itself. */
  readonly fingerprint: string;
  /** A FileDescriptorSet of the record's file and its imports, dependencies first, base64. */
  readonly descriptorSet: string;
  /** The manifest's path, for messages. */
  readonly manifest: string;
}

/** The record message, from a registry built from the source's descriptor set. */
export function recordMessageOf(source: UserDatasetSource): DescMessage {
  const where = `user dataset ${JSON.stringify(source.id)} (${source.manifest})`;
  let registry;
  try {
    registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, base64Decode(source.descriptorSet)));
  } catch (error) {
    throw new Error(`${where}: the descriptor set is not a FileDescriptorSet with its imports, dependencies first: ${error instanceof Error ? error.message : String(error)}`);
  }
  const record = registry.getMessage(source.message);
  if (!record) {
    const found = [...registry].filter((type) => type.kind === "message").map((type) => type.typeName);
    throw new Error(`${where}: the descriptor set has no message ${source.message} (it has ${found.join(", ") || "none"})`);
  }
  return record;
}

/** Builds the dataset: the same code path as a built-in's, with the manifest in place of the `(dataset)` option. */
export function userDatasetOf(source: UserDatasetSource): Dataset {
  const record = recordMessageOf(source);
  try {
    return datasetOf(record, create(DatasetOptionsSchema, { id: source.id, lazyFields: [...source.lazyFields] }), source.fieldNames);
  } catch (error) {
    throw new Error(`user dataset ${JSON.stringify(source.id)} (${source.manifest}): ${error instanceof Error ? error.message : String(error)}`);
  }
}
