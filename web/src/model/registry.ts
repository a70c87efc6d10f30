import { beers } from "./beers";
import type { Dataset, DatasetId } from "./dataset";
import { docs } from "./docs";
import { dummy } from "./dummy";
import { matrix } from "./matrix";
import { numeric } from "./numeric";
import { owners } from "./owners";

// Every dataset the worker knows, by id.
export const datasets: ReadonlyMap<string, Dataset> = new Map<DatasetId, Dataset>([
  ["dummy", dummy as Dataset],
  ["numeric", numeric as Dataset],
  ["owners", owners as Dataset],
  ["docs", docs as Dataset],
  ["beers", beers as Dataset],
  ["matrix", matrix as Dataset],
]);

export function datasetById(id: string): Dataset {
  const dataset = datasets.get(id);
  if (!dataset) throw new Error(`unknown dataset ${JSON.stringify(id)} (this worker knows ${[...datasets.keys()].join(", ")})`);
  return dataset;
}
