import { create } from "@bufbuild/protobuf";
import { MeasurementSchema, type Environment, type Measurement } from "../gen/codecbench/v1/results_pb";
import { Operation } from "../gen/codecbench/v1/scenario_pb";
import type { Task } from "../gen/codecbench/v1/worker_service_pb";
import { refusalOf } from "../codecs/refusals";
import { datasetById, userDatasetSource } from "../datasets/registry";
import { StepError, describe, step } from "../trial/step";
import type { TrialInput, TrialResult } from "../trial/trial";
import { fetchBlob, putBlob, sha256Hex } from "./blobs";
import type { CanonicalCache } from "./canonical";
import type { WorkerClient } from "./client";
import { Laps, type PhaseMs } from "./laps";
import { DEFAULT_MAX_WARMUP_MS, measureAsync, type Sample, type Sampling } from "./timing";
import type { TrialRunner } from "./trials";

// One task of the worker protocol (proto/README.md) as the attached page runs it: the page fetches
// the canonical blob and the payload, times the upload/download legs itself, and runs the trial
// (verification + timing of the codec) in a fresh dedicated Web Worker through `trials`. Every
// failure message starts with the step that failed. Where the task's time goes (proto/README.md
// "Where the time goes") is lapped as the Rust worker does (rust/worker/src/task.rs): fetch,
// transfer and process here, the trial's own phases merged in, total from receiving the task.

export interface TaskOutcome {
  measurements: Measurement[];
  payloadBlobId: string;
  payloadBlobSize: bigint;
  failure: string;
  /** ReportResultRequest.phase_ms: the task's time by phase in ms (phases that did not happen are absent). */
  phaseMs: PhaseMs;
  /** ReportResultRequest.trial_cpus: where the trial's processes could run, as the driver read it; "" if not known. */
  trialCpus: string;
}

export interface TaskContext {
  client: WorkerClient;
  canonical: CanonicalCache;
  environment: Environment;
  trials: TrialRunner;
  /** Told each step as it starts, for the page. */
  onStep?: (step: string) => void;
  /** Set when control ends the task (abandon): the trial in flight is stopped. */
  signal?: AbortSignal;
  /** Clock diagnostics for the legs the attached process times itself (default: the page's, pageExtras). */
  legExtras?: () => Record<string, number>;
}

/** A trial's own failure message, which already starts with its step. */
class TrialFailure extends Error {}

// Used when a task carries no timeout (control always sends one).
const DEFAULT_TASK_TIMEOUT_S = 300;

function measurement(task: Task, context: TaskContext, operation: Operation, payloadBytes: number, sample: Sample, extras: Record<string, number>): Measurement {
  return create(MeasurementSchema, {
    // Identity is control's to fill; copied here so the page can show its own results.
    runId: task.runId,
    taskId: task.id,
    dataset: task.dataset,
    codec: task.codec,
    decodeMode: operation === Operation.DECODE ? task.decodeMode : "",
    recordCount: task.recordCount,
    cellId: task.cellId,
    trial: task.trial,
    // The worker's language: "browser" for the page, "node" for the Node worker (src/node/).
    language: context.environment.language,
    operation,
    payloadBytes: BigInt(payloadBytes),
    roundNsPerOp: sample.roundNsPerOp,
    opsPerRound: BigInt(sample.opsPerRound),
    steady: sample.steady,
    verified: true,
    ...(sample.allocBytesPerOp !== undefined ? { allocBytesPerOp: sample.allocBytesPerOp } : {}),
    environment: context.environment,
    extras: {
      warmup_ms: sample.warmupMs, warmup_rounds: sample.warmupRounds, calibration_ms: sample.calibrationMs, rounds_ms: sample.roundsMs,
      ...(sample.peakHeapBytes !== undefined ? { peak_heap_bytes: sample.peakHeapBytes } : {}),
      ...extras,
    },
  });
}

function sampling(task: Task): Sampling {
  const s = task.sampling;
  if (!s) throw new StepError("task", "the task carries no sampling");
  return { warmupMs: s.warmupMs, maxWarmupMs: s.maxWarmupMs || DEFAULT_MAX_WARMUP_MS, rounds: s.rounds, minRoundMs: s.minRoundMs };
}

/** The page's own clock diagnostics, for the legs it times itself. */
function pageExtras(context: TaskContext): Record<string, number> {
  if (context.legExtras) return context.legExtras();
  const resolution = Number(context.environment.details["timerResolutionUs"]);
  const extras: Record<string, number> = { cross_origin_isolated: globalThis.crossOriginIsolated === true ? 1 : 0, jit_observable: 0 };
  if (Number.isFinite(resolution)) extras.timer_resolution_us = resolution;
  return extras;
}

