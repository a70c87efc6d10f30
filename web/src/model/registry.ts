import { beers } from "./beers";
import type { Dataset, DatasetId } from "./dataset";
import { docs } from "./docs";
import { dummy } from "./dummy";
import { matrix } from "./matrix";
import { numeric } from "./numeric";
import { owners } from "./owners";

// Every dataset the worker knows, by id.
export const datasets: ReadonlyMap<string, Dataset> = new Map<DatasetId, Dataset>([
  ["dummy", dummy as unknown as Dataset],
  ["numeric", numeric as unknown as Dataset],
  ["owners", owners as unknown as Dataset],
  ["docs", docs as unknown as Dataset],
  ["beers", beers as unknown as Dataset],
  ["matrix", matrix as unknown as Dataset],
]);

export function datasetById(id: string): Dataset {
  const dataset = datasets.get(id);
  if (!dataset) throw new Error(`unknown dataset ${JSON.stringify(id)} (this worker knows ${[...datasets.keys()].join(", ")})`);
  return dataset;
}
