import type { DecodeMode, PreparedCodec } from "../codecs/codec";
import { codecById } from "../codecs/registry";
import { compareRecords } from "../datasets/compare";
import { readLazyField, type Dataset } from "../datasets/dataset";
import { datasetById, registerUserDataset } from "../datasets/registry";
import type { UserDatasetSource } from "../datasets/user-dataset";
import { Laps, type PhaseMs } from "../worker/laps";
import { measureSync, type AllocationMeter, type Sample, type Sampling } from "../worker/timing";
import { StepError, describe, step } from "./step";

// One trial (proto/README.md, "Trials"): what runs inside the fresh dedicated Web Worker. It gets
// the task's essentials, the canonical bytes and (decode) the payload; converts canonical ->
// model records, verifies the codec against them outside timing, then warms up to a steady state
// and times the rounds. It never touches the network: the page fetches and reports. It measures
// where its own time goes (proto/README.md "Where the time goes"): load, verify, warmup, rounds,
// other, as the Rust trial process does (rust/worker/src/trial.rs).

export interface TrialInput {
  taskId: string;
  operation: "encode" | "decode";
  dataset: string;
  codec: string;
  /** Decode only: typed, tree or lazy. */
  decodeMode: string;
  recordCount: number;
  /** Lazy decode only: dotted paths (matrix: cell indexes). */
  lazyFields: string[];
  sampling: Sampling;
  /** The protobuf encoding of the dataset's list message. */
  canonical: Uint8Array;
  /** Decode only: the payload to decode. */
  payload?: Uint8Array;
  /** Encode only: a prepare task (encode and verify; nothing is timed, no sample). */
  prepare?: boolean;
  /**
   * Trials with the same key may share one Chromium launch (the driver's fresh-browser trials):
   * the run and the pass of control's order (the task's trial index), so that every cell's trials
   * come from different launches while the cells of one pass meet the same one.
   */
  launchKey?: string;
  /**
   * The task's lane (Task.cpus): the driver starts the trial's Chromium pinned to these CPUs.
   * Absent: not pinned. A trial in a Web Worker of the page itself cannot be pinned.
   */
  cpus?: number[];
  /**
   * Where `canonical` and `payload` are stored in control (the task's blobs): a trial too large
   * to carry to the driver's Chromium fetches them from control there (src/worker/trials.ts).
   */
  blobs?: { canonical: BlobRef; payload?: BlobRef };
  /**
   * A user's dataset: its manifest and descriptor set, from which the trial's context (a fresh
   * Web Worker, perhaps in a fresh Chromium) builds the dataset as the page did.
   */
  userDataset?: UserDatasetSource;
}

/** A blob in control's store. */
export interface BlobRef {
  id: string;
  size: number;
}

export interface TrialResult {
  /** Empty when the trial succeeded; otherwise "<step> failed: ...". */
  failure: string;
  /** Absent for a prepare task, which times nothing. */
  sample?: Sample;
  /** Encode only: the verified payload (the page stores and uploads it). */
  payload?: Uint8Array;
  payloadBytes: number;
  /** Diagnostics for Measurement.extras (the trial worker adds its clock and isolation). */
  extras: Record<string, number>;
  /**
   * The trial's own time by phase in ms (load, verify, warmup, rounds, other), from its own start
   * of work; a failed trial has what it measured so far. The page merges it into phase_ms.
   */
  phaseMs?: PhaseMs;
  /**
   * The CPUs the trial's processes were allowed on (Linux Cpus_allowed_list, e.g. "0-1"), read
   * from /proc by the driver that launched its Chromium, or by the Node worker's trial process
   * itself; absent where nobody could read it (a page's own Web Worker). ReportResultRequest.trial_cpus.
   */
  trialCpus?: string;
}

function records(input: TrialInput, dataset: Dataset): unknown[] {
  let result: unknown[];
  try {
    result = dataset.fromCanonical(input.canonical);
  } catch (error) {
    throw new Error(`the canonical blob is not a ${dataset.id} dataset message: ${describe(error)}`);
  }
  if (result.length !== input.recordCount) throw new Error(`the canonical blob has ${result.length} records, the task says ${input.recordCount}`);
  return result;
}

async function encodeTrial(input: TrialInput, dataset: Dataset, prepared: PreparedCodec, canonical: unknown[], laps: Laps, meter?: AllocationMeter): Promise<TrialResult> {
  const payload = await step("encode", () => prepared.encode(canonical));
  await step("verification", () => {
    let decoded: unknown[];
    try {
      decoded = prepared.decodeTyped(payload);
    } catch (error) {
      throw new Error(`the payload does not decode back: ${describe(error)}`);
    }
    const diff = compareRecords(dataset.record, canonical, decoded);
    if (diff) throw new Error(diff);
  });
  laps.lap("verify");
  if (input.prepare) return { failure: "", payload, payloadBytes: payload.length, extras: {} };
  const sample = await step("timing", () => measureSync(() => prepared.encode(canonical), input.sampling, meter));
  laps.measured(sample);
  return { failure: "", sample, payload, payloadBytes: payload.length, extras: {} };
}

