import { Worker } from "node:worker_threads";

// A decode that never returns cannot be interrupted from the thread running it, so a watchdog on
// its own thread prints the case and kills the test process (fuzz.test.ts, fixtures.test.ts).
// It writes with writeSync: a worker's process.stderr is forwarded by the (blocked) main thread.
const WATCHDOG = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const since = new Int32Array(workerData.since);
const info = new Uint8Array(workerData.info);
setInterval(() => {
  const begun = Atomics.load(since, 0);
  if (begun === 0 || Date.now() - workerData.epoch - begun < workerData.limitMs) return;
  const view = new DataView(info.buffer);
  const header = Buffer.from(info.subarray(8, 8 + view.getUint32(0, true))).toString();
  const body = Buffer.from(info.subarray(8 + view.getUint32(0, true), 8 + view.getUint32(0, true) + view.getUint32(4, true))).toString("hex");
  writeSync(2, workerData.label + ": a decode hung for " + workerData.limitMs + " ms: " + header + ", payload " + body + "; killing the test process\\n");
  process.kill(process.pid, "SIGKILL");
}, 250);
`;

export class Watchdog {
  // When the running decode began, in ms since `epoch` (0: none running); Int32 + Atomics, so the
  // watchdog never reads a half-written value.
  private readonly since = new Int32Array(new SharedArrayBuffer(4));
  private readonly epoch = Date.now() - 1;
  private readonly info = new Uint8Array(new SharedArrayBuffer(8 + 1024 + 65536));
  private readonly view = new DataView(this.info.buffer);
  private readonly worker: Worker;
  /** `label` starts the line it prints; a decode running longer than `limitMs` is a hang. */
  constructor(label: string, limitMs: number) {
    this.worker = new Worker(WATCHDOG, { eval: true, workerData: { since: this.since.buffer, epoch: this.epoch, info: this.info.buffer, limitMs, label } });
    this.worker.unref();
  }
  begin(header: string, payload: Uint8Array): void {
    const head = new TextEncoder().encode(header).subarray(0, 1024);
    const body = payload.subarray(0, 65536);
    this.view.setUint32(0, head.length, true);
    this.view.setUint32(4, body.length, true);
    this.info.set(head, 8);
    this.info.set(body, 8 + head.length);
    Atomics.store(this.since, 0, Date.now() - this.epoch);
  }
  end(): void {
    Atomics.store(this.since, 0, 0);
  }
  close(): Promise<number> {
    return this.worker.terminate();
  }
}
