import { hasOption, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { dataset as datasetOption } from "../gen/codecbench/v1/dataset_options_pb";
import { file_codecbench_v1_datasets } from "../gen/codecbench/v1/datasets_pb";
import { datasetOf, type Dataset } from "./dataset";
import { userDatasetOf, type UserDatasetSource } from "./user-dataset";

// Every dataset the worker knows, by id: each record message of datasets.proto marked with the
// `(dataset)` option (proto/README.md, "Datasets and their schema fingerprint"), and each user's
// dataset given at startup. Nothing here, or anywhere in the page, lists a dataset by hand: a new
// record message needs no source edit.

/** Every message of a file, nested ones included, in declaration order. */
function messagesOf(file: DescFile): DescMessage[] {
  const all: DescMessage[] = [];
  const add = (message: DescMessage) => {
    all.push(message);
    message.nestedMessages.forEach(add);
  };
  file.messages.forEach(add);
  return all;
}

export const datasets: ReadonlyMap<string, Dataset> = new Map(
  messagesOf(file_codecbench_v1_datasets)
    .filter((message) => hasOption(message, datasetOption))
    .map((record) => {
      const dataset = datasetOf(record);
      return [dataset.id, dataset] as const;
    }),
);

// A user's datasets (src/datasets/user-dataset.ts), given at startup: found by id like a built-in.
const users = new Map<string, { readonly dataset: Dataset; readonly source: UserDatasetSource }>();

const sameSource = (a: UserDatasetSource, b: UserDatasetSource) =>
  a.message === b.message && a.fieldNames === b.fieldNames && a.descriptorSet === b.descriptorSet && a.lazyFields.join("\n") === b.lazyFields.join("\n");

/**
 * Builds a user's dataset from its source and registers it beside the built-ins. Registering the
 * same source again (an in-process trial after the page's own registration) answers the dataset
 * already built; another dataset under a taken id is refused.
 */
export function registerUserDataset(source: UserDatasetSource): Dataset {
  const known = users.get(source.id);
  if (known && sameSource(known.source, source)) return known.dataset;
  const where = `user dataset ${JSON.stringify(source.id)} (${source.manifest})`;
  if (known) throw new Error(`${where}: another user dataset has that id (${known.source.manifest})`);
  if (datasets.has(source.id)) throw new Error(`${where}: ${JSON.stringify(source.id)} is a built-in dataset's id; give yours another`);
  const dataset = userDatasetOf(source);
  users.set(source.id, { dataset, source });
  return dataset;
}

/** The source a user dataset was built from (a trial carries it to the context it runs in), or undefined for a built-in. */
export function userDatasetSource(id: string): UserDatasetSource | undefined {
  return users.get(id)?.source;
}

/** Every dataset the worker carries: the built-ins, then the user's in the order given. */
export function allDatasets(): Dataset[] {
  return [...datasets.values(), ...[...users.values()].map((user) => user.dataset)];
}

export function datasetById(id: string): Dataset {
  const dataset = datasets.get(id) ?? users.get(id)?.dataset;
  if (!dataset) throw new Error(`unknown dataset ${JSON.stringify(id)} (this worker knows ${allDatasets().map((d) => d.id).join(", ")})`);
  return dataset;
}