/** The timed decode operation of `mode`, after verifying its result against the canonical records. */
async function verifiedDecode(input: TrialInput, dataset: Dataset, prepared: PreparedCodec, canonical: unknown[], payload: Uint8Array): Promise<() => unknown> {
  const mode = input.decodeMode as DecodeMode;
  if (mode === "lazy") {
    const { decodeLazy } = prepared;
    if (!decodeLazy) throw new StepError("decode", `codec ${input.codec} announces lazy but cannot decode lazily`);
    const fields = input.lazyFields;
    if (fields.length === 0) throw new StepError("decode", "the task names no lazy fields");
    const values = await step("decode", () => decodeLazy(payload, fields));
    await step("verification", () => {
      if (values.length !== canonical.length * fields.length) throw new Error(`expected ${canonical.length} records × ${fields.length} fields, got ${values.length} values`);
      for (let i = 0; i < canonical.length; i++) {
        for (let f = 0; f < fields.length; f++) {
          const expected = readLazyField(canonical[i], fields[f]!);
          const got = values[i * fields.length + f];
          if (got !== expected) throw new Error(`record ${i} field ${fields[f]}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
        }
      }
    });
    return () => decodeLazy(payload, fields);
  }
  if (mode === "tree") {
    const { decodeTree, treeToRecords } = prepared;
    if (!decodeTree || !treeToRecords) throw new StepError("decode", `codec ${input.codec} announces tree but cannot decode to a tree`);
    const tree = await step("decode", () => decodeTree(payload));
    await step("verification", () => {
      const diff = compareRecords(dataset.record, canonical, treeToRecords(tree));
      if (diff) throw new Error(diff);
    });
    return () => decodeTree(payload);
  }
  const decoded = await step("decode", () => prepared.decodeTyped(payload));
  await step("verification", () => {
    const diff = compareRecords(dataset.record, canonical, decoded);
    if (diff) throw new Error(diff);
  });
  return () => prepared.decodeTyped(payload);
}

async function decodeTrial(input: TrialInput, dataset: Dataset, prepared: PreparedCodec, canonical: unknown[], laps: Laps, meter?: AllocationMeter): Promise<TrialResult> {
  const { payload } = input;
  if (!payload) throw new StepError("decode", "the trial got no payload");
  const operation = await verifiedDecode(input, dataset, prepared, canonical, payload);
  laps.lap("verify");
  const sample = await step("timing", () => measureSync(operation, input.sampling, meter));
  laps.measured(sample);
  return { failure: "", sample, payloadBytes: payload.length, extras: {} };
}

/**
 * Runs one trial to its result; never throws (a failure is part of the result). `laps`, started
 * at the trial's own start of work (the trial worker's, which has lapped its own probes already),
 * gets the trial's phases, which the result carries in phaseMs: the time after the last phase
 * (and a failed phase's) goes to `other`. `meter`, where the runtime has one (Node), counts the
 * heap bytes the timed rounds allocate (Sample.allocBytesPerOp).
 */
export async function runTrial(input: TrialInput, laps: Laps = new Laps(), meter?: AllocationMeter): Promise<TrialResult> {
  const result = await runTrialPhases(input, laps, meter);
  laps.lap("other");
  result.phaseMs = laps.phases();
  return result;
}

async function runTrialPhases(input: TrialInput, laps: Laps, meter?: AllocationMeter): Promise<TrialResult> {
  try {
    const what = input.operation === "decode" ? "decode" : "encode";
    const [dataset, codec] = await step(what, () => {
      if (input.userDataset) registerUserDataset(input.userDataset);
      return [datasetById(input.dataset), codecById(input.codec)] as const;
    });
    if (input.operation === "decode" && !codec.info.decodeModes.includes(input.decodeMode as DecodeMode)) {
      throw new StepError("decode", `codec ${codec.info.id} has no decode mode ${JSON.stringify(input.decodeMode)} (it has ${codec.info.decodeModes.join(", ")})`);
    }
    const canonical = await step("canonical records", () => records(input, dataset));
    const prepared = await step(what, () => codec.prepare(dataset));
    laps.lap("load");
    return input.operation === "decode" ? await decodeTrial(input, dataset, prepared, canonical, laps, meter) : await encodeTrial(input, dataset, prepared, canonical, laps, meter);
  } catch (error) {
    const failure = error instanceof StepError ? error.message : `trial failed: ${describe(error)}`;
    return { failure, payloadBytes: input.payload?.length ?? 0, extras: {} };
  }
}
