import { createHash } from "node:crypto";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { ConnectError, Code } from "@connectrpc/connect";
import { Operation, SamplingSchema } from "../src/gen/codecbench/v1/scenario_pb";
import {
  TaskSchema,
  WorkerInfoSchema,
  AbandonTaskSchema,
  WorkerService,
  type AttachRequest,
  type AttachResponseSchema,
  type ReportResultRequest,
  type Task,
} from "../src/gen/codecbench/v1/worker_service_pb";

// A WorkerService of control's shape for tests of the worker without the Rust binaries: a blob
// store keyed by SHA-256 with 1 MiB chunks, and an attach stream handing out queued tasks one at
// a time, each only after the previous one was reported.

export const CHUNK = 1 << 20;

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export class FakeControl {
  readonly blobs = new Map<string, Uint8Array>();
  readonly reports: ReportResultRequest[] = [];
  readonly attaches: AttachRequest[] = [];
  /** Each call but Attach: its method and the worker secret header it carried ("" for none). */
  readonly secrets: string[] = [];
  private readonly uploads = new Map<string, Uint8Array[]>();
  private readonly queue: Task[] = [];
  private readonly idle = new Set<() => void>();
  private readonly awaitingReport = new Map<string, () => void>();
  private readonly awaitingAbandon = new Map<string, (reason: string) => void>();
  private workers = 0;
  /** When set, the attach stream ends after this many tasks (to test reconnects). */
  dropAfterTasks = Infinity;
  /** This many reports are refused with UNAVAILABLE first (control could not store them). */
  unavailableReports = 0;
  refusedReports = 0;

  putBlob(data: Uint8Array): string {
    const id = sha256(data);
    this.blobs.set(id, data);
    return id;
  }

  /** Ends a task the worker is running, as CancelRun does: the stream says `abandon`. */
  abandon(taskId: string, reason: string): void {
    this.awaitingAbandon.get(taskId)?.(reason);
  }

  enqueue(...tasks: Task[]): void {
    this.queue.push(...tasks);
    for (const wake of this.idle) wake();
  }

  /** Resolves once `count` reports arrived in total. */
  async waitForReports(count: number, timeoutMs = 20_000): Promise<ReportResultRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.reports.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.reports.length} of ${count} reports arrived in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.reports.slice(0, count);
  }

  routes = (router: ConnectRouter): void => {
    router.service(WorkerService, {
      attach: (request, context) => this.attach(request, context),
      reportResult: async (request, context) => {
        this.saw("ReportResult", context);
        if (this.refusedReports < this.unavailableReports) {
          this.refusedReports++;
          throw new ConnectError("control could not store the result; report it again", Code.Unavailable);
        }
        this.reports.push(request);
        this.awaitingReport.get(request.taskId)?.();
        return {};
      },
      getBlob: (request, context) => (this.saw("GetBlob", context), this.getBlob(request.blobId, Number(request.offset))),
      putBlob: async (request, context) => {
        this.saw("PutBlob", context);
        if (request.data.length > CHUNK) throw new ConnectError(`chunk of ${request.data.length} bytes`, Code.InvalidArgument);
        const chunks = this.uploads.get(request.uploadId) ?? [];
        const sent = chunks.reduce((n, c) => n + c.length, 0);
        if (Number(request.offset) !== sent) throw new ConnectError(`offset ${request.offset}, expected ${sent}`, Code.InvalidArgument);
        chunks.push(new Uint8Array(request.data));
        this.uploads.set(request.uploadId, chunks);
        if (!request.finish) return { blobId: "", size: 0n };
        this.uploads.delete(request.uploadId);
        const whole = new Uint8Array(sent + request.data.length);
        let at = 0;
        for (const chunk of chunks) whole.set(chunk, at), (at += chunk.length);
        return { blobId: this.putBlob(whole), size: BigInt(whole.length) };
      },
    });
  };

  private saw(method: string, context: HandlerContext): void {
    this.secrets.push(`${method} ${context.requestHeader.get("codecbench-report-secret") ?? ""}`);
  }

  private async *getBlob(blobId: string, from: number): AsyncGenerator<{ data: Uint8Array; offset: bigint; totalSize: bigint }> {
    const blob = this.blobs.get(blobId);
    if (!blob) throw new ConnectError(`no blob ${blobId}`, Code.NotFound);
    if (blob.length === 0) yield { data: new Uint8Array(0), offset: 0n, totalSize: 0n };
    for (let offset = from; offset < blob.length; offset += CHUNK) {
      yield { data: blob.subarray(offset, offset + CHUNK), offset: BigInt(offset), totalSize: BigInt(blob.length) };
    }
  }

  private async *attach(request: AttachRequest, context: HandlerContext): AsyncGenerator<MessageInitShape<typeof AttachResponseSchema>> {
    this.attaches.push(request);
    const id = `${request.name}-${++this.workers}`;
    yield {
      message: { case: "attached", value: create(WorkerInfoSchema, { id, name: request.name, environment: request.environment, codecs: request.codecs }) },
      reportSecret: `secret-of-${id}`,
    };
    let sent = 0;
    while (!context.signal.aborted && sent < this.dropAfterTasks) {
      const task = this.queue.shift();
      if (!task) {
        await new Promise<void>((resolve) => {
          const wake = () => (this.idle.delete(wake), resolve());
          this.idle.add(wake);
          context.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        continue;
      }
      const done = new Promise<undefined>((resolve) => this.awaitingReport.set(task.id, () => resolve(undefined)));
      const abandoned = new Promise<string>((resolve) => this.awaitingAbandon.set(task.id, resolve));
      yield { message: { case: "task", value: task } };
      sent++;
      const ended = await Promise.race([done, abandoned, new Promise<undefined>((resolve) => context.signal.addEventListener("abort", () => resolve(undefined), { once: true }))]);
      this.awaitingReport.delete(task.id);
      this.awaitingAbandon.delete(task.id);
      if (ended !== undefined) yield { message: { case: "abandon", value: create(AbandonTaskSchema, { taskId: task.id, reason: ended }) } };
    }
  }
}

let taskCounter = 0;

/** A task as control would send it, with small sampling values. */
export function task(fields: {
  operation: Operation;
  dataset: string;
  codec: string;
  recordCount: number;
  canonical: { id: string; size: number };
  payload?: { id: string; size: number };
  decodeMode?: string;
  lazyFields?: string[];
  measureTransfer?: boolean;
  compressions?: string[];
  storePayload?: boolean;
  prepare?: boolean;
  trial?: number;
  sampling?: { warmupMs?: number; maxWarmupMs?: number; rounds?: number; minRoundMs?: number; taskTimeoutS?: number };
}): Task {
  return create(TaskSchema, {
    id: `task-${++taskCounter}`,
    runId: "run-1",
    operation: fields.operation,
    dataset: fields.dataset,
    codec: fields.codec,
    decodeMode: fields.decodeMode ?? (fields.operation === Operation.DECODE ? "typed" : ""),
    recordCount: fields.recordCount,
    canonicalBlobId: fields.canonical.id,
    canonicalBlobSize: BigInt(fields.canonical.size),
    payloadBlobId: fields.payload?.id ?? "",
    payloadBlobSize: BigInt(fields.payload?.size ?? 0),
    lazyFields: fields.lazyFields ?? [],
    sampling: create(SamplingSchema, { warmupMs: 5, maxWarmupMs: 300, rounds: 3, minRoundMs: 2, taskTimeoutS: 60, ...fields.sampling }),
    measureTransfer: fields.measureTransfer ?? false,
    compressions: fields.compressions ?? [],
    storePayload: fields.storePayload ?? fields.operation === Operation.ENCODE,
    prepare: fields.prepare ?? false,
    cellId: `cell-${fields.dataset}-${fields.codec}-${fields.decodeMode ?? ""}`,
    trial: fields.trial ?? 0,
    producerWorkerId: "rust-1",
  });
}
