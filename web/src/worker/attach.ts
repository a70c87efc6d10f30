import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { CodecInfoSchema, DatasetInfoSchema, RefusalSchema, TimedRegionSchema, type Environment } from "../gen/codecbench/v1/results_pb";
import type { AttachResponse, Task } from "../gen/codecbench/v1/worker_service_pb";
import { refusalsOf } from "../codecs/refusals";
import { codecs } from "../codecs/registry";
import { schemaFingerprint } from "../datasets/fingerprint";
import { allDatasets } from "../datasets/registry";
import { CanonicalCache } from "./canonical";
import { WorkerSecret, withWorkerSecret, type WorkerClient } from "./client";
import { COMPRESSIONS, runTask, type TaskOutcome } from "./task";
import type { TrialRunner } from "./trials";

// The worker's life: attach, run each task the stream brings, report it, and attach again when
// the stream drops (control restarted, network hiccup), with a growing pause.

export interface WorkerEvents {
  connecting(): void;
  attached(workerId: string): void;
  detached(reason: string, retryInMs: number): void;
  taskStarted(task: Task): void;
  step(task: Task, step: string): void;
  taskFinished(task: Task, outcome: TaskOutcome, reported: boolean): void;
  error(message: string): void;
}

export interface WorkerOptions {
  client: WorkerClient;
  /** Set to each attachment's report secret; by default one of runWorker's own. */
  secret?: WorkerSecret;
  name: string;
  environment: Environment;
  events: WorkerEvents;
  /** How trials run: a fresh Web Worker each in the page (webWorkerTrials). */
  trials: TrialRunner;
  signal?: AbortSignal;
  firstRetryMs?: number;
  maxRetryMs?: number;
  /** First pause before reporting a result again after UNAVAILABLE (then doubling). */
  firstReportRetryMs?: number;
  /** Clock diagnostics for the legs the attached process times (default: the page's). */
  legExtras?: () => Record<string, number>;
  /** Added to a codec's timed-region notes (codecAnnouncements): what this runtime does differently. */
  runtimeNotes?: Readonly<Record<string, string>>;
}

const REPORT_ATTEMPTS = 6;

/**
 * Every codec's CodecInfo. `runtimeNotes` (codec id → text), where the runtime changes what a
 * timed region runs (the Node worker's native paths, src/node/native.ts), is added to each of that
 * codec's region notes, so the report's timed-region table says it per language.
 */
export function codecAnnouncements(runtimeNotes: Readonly<Record<string, string>> = {}) {
  return [...codecs.values()].map(({ info }) =>
    create(CodecInfoSchema, {
      id: info.id,
      mediaType: info.mediaType,
      decodeModes: [...info.decodeModes],
      library: info.library,
      libraryVersion: info.libraryVersion,
      notes: info.notes,
      timedRegions: info.timedRegions.map((region) =>
        create(TimedRegionSchema, { operation: region.operation, contains: [...region.contains], note: runtimeNotes[info.id] ? `${region.note}; ${runtimeNotes[info.id]}` : region.note }),
      ),
    }),
  );
}

/**
 * Every dataset the page carries (the built-ins and the user's), with its record schema's
 * fingerprint computed here from the descriptors (control refuses a run whose datasets a worker
 * lacks or reads with another schema), its field names, and what the page refuses to run on it.
 */
