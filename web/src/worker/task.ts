import { create } from "@bufbuild/protobuf";
import { decodeRecords, type DecodeMode } from "../codecs/codec";
import { codecById } from "../codecs/registry";
import { readLazyField, type Dataset } from "../model/dataset";
import { compareRecords } from "../model/compare";
import { datasetById } from "../model/registry";
import { MeasurementSchema, type Environment, type Measurement } from "../gen/codecbench/v1/results_pb";
import { Operation } from "../gen/codecbench/v1/scenario_pb";
import type { Task } from "../gen/codecbench/v1/worker_service_pb";
import { fetchBlob, putBlob, sha256Hex } from "./blobs";
import type { CanonicalCache } from "./canonical";
import type { WorkerClient } from "./client";
import { measureAsync, measureSync, type Sample } from "./timing";

// One task of the worker protocol (proto/README.md): canonical records, verification before
// timing, then the timing loop; every failure message starts with the step that failed.

export interface TaskOutcome {
  measurements: Measurement[];
  payloadBlobId: string;
  payloadBlobSize: bigint;
  failure: string;
}

export interface TaskContext {
  client: WorkerClient;
  canonical: CanonicalCache;
  environment: Environment;
  /** Told each step as it starts, for the page. */
  onStep?: (step: string) => void;
}

