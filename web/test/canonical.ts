import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { DatasetId } from "../src/model/dataset";

// The Rust-made test vectors in codecs/canonical/: <dataset>.pb (canonical records, seed 1) and
// the Rust codecs' payloads of the same records.

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const canonicalDir = `${repoRoot}codecs/canonical/`;
export const datasetIds: DatasetId[] = ["dummy", "numeric", "owners", "docs", "beers", "matrix"];

export function vector(dataset: DatasetId, extension: "pb" | "json" | "bson"): Uint8Array {
  const path = `${canonicalDir}${dataset}.${extension}`;
  if (!existsSync(path)) throw new Error(`missing test vector ${path} (made by the Rust worker: make vectors)`);
  return new Uint8Array(readFileSync(path));
}