export async function datasetAnnouncements() {
  return Promise.all(
    allDatasets().map(async (dataset) =>
      create(DatasetInfoSchema, {
        id: dataset.id,
        message: dataset.recordMessage.typeName,
        fingerprint: await schemaFingerprint(dataset.recordMessage),
        fieldNames: dataset.fieldNames,
        refused: refusalsOf(dataset).map((refusal) => create(RefusalSchema, { dataset: dataset.id, ...refusal })),
      }),
    ),
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

export async function runWorker(options: WorkerOptions): Promise<void> {
  const { client, events, signal } = options;
  const firstRetryMs = options.firstRetryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  // Blob calls (the canonical records', the task's) name this worker once attached.
  const secret = options.secret ?? new WorkerSecret();
  const blobClient = withWorkerSecret(client, secret);
  const canonical = new CanonicalCache(blobClient);
  const request = { name: options.name, environment: options.environment, codecs: codecAnnouncements(options.runtimeNotes), compressions: COMPRESSIONS, datasets: await datasetAnnouncements() };
  let retryMs = firstRetryMs;
  while (!signal?.aborted) {
    let reason = "control closed the stream";
    try {
      events.connecting();
      secret.value = "";
      let workerId = "";
      // Sent with `attached`; every report of this attachment carries it (control refuses others).
      let reportSecret = "";
      // The stream is read while a task runs too, so that control can ask to abandon it: at most
      // one `next()` is outstanding, kept in `pending` until its message is handled.
      const stream = client.attach(request, { signal })[Symbol.asyncIterator]();
      let pending: Promise<IteratorResult<AttachResponse>> | undefined;
      const next = () => (pending ??= stream.next());
      for (;;) {
        const item = await next();
        pending = undefined;
        if (item.done) break;
        const response = item.value;
        const message = response.message;
        if (message.case === "attached") {
          workerId = message.value.id;
          reportSecret = response.reportSecret;
          secret.value = reportSecret;
          retryMs = firstRetryMs;
          events.attached(workerId);
        } else if (message.case === "abandon") {
          events.error(`control abandoned task ${message.value.taskId}, which this page is not running`);
        } else if (message.case === "task") {
          const task = message.value;
          if (!workerId) throw new Error(`control sent task ${task.id} before saying which worker this is`);
          events.taskStarted(task);
          const abandon = new AbortController();
          const running = runTask(task, {
            client: blobClient,
            canonical,
            environment: options.environment,
            trials: options.trials,
            onStep: (name) => events.step(task, name),
            signal: abandon.signal,
            ...(options.legExtras ? { legExtras: options.legExtras } : {}),
          });
          let outcome: TaskOutcome | undefined;
          try {
            while (outcome === undefined) {
              const first = await Promise.race([running.then((done) => ({ done })), next().then((seen) => ({ seen }))]);
              if ("done" in first) {
                outcome = first.done;
                break;
              }
              pending = undefined;
              if (first.seen.done) throw new Error(`control closed the stream while task ${task.id} ran`);
              const seen = first.seen.value.message;
              if (seen.case === "abandon" && seen.value.taskId === task.id) {
                abandon.abort();
                await running;
                events.error(`task ${task.id} abandoned: ${seen.value.reason}`);
                break;
              }
              events.error(`ignored a ${seen.case ?? "empty"} message while task ${task.id} runs`);
            }
          } finally {
            // Whatever ended the wait (an abandon, a lost stream), the trial stops too.
            if (outcome === undefined) abandon.abort();
          }
          if (outcome === undefined) {
            // Control has ended the task and refuses its report: nothing to send.
            events.taskFinished(task, { measurements: [], payloadBlobId: "", payloadBlobSize: 0n, failure: "abandoned: control ended the task", phaseMs: {}, trialCpus: "" }, false);
            continue;
          }
          // UNAVAILABLE: control is down or could not store the result yet, so a measured result
          // is reported again (growing pauses) rather than dropped; any other refusal is final.
          let reported = false;
          let pauseMs = options.firstReportRetryMs ?? 500;
          for (let attempt = 1; !reported && !signal?.aborted; attempt++) {
            try {
              await client.reportResult({ workerId, reportSecret, taskId: task.id, ...outcome }, { signal });
              reported = true;
            } catch (error) {
              const unavailable = ConnectError.from(error).code === Code.Unavailable;
              if (!unavailable || attempt >= REPORT_ATTEMPTS) {
                events.error(`report failed for task ${task.id}: ${describe(error)}`);
                break;
              }
              events.error(`report of task ${task.id} not stored (${describe(error)}); retrying in ${pauseMs} ms`);
              await sleep(pauseMs, signal);
              pauseMs = Math.min(pauseMs * 2, maxRetryMs);
            }
          }
          events.taskFinished(task, outcome, reported);
        }
      }
    } catch (error) {
      if (signal?.aborted) break;
      reason = `connection lost: ${describe(error)}`;
    }
    if (signal?.aborted) break;
    events.detached(reason, retryMs);
    await sleep(retryMs, signal);
    retryMs = Math.min(retryMs * 2, maxRetryMs);
  }
}
