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

/** Splits a byte stream into the values of its frames, in order; partial frames wait for more bytes. */
export class FrameReader {
  private pending = Buffer.alloc(0);

  push(chunk: Uint8Array): unknown[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk);
    const values: unknown[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0);
      if (this.pending.length < 4 + length) break;
      values.push(deserialize(this.pending.subarray(4, 4 + length)));
      this.pending = this.pending.subarray(4 + length);
    }
    return values;
  }

  /** Bytes of an unfinished frame (a process that died mid-write). */
  get leftover(): number {
    return this.pending.length;
  }
}