async function runTrialStep(task: Task, context: TaskContext, laps: Laps, outcome: TaskOutcome, input: TrialInput): Promise<TrialResult & { sample: Sample; trialExtras: Record<string, number> }> {
  const { result, startMs, totalMs } = await runUntimedTrialStep(task, context, laps, outcome, input);
  if (!result.sample) throw new StepError("trial", "the trial worker answered without a measurement");
  const trialExtras = { ...result.extras, worker_start_ms: startMs, trial_ms: totalMs };
  return { ...result, sample: result.sample, trialExtras };
}

/**
 * The trial run itself; a prepare trial answers without a sample. `process` is the run as this
 * page sees it (TrialRun.totalMs and the await around it: a fresh Web Worker, or a fresh page of
 * the driver's Chromium, launch and settling included); the trial's own phases are merged in,
 * a failed trial's too, and where it ran (trial_cpus).
 */
async function runUntimedTrialStep(task: Task, context: TaskContext, laps: Laps, outcome: TaskOutcome, input: TrialInput) {
  context.onStep?.("trial");
  const timeoutMs = (task.sampling?.taskTimeoutS || DEFAULT_TASK_TIMEOUT_S) * 1000;
  laps.lap("fetch");
  const run = await context.trials(input, timeoutMs, context.signal);
  laps.lap("process");
  laps.merge(run.result.phaseMs);
  outcome.trialCpus = run.result.trialCpus ?? "";
  if (run.result.failure) throw new TrialFailure(run.result.failure);
  return run;
}

async function canonicalCopy(task: Task, context: TaskContext, laps: Laps): Promise<Uint8Array> {
  // A copy per trial: its buffer is transferred to the trial worker, the cached bytes stay here.
  const bytes = await step("canonical records", async () => (await context.canonical.bytes(task.canonicalBlobId, Number(task.canonicalBlobSize))).slice(), context.onStep);
  laps.lap("fetch");
  return bytes;
}

/**
 * Control's pass (trial k of every cell) in this run; prepare tasks, which time nothing, a launch
 * of their own. With lanes, the lane's CPUs too: a launch is pinned to one lane's CPUs, so the
 * tasks of one pass in different lanes get different launches.
 */
function launchKey(task: Task): string {
  const pass = task.prepare ? `${task.runId}/prepare` : `${task.runId}/trial-${task.trial}`;
  return task.cpus.length ? `${pass}/cpus-${task.cpus.join(",")}` : pass;
}

function trialInput(task: Task, operation: "encode" | "decode", canonical: Uint8Array, payload?: Uint8Array): TrialInput {
  // A user's dataset travels with the trial: its context has only what the input carries.
  const userDataset = userDatasetSource(task.dataset);
  return {
    taskId: task.id,
    operation,
    dataset: task.dataset,
    codec: task.codec,
    decodeMode: task.decodeMode,
    recordCount: task.recordCount,
    lazyFields: [...task.lazyFields],
    sampling: sampling(task),
    canonical,
    ...(payload ? { payload } : {}),
    launchKey: launchKey(task),
    ...(task.cpus.length ? { cpus: [...task.cpus] } : {}),
    ...(userDataset ? { userDataset } : {}),
    blobs: {
      canonical: { id: task.canonicalBlobId, size: Number(task.canonicalBlobSize) },
      ...(payload && task.payloadBlobId ? { payload: { id: task.payloadBlobId, size: payload.length } } : {}),
    },
  };
}

async function storePayload(context: TaskContext, laps: Laps, payload: Uint8Array, outcome: TaskOutcome): Promise<void> {
  const stored = await step("upload", () => putBlob(context.client, payload), context.onStep);
  laps.lap("fetch");
  outcome.payloadBlobId = stored.blobId;
  outcome.payloadBlobSize = BigInt(stored.size);
}

/** A prepare task: encode, verify, store and report the payload; nothing timed, no measurement. */
async function prepareTask(task: Task, context: TaskContext, laps: Laps, outcome: TaskOutcome): Promise<void> {
  if (!task.storePayload) throw new StepError("task", "a prepare task must store its payload (store_payload is false)");
  const canonical = await canonicalCopy(task, context, laps);
  // Run like a trial (same code, same worker) but told to time nothing.
  const { result } = await runUntimedTrialStep(task, context, laps, outcome, { ...trialInput(task, "encode", canonical), prepare: true });
  if (!result.payload) throw new StepError("encode", "the trial worker returned no payload");
  await storePayload(context, laps, result.payload, outcome);
}

/**
 * Compressions the page can time a transfer leg with besides identity (Scenario.compressions): none.
 * connect-web's gRPC-web transport has no message compression, and a page cannot choose the HTTP
 * compression of a fetch (Accept-Encoding is the browser's), so the page offers identity only.
 */
export const COMPRESSIONS: string[] = [];