/** An error that already says which step failed. */
export class StepError extends Error {
  constructor(readonly step: string, detail: string) {
    super(`${step} failed: ${detail}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function step<T>(name: string, context: TaskContext, work: () => T | Promise<T>): Promise<T> {
  context.onStep?.(name);
  try {
    return await work();
  } catch (error) {
    throw error instanceof StepError ? error : new StepError(name, describe(error));
  }
}

function measurement(task: Task, context: TaskContext, operation: Operation, payloadBytes: number, sample: Sample, verified: boolean, resolutionUs?: number): Measurement {
  const extras: Record<string, number> = { warmup_ms: sample.warmupMs, warmup_ops: sample.warmupOps };
  if (resolutionUs !== undefined) extras.timer_resolution_us = resolutionUs;
  return create(MeasurementSchema, {
    // Identity is control's to fill; copied here so the page can show its own results.
    runId: task.runId,
    taskId: task.id,
    dataset: task.dataset,
    codec: task.codec,
    decodeMode: operation === Operation.DECODE ? task.decodeMode : "",
    recordCount: task.recordCount,
    language: "browser",
    operation,
    payloadBytes: BigInt(payloadBytes),
    roundNsPerOp: sample.roundNsPerOp,
    opsPerRound: BigInt(sample.opsPerRound),
    verified,
    environment: context.environment,
    extras,
  });
}

function sampling(task: Task) {
  const s = task.sampling;
  if (!s) throw new Error("the task carries no sampling");
  return { warmupMs: s.warmupMs, rounds: s.rounds, minRoundMs: s.minRoundMs };
}

function timerResolution(context: TaskContext): number | undefined {
  const value = Number(context.environment.details["timerResolutionUs"]);
  return Number.isFinite(value) ? value : undefined;
}

async function canonicalRecords(task: Task, context: TaskContext, dataset: Dataset): Promise<unknown[]> {
  return step("canonical records", context, async () => {
    const records = await context.canonical.records(dataset, task.canonicalBlobId, Number(task.canonicalBlobSize));
    if (records.length !== task.recordCount) throw new Error(`the canonical blob has ${records.length} records, the task says ${task.recordCount}`);
    return records;
  });
}

async function encodeTask(task: Task, context: TaskContext, outcome: TaskOutcome): Promise<void> {
  const [dataset, codec] = await step("encode", context, () => [datasetById(task.dataset), codecById(task.codec)] as const);
  const records = await canonicalRecords(task, context, dataset);
  const prepared = await step("encode", context, () => codec.prepare(dataset));
  // The codec's input form is made once, before timing (model conversion is never timed).
  const wire = await step("encode", context, () => prepared.toWire(records));
  const payload = await step("encode", context, () => prepared.encode(wire));
  await step("verification", context, () => {
    let decoded: unknown[];
    try {
      decoded = decodeRecords(prepared, payload);
    } catch (error) {
      throw new Error(`the payload does not decode back: ${describe(error)}`);
    }
    const diff = compareRecords(dataset.record, records, decoded);
    if (diff) throw new Error(diff);
  });
  const sample = await step("timing", context, () => measureSync(() => prepared.encode(wire), sampling(task)));
  outcome.measurements.push(measurement(task, context, Operation.ENCODE, payload.length, sample, true, timerResolution(context)));
  const stored = await step("upload", context, () => putBlob(context.client, payload));
  outcome.payloadBlobId = stored.blobId;
  outcome.payloadBlobSize = BigInt(stored.size);
}

async function decodeTask(task: Task, context: TaskContext, outcome: TaskOutcome): Promise<void> {
  const [dataset, codec] = await step("decode", context, () => [datasetById(task.dataset), codecById(task.codec)] as const);
  const mode = task.decodeMode as DecodeMode;
  if (!codec.info.decodeModes.includes(mode)) {
    throw new StepError("decode", `codec ${codec.info.id} has no decode mode ${JSON.stringify(task.decodeMode)} (it has ${codec.info.decodeModes.join(", ")})`);
  }
  if (!task.payloadBlobId) throw new StepError("transfer", "the task names no payload blob");
  const records = await canonicalRecords(task, context, dataset);
  const payload = await step("transfer", context, async () => {
    const bytes = await fetchBlob(context.client, task.payloadBlobId);
    const size = Number(task.payloadBlobSize);
    if (size && bytes.length !== size) throw new Error(`payload ${task.payloadBlobId} has ${bytes.length} bytes, the task announced ${size}`);
    const digest = await sha256Hex(bytes);
    if (digest !== null && digest !== task.payloadBlobId) throw new Error(`payload ${task.payloadBlobId} arrived with SHA-256 ${digest}`);
    return bytes;
  });
  if (task.measureTransfer) {
    const sample = await step("transfer", context, () => measureAsync(() => fetchBlob(context.client, task.payloadBlobId), sampling(task)));
    outcome.measurements.push(measurement(task, context, Operation.TRANSFER, payload.length, sample, true, timerResolution(context)));
  }
  const prepared = await step("decode", context, () => codec.prepare(dataset));
  let operation: () => unknown;
  if (mode === "lazy") {
    const decodeLazy = prepared.decodeLazy;
    if (!decodeLazy) throw new StepError("decode", `codec ${codec.info.id} announces lazy but cannot decode lazily`);
    const field = task.lazyField || dataset.lazyField;
    const values = await step("decode", context, () => decodeLazy(payload, field));
    await step("verification", context, () => {
      const expected = records.map((record) => readLazyField(record, field));
      if (values.length !== expected.length) throw new Error(`expected ${expected.length} records, got ${values.length}`);
      const i = expected.findIndex((value, index) => value !== values[index]);
      if (i >= 0) throw new Error(`record ${i} field ${field}: expected ${JSON.stringify(expected[i])}, got ${JSON.stringify(values[i])}`);
    });
    operation = () => decodeLazy(payload, field);
  } else {
    const wire = await step("decode", context, () => prepared.decodeTyped(payload));
    await step("verification", context, () => {
      // Back to the native model outside timing; only decodeTyped itself is timed below.
      const diff = compareRecords(dataset.record, records, prepared.fromWire(wire));
      if (diff) throw new Error(diff);
    });
    operation = () => prepared.decodeTyped(payload);
  }
  const sample = await step("timing", context, () => measureSync(operation, sampling(task)));
  outcome.measurements.push(measurement(task, context, Operation.DECODE, payload.length, sample, true, timerResolution(context)));
}

/** Runs one task to its outcome; never throws (a failure is part of the outcome). */
export async function runTask(task: Task, context: TaskContext): Promise<TaskOutcome> {
  const outcome: TaskOutcome = { measurements: [], payloadBlobId: "", payloadBlobSize: 0n, failure: "" };
  try {
    switch (task.operation) {
      case Operation.ENCODE:
        await encodeTask(task, context, outcome);
        break;
      case Operation.DECODE:
        await decodeTask(task, context, outcome);
        break;
      default:
        throw new StepError("task", `operation ${Operation[task.operation] ?? task.operation} is not one a worker runs`);
    }
  } catch (error) {
    outcome.failure = error instanceof StepError ? error.message : `task failed: ${describe(error)}`;
  }
  return outcome;
}
