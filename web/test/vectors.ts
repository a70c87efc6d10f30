import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { fileExtension, vectorFile } from "../src/codecs/catalogue";
import { formatOf } from "../src/codecs/codec";
import { datasets } from "../src/datasets/registry";

// The golden vectors in codecs/vectors/: <dataset>.pb (canonical records, seed 1) and
// <dataset>.<language>.<ext>, each language's payload of those records (`.browser` ones are
// written by `npm run vectors`), the datasets' schema fingerprints, and the catalogue
// codecs/catalogue.yaml.

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const vectorsDir = `${repoRoot}codecs/vectors/`;
export const datasetIds: string[] = [...datasets.keys()];

function read(path: string): Uint8Array {
  if (!existsSync(path)) throw new Error(`missing test vector ${path} (codecs/vectors/ is made by each language's vector command)`);
  return new Uint8Array(readFileSync(path));
}

/** The canonical records of a dataset, as control ships them. */
export function canonicalPb(dataset: string): Uint8Array {
  return read(`${vectorsDir}${dataset}.pb`);
}

/** One language's payload of the canonical records. */
export function vector(dataset: string, codec: string, language = "rust"): Uint8Array {
  return read(`${vectorsDir}${vectorFile(dataset, formatOf(codec), language)}`);
}

/** The languages that have a vector for this dataset and codec, e.g. ["browser", "java", "rust"]. */
export function vectorLanguages(dataset: string, codec: string): string[] {
  const ext = fileExtension(formatOf(codec));
  return readdirSync(vectorsDir)
    .map((name) => name.split("."))
    .filter((parts) => parts.length === 3 && parts[0] === dataset && parts[2] === ext)
    .map((parts) => parts[1]!)
    .sort();
}

/** codecs/vectors/fingerprints.json: each built-in dataset's record message and schema fingerprint, from the harness's reference implementation. */
export function fingerprints(): Record<string, { message: string; fingerprint: string }> {
  return JSON.parse(new TextDecoder().decode(read(`${vectorsDir}fingerprints.json`))) as Record<string, { message: string; fingerprint: string }>;
}

export interface CatalogueEntry {
  id: string;
  deterministic: boolean;
  /** language -> decode modes */
  modes: Map<string, string[]>;
}

/** codecs/catalogue.yaml, read as far as these tests need (id, deterministic, each language's modes). */
export function catalogue(): CatalogueEntry[] {
  const file = parse(readFileSync(`${repoRoot}codecs/catalogue.yaml`, "utf8")) as {
    codecs: { id: string; deterministic?: boolean; implementations: Record<string, { modes: string[] }> }[];
  };
  return file.codecs.map((entry) => ({
    id: entry.id,
    deterministic: entry.deterministic === true,
    modes: new Map(Object.entries(entry.implementations).map(([language, implementation]) => [language, implementation.modes])),
  }));
}