/** Fails a task whose transfer leg asks for a compression the page does not offer (control never sends one). */
function checkCompressions(task: Task, context: TaskContext, leg: string): void {
  const other = task.compressions.find((c) => c !== "identity" && !COMPRESSIONS.includes(c));
  if (task.measureTransfer && other !== undefined) {
    // The Node worker shares this code and offers none yet either (connect-node could compress).
    const why = context.environment.language === "browser" ? ": connect-web's gRPC-web transport does not compress" : "";
    throw new StepError(leg, `the ${context.environment.language} worker offers no compression "${other}" (it offers identity only${why})`);
  }
}

async function encodeTask(task: Task, context: TaskContext, laps: Laps, outcome: TaskOutcome): Promise<void> {
  if (task.prepare) return prepareTask(task, context, laps, outcome);
  checkCompressions(task, context, "upload");
  const canonical = await canonicalCopy(task, context, laps);
  const trial = await runTrialStep(task, context, laps, outcome, trialInput(task, "encode", canonical));
  const payload = trial.payload;
  if (!payload) throw new StepError("encode", "the trial worker returned no payload");
  outcome.measurements.push(measurement(task, context, Operation.ENCODE, payload.length, trial.sample, trial.trialExtras));
  if (task.storePayload) await storePayload(context, laps, payload, outcome);
  if (task.measureTransfer) {
    // One op = one whole PutBlob upload (control stores the same content under the same id).
    const sample = await step("upload", () => measureAsync(() => putBlob(context.client, payload, { verify: false }), sampling(task)), context.onStep);
    laps.lap("transfer");
    outcome.measurements.push(measurement(task, context, Operation.UPLOAD, payload.length, sample, pageExtras(context)));
  }
}

async function decodeTask(task: Task, context: TaskContext, laps: Laps, outcome: TaskOutcome): Promise<void> {
  if (!task.payloadBlobId) throw new StepError("download", "the task names no payload blob");
  checkCompressions(task, context, "download");
  const canonical = await canonicalCopy(task, context, laps);
  const payload = await step(
    "download",
    async () => {
      const bytes = await fetchBlob(context.client, task.payloadBlobId);
      const size = Number(task.payloadBlobSize);
      if (size && bytes.length !== size) throw new Error(`payload ${task.payloadBlobId} has ${bytes.length} bytes, the task announced ${size}`);
      const digest = await sha256Hex(bytes);
      if (digest !== null && digest !== task.payloadBlobId) throw new Error(`payload ${task.payloadBlobId} arrived with SHA-256 ${digest}`);
      return bytes;
    },
    context.onStep,
  );
  laps.lap("fetch");
  const payloadBytes = payload.length;
  if (task.measureTransfer) {
    // One op = fetching the whole blob into memory.
    const sample = await step("download", () => measureAsync(() => fetchBlob(context.client, task.payloadBlobId), sampling(task)), context.onStep);
    laps.lap("transfer");
    outcome.measurements.push(measurement(task, context, Operation.DOWNLOAD, payloadBytes, sample, pageExtras(context)));
  }
  // The payload's buffer moves to the trial worker.
  const trial = await runTrialStep(task, context, laps, outcome, trialInput(task, "decode", canonical, payload));
  outcome.measurements.push(measurement(task, context, Operation.DECODE, payloadBytes, trial.sample, trial.trialExtras));
}

/** A cell the page announced it refuses: control plans none, so one arriving fails before any trial. */
function checkNotRefused(task: Task): void {
  let dataset;
  try {
    dataset = datasetById(task.dataset);
  } catch {
    return; // the trial names the unknown dataset
  }
  const mode = task.operation === Operation.DECODE ? task.decodeMode : "";
  const refusal = refusalOf(dataset, task.codec, mode);
  if (refusal) throw new StepError("task", `this worker refused ${task.codec}${mode ? ` ${mode}` : ""} on dataset ${task.dataset} when it attached: ${refusal.reason}`);
}

/**
 * Runs one task to its outcome; never throws (a failure is part of the outcome, with the phases
 * measured so far). Called as the task arrives: `total` runs from here to the outcome, which the
 * caller sends at once.
 */
export async function runTask(task: Task, context: TaskContext): Promise<TaskOutcome> {
  const start = performance.now();
  const laps = new Laps();
  const outcome: TaskOutcome = { measurements: [], payloadBlobId: "", payloadBlobSize: 0n, failure: "", phaseMs: {}, trialCpus: "" };
  try {
    checkNotRefused(task);
    switch (task.operation) {
      case Operation.ENCODE:
        await encodeTask(task, context, laps, outcome);
        break;
      case Operation.DECODE:
        if (task.prepare) throw new StepError("task", "only encode tasks can be prepare tasks");
        await decodeTask(task, context, laps, outcome);
        break;
      default:
        throw new StepError("task", `operation ${Operation[task.operation] ?? task.operation} is not one a worker runs`);
    }
  } catch (error) {
    outcome.failure = error instanceof StepError || error instanceof TrialFailure ? error.message : `task failed: ${describe(error)}`;
  }
  laps.add("total", performance.now() - start);
  outcome.phaseMs = laps.phases();
  return outcome;
}
