import type { WorkerClient } from "./client";

// Blobs move in chunks of at most 1 MiB (GetBlob server stream, PutBlob unary calls), so no
// gRPC message nears the 4 MiB limit.

export const CHUNK_BYTES = 1 << 20;

/** Fetches a whole blob into one buffer, checking offsets and the announced size. */
export async function fetchBlob(client: WorkerClient, blobId: string, signal?: AbortSignal): Promise<Uint8Array> {
  let buffer: Uint8Array | undefined;
  let received = 0;
  for await (const chunk of client.getBlob({ blobId, offset: 0n }, { signal })) {
    const total = Number(chunk.totalSize);
    buffer ??= new Uint8Array(total);
    if (total !== buffer.length) throw new Error(`blob ${blobId}: total size changed from ${buffer.length} to ${total} mid-stream`);
    if (Number(chunk.offset) !== received) throw new Error(`blob ${blobId}: chunk at offset ${chunk.offset}, expected ${received}`);
    if (chunk.data.length > CHUNK_BYTES) throw new Error(`blob ${blobId}: chunk of ${chunk.data.length} bytes exceeds 1 MiB`);
    if (received + chunk.data.length > total) throw new Error(`blob ${blobId}: more than the announced ${total} bytes`);
    buffer.set(chunk.data, received);
    received += chunk.data.length;
  }
  buffer ??= new Uint8Array(0);
  if (received !== buffer.length) throw new Error(`blob ${blobId}: stream ended after ${received} of ${buffer.length} bytes`);
  return buffer;
}

function randomUploadId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 as lowercase hex, the blob id control uses; null where WebCrypto is unavailable. */
export async function sha256Hex(data: Uint8Array): Promise<string | null> {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Uploads `data` in 1 MiB chunks under one random upload id and returns the stored blob's id.
 * `verify: false` skips the SHA-256 check of the answer (timed uploads: verification is never timed).
 */
export async function putBlob(client: WorkerClient, data: Uint8Array, options: { signal?: AbortSignal; verify?: boolean } = {}): Promise<{ blobId: string; size: number }> {
  const { signal, verify = true } = options;
  const uploadId = randomUploadId();
  let offset = 0;
  for (;;) {
    const end = Math.min(offset + CHUNK_BYTES, data.length);
    const finish = end === data.length;
    const response = await client.putBlob({ uploadId, offset: BigInt(offset), data: data.subarray(offset, end), finish }, { signal });
    offset = end;
    if (!finish) continue;
    if (!response.blobId) throw new Error(`control answered the final chunk without a blob id`);
    if (Number(response.size) !== data.length) throw new Error(`control stored ${response.size} bytes, ${data.length} were sent`);
    if (!verify) return { blobId: response.blobId, size: data.length };
    const expected = await sha256Hex(data);
    if (expected !== null && expected !== response.blobId) throw new Error(`control stored blob ${response.blobId}, but the payload's SHA-256 is ${expected}`);
    return { blobId: response.blobId, size: data.length };
  }
}
