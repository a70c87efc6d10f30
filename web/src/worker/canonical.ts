import { fetchBlob } from "./blobs";
import type { WorkerClient } from "./client";

// Canonical blobs by id: fetched once and kept as bytes (each trial converts them to model records
// in its own worker, outside timing). A few recent ones are kept, since a cell's trials and the
// encode and decode tasks of a dataset reuse them.
const KEEP = 4;

export class CanonicalCache {
  private readonly entries = new Map<string, Uint8Array>();

  constructor(private readonly client: WorkerClient) {}

  async bytes(blobId: string, expectedSize: number): Promise<Uint8Array> {
    const cached = this.entries.get(blobId);
    if (cached) {
      // Most recently used goes last.
      this.entries.delete(blobId);
      this.entries.set(blobId, cached);
      return cached;
    }
    const bytes = await fetchBlob(this.client, blobId);
    if (expectedSize && bytes.length !== expectedSize) throw new Error(`blob ${blobId} has ${bytes.length} bytes, the task announced ${expectedSize}`);
    this.entries.set(blobId, bytes);
    while (this.entries.size > KEEP) this.entries.delete(this.entries.keys().next().value!);
    return bytes;
  }
}
