import { getOption, hasOption, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { dataset as datasetOption } from "../gen/codecbench/v1/dataset_options_pb";
import { file_codecbench_v1_datasets } from "../gen/codecbench/v1/datasets_pb";
import { beers } from "./beers";
import type { Dataset, Model } from "./dataset";
import { docs } from "./docs";
import { dummy } from "./dummy";
import { matrix } from "./matrix";
import { numeric } from "./numeric";
import { owners } from "./owners";

// Every dataset the worker knows, by id: each record message of datasets.proto marked with the
// `(dataset)` option (proto/README.md, "Datasets and their schema fingerprint"). Id, description,
// lazy fields and bare_list come from the option; nothing here lists a dataset by hand.

const models = new Map<string, Model>(
  [dummy, numeric, owners, docs, beers, matrix].map((model) => [(model.message.fields[0] as { message: DescMessage }).message.typeName, model as unknown as Model]),
);

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

function datasetOf(record: DescMessage): Dataset {
  const option = getOption(record, datasetOption);
  const model = models.get(record.typeName);
  if (!model) throw new Error(`dataset ${JSON.stringify(option.id)} (${record.typeName}) has no model in the browser worker`);
  return { ...model, id: option.id, description: option.description, recordMessage: record, lazyFields: [...option.lazyFields], bareList: option.bareList };
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
