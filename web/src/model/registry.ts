import { hasOption, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { dataset as datasetOption } from "../gen/codecbench/v1/dataset_options_pb";
import { file_codecbench_v1_datasets } from "../gen/codecbench/v1/datasets_pb";
import { datasetOf, type Dataset } from "./dataset";

// Every dataset the worker knows, by id: each record message of datasets.proto marked with the
// `(dataset)` option (proto/README.md, "Datasets and their schema fingerprint"). Nothing here, or
// anywhere in the page, lists a dataset by hand: a new record message needs no source edit.

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

export function datasetById(id: string): Dataset {
  const dataset = datasets.get(id);
  if (!dataset) throw new Error(`unknown dataset ${JSON.stringify(id)} (this worker knows ${[...datasets.keys()].join(", ")})`);
  return dataset;
}
