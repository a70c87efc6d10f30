import type { Dataset } from "../model/dataset";
import { fetchBlob } from "./blobs";
import type { WorkerClient } from "./client";

// Canonical records by blob id: fetched and converted to the native model once, outside any
// timed region. A few recent ones are kept, since encode and decode tasks reuse them.
const KEEP = 4;

export class CanonicalCache {
  private readonly entries = new Map<string, unknown[]>();

  constructor(private readonly client: WorkerClient) {}

  async records(dataset: Dataset, blobId: string, expectedSize: number): Promise<unknown[]> {
    const key = `${dataset.id}/${blobId}`;
    const cached = this.entries.get(key);
    if (cached) {
      // Most recently used goes last.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const bytes = await fetchBlob(this.client, blobId);
    if (expectedSize && bytes.length !== expectedSize) throw new Error(`blob ${blobId} has ${bytes.length} bytes, the task announced ${expectedSize}`);
    let records: unknown[];
    try {
      records = dataset.fromCanonical(bytes);
    } catch (error) {
      throw new Error(`blob ${blobId} is not a ${dataset.id} dataset message: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.entries.set(key, records);
    while (this.entries.size > KEEP) this.entries.delete(this.entries.keys().next().value!);
    return records;
  }
}
