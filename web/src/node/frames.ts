import { deserialize, serialize } from "node:v8";

// The pipe between the Node worker and a trial process: length-prefixed frames (4 bytes, big
// endian) of V8's structured-clone serialisation (node:v8 serialize), which carries what a Web
// Worker's postMessage carries — Uint8Arrays, bigints, nested objects — with no base64. The trial
// process reads its input from stdin and writes its messages (src/trial/entry.ts's TrialMessage)
// to stdout.

export function frame(value: unknown): Buffer {
  const body = serialize(value);
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length);
  return Buffer.concat([header, body]);
}

/**
 * Splits a byte stream into the values of its frames, in order; partial frames wait for more
 * bytes. Chunks are kept as they come and joined once per frame, so a payload of many MiB in 64 KiB
 * pipe chunks is copied once, not once per chunk.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Uint8Array): unknown[] {
    if (chunk.length) this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.size += chunk.length;
    const values: unknown[] = [];
    while (this.size >= 4) {
      const length = this.head().readUInt32BE(0);
      if (this.size < 4 + length) break;
      values.push(deserialize(this.take(4 + length).subarray(4)));
    }
    return values;
  }

  /** Bytes of an unfinished frame (a process that died mid-write). */
  get leftover(): number {
    return this.size;
  }

  /** The first chunk, holding at least the 4 header bytes. */
  private head(): Buffer {
    if (this.chunks[0]!.length < 4) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0]!;
  }

  /** The first n bytes, removed. */
  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const rest = joined.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.size -= n;
    return joined.subarray(0, n);
  }
}
