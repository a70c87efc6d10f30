import type { TrialMessage } from "../trial/entry";
// Types only: the trial code (codecs included) loads in the trial worker, not with this module.
import type { BlobRef, TrialInput, TrialResult } from "../trial/trial";
import { fetchBlob, sha256Hex } from "./blobs";
import type { WorkerClient, WorkerSecret } from "./client";

// How the page runs a trial. Opened by codecbench's driver: in a fresh page and Web Worker of a
// headless Chromium the driver launched, one launch per pass of control's order (browserTrials;
// web/driver/trial-browser.mjs), as Rust and Java run each trial in a fresh process: one
// Chromium launch's code layout is shared by every process it starts, and identical work
// measured in different launches differed by up to 4 % while trials within a launch agreed to
// 0.3 % (web/tools/stability, PAGES and launches), so trials in one launch hid run-to-run
// variation from the interval; a cell's trials come from different passes, so from different
// launches. Opened by hand: a fresh dedicated Web Worker per trial in this page
// (webWorkerTrials). Node tests of the protocol run trials in process (test/in-process-trials.ts).

export interface TrialRun {
  result: TrialResult;
  /** From creating the worker to its "ready" (module loaded and evaluated); 0 in process. */
  startMs: number;
  /** From creating the worker (or starting in process) to the result. */
  totalMs: number;
}

/** Runs one trial; `signal` abandons it (control ended the task): the trial is stopped at once. */
export type TrialRunner = (input: TrialInput, timeoutMs: number, signal?: AbortSignal) => Promise<TrialRun>;

/** A trial stopped because control ended its task (CancelRun, or its timeout). */
export const ABANDONED = "trial failed: abandoned (control ended the task)";


/** What the runner needs of a Worker (a fake one in unit tests). */
export type WorkerLike = Pick<Worker, "postMessage" | "terminate" | "addEventListener">;

function failed(failure: string): TrialResult {
  return { failure, payloadBytes: 0, extras: {} };
}

/** A trial's own phases, kept when the page fails it after it answered. */
function phasesOf(result: Pick<TrialResult, "phaseMs">): Pick<TrialResult, "phaseMs"> {
  return result.phaseMs ? { phaseMs: result.phaseMs } : {};
}

/**
 * A runner starting a fresh dedicated worker from `create` per trial: a Web Worker in the page,
 * a child Node process in the Node worker (src/node/trials.ts, which pins it to `input.cpus`).
 */
export function workerTrials(create: (input: TrialInput) => WorkerLike): TrialRunner {
  return (input, timeoutMs, signal) =>
    new Promise<TrialRun>((resolve) => {
      const start = performance.now();
      let startMs = 0;
      let worker: WorkerLike | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (result: TrialResult) => {
        clearTimeout(timer);
        worker?.terminate();
        worker = undefined;
        resolve({ result, startMs, totalMs: performance.now() - start });
      };
      try {
        worker = create(input);
      } catch (error) {
        finish(failed(`trial failed: could not start a trial worker: ${error instanceof Error ? error.message : String(error)}`));
        return;
      }
      if (signal?.aborted) {
        finish(failed(ABANDONED));
        return;
      }
      signal?.addEventListener("abort", () => finish(failed(ABANDONED)), { once: true });
      timer = setTimeout(() => finish(failed(`trial failed: the trial worker gave no answer within ${timeoutMs / 1000} s; it was terminated`)), timeoutMs);
      worker.addEventListener("message", (event: MessageEvent<TrialMessage>) => {
        if (!worker) return;
        const message = event.data;
        if (message.kind === "ready") {
          startMs = performance.now() - start;
          // The payload and canonical copies move to the worker (transferred, not copied).
          const transfer = [input.canonical.buffer, input.payload?.buffer].filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer);
          worker.postMessage(input, { transfer });
        } else if (message.kind === "result") {
          finish(message.result);
        } else {
          finish(failed(`trial failed: the trial worker sent an unknown message ${JSON.stringify(message)}`));
        }
      });
      worker.addEventListener("messageerror", () => finish(failed("trial failed: the trial worker's message could not be deserialised")));
      worker.addEventListener("error", (event: ErrorEvent) => {
        event.preventDefault?.();
        // A script that fails to load gives an error event without a message.
        const where = event.filename ? ` (${event.filename}:${event.lineno})` : "";
        finish(failed(`trial failed: the trial worker crashed: ${event.message || "it failed to load or ran out of memory"}${where}`));
      });
    });
}

/** The page's runner: a module worker built by Vite from src/trial/entry.ts. */
export const webWorkerTrials: TrialRunner = workerTrials(() => new Worker(new URL("../trial/entry.ts", import.meta.url), { type: "module", name: "codecbench-trial" }));

/**
 * A trial as it crosses the driver (JSON over the DevTools protocol): bytes as base64, or, for a
 * trial too large for that (`byReference`), none: the trial page fetches `blobs` from control
 * itself, and stores an encode's payload there (`payloadBlob`) instead of sending it back.
 */
export interface WireTrialInput extends Omit<TrialInput, "canonical" | "payload"> {
  canonical?: string;
  payload?: string;
  byReference?: boolean;
  /** By reference: the worker's report secret, which the trial page's blob calls carry too. */
  reportSecret?: string;
}
export interface WireTrialRun {
  result: Omit<TrialResult, "payload"> & { payload?: string; payloadBlob?: BlobRef };
  startMs: number;
  totalMs: number;
}

// base64 in chunks: String.fromCharCode(...bytes) of a whole payload would overflow the stack.
export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.length; at += 0x8000) text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(text);
}
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function toWireInput(input: TrialInput): WireTrialInput {
  const { canonical, payload, ...rest } = input;
  return { ...rest, canonical: toBase64(canonical), ...(payload ? { payload: toBase64(payload) } : {}) };
}
export function fromWireInput(wire: WireTrialInput): TrialInput {
  const { canonical, payload, byReference: _, reportSecret: _s, ...rest } = wire;
  if (canonical === undefined) throw new Error("the trial input carries no canonical records (a by-reference input is read with fetchWireInput)");
  return { ...rest, canonical: fromBase64(canonical), ...(payload !== undefined ? { payload: fromBase64(payload) } : {}) };
}

/**
 * A trial by reference: its canonical records and payload travel as blob ids, not bytes, and the
 * worker's report secret goes along, so that the trial page's blob calls have its allowance.
 */
export function toReferenceInput(input: TrialInput, reportSecret = ""): WireTrialInput {
  const { canonical: _c, payload: _p, ...rest } = input;
  return { ...rest, byReference: true, ...(reportSecret ? { reportSecret } : {}) };
}

/** Fetches a blob and checks its size and SHA-256 (its id). */
async function fetchChecked(client: WorkerClient, blob: BlobRef): Promise<Uint8Array> {
  const bytes = await fetchBlob(client, blob.id);
  if (bytes.length !== blob.size) throw new Error(`blob ${blob.id} has ${bytes.length} bytes, ${blob.size} were expected`);
  const digest = await sha256Hex(bytes);
  if (digest !== null && digest !== blob.id) throw new Error(`blob ${blob.id} arrived with SHA-256 ${digest}`);
  return bytes;
}

/** The trial page's side of a wire input: its bytes, fetched from control when sent by reference. */
export async function fetchWireInput(wire: WireTrialInput, client: () => WorkerClient): Promise<TrialInput> {
  if (!wire.byReference) return fromWireInput(wire);
  const { canonical: _c, payload: _p, byReference: _, reportSecret: _s, ...rest } = wire;
  if (!rest.blobs) throw new Error("a by-reference trial input names no blobs");
  const canonical = await fetchChecked(client(), rest.blobs.canonical);
  const payload = rest.blobs.payload ? await fetchChecked(client(), rest.blobs.payload) : undefined;
  return { ...rest, canonical, ...(payload ? { payload } : {}) };
}
export function toWireRun(run: TrialRun): WireTrialRun {
  const { payload, ...rest } = run.result;
  return { result: { ...rest, ...(payload ? { payload: toBase64(payload) } : {}) }, startMs: run.startMs, totalMs: run.totalMs };
}

/**
 * The most bytes (canonical records + payload) one trial hands to the driver's Chromium inline.
 * They travel base64-encoded inside DevTools protocol messages (page → driver → trial page), and
 * Chromium drops the connection on messages of a few hundred MiB ("Target closed"): a matrix of
 * ~82 MiB (canonical ~81 MB + payload) did. A larger trial goes by reference: the trial page
 * fetches the task's blobs from control and stores an encode's payload there (control streams
 * blobs in 1 MiB chunks); without a client or blob ids it fails at once, saying so.
 */
export const MAX_BROWSER_TRIAL_BYTES = 64 * 1024 * 1024;

/** Time a fresh Chromium may take to start and load the trial page, on top of the trial's timeout. */
export const BROWSER_START_ALLOWANCE_MS = 60_000;

/** What the driver exposes on the page: runs one trial in a fresh Chromium and answers with its run. */
export type TrialBrowser = (input: WireTrialInput, timeoutMs: number) => Promise<WireTrialRun>;

/** The driver's other function: closes the fresh Chromium of the trial in flight (an abandon). */
export type TrialBrowserAbort = () => Promise<void>;

class AbandonedError extends Error {}

/**
 * A runner handing each trial to `host` (the driver's fresh Chromium). startMs is the time to the
 * trial worker's "ready" in the fresh browser, launch included; totalMs the whole round trip.
 */
export function browserTrials(host: TrialBrowser, startAllowanceMs = BROWSER_START_ALLOWANCE_MS, abort?: TrialBrowserAbort, client?: WorkerClient, maxInlineBytes = MAX_BROWSER_TRIAL_BYTES, secret?: WorkerSecret): TrialRunner {
  return async (input, timeoutMs, signal) => {
    const start = performance.now();
    if (signal?.aborted) return { result: failed(ABANDONED), startMs: 0, totalMs: 0 };
    const carried = input.canonical.length + (input.payload?.length ?? 0);
    const byReference = carried > maxInlineBytes;
    if (byReference && !(client && input.blobs && (input.payload === undefined || input.blobs.payload))) {
      const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
      return { result: failed(`trial refused: its canonical records and payload (${mib(carried)}) exceed the ${mib(maxInlineBytes)} a browser trial can carry inline to the driver's Chromium (base64 in DevTools protocol messages), and it names no blobs in control to fetch instead`), startMs: 0, totalMs: 0 };
    }
    let run: WireTrialRun;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    // The driver enforces timeoutMs itself; this bounds a driver that never answers (launch included).
    const limitMs = timeoutMs + startAllowanceMs;
    const answer = Promise.resolve().then(() => host(byReference ? toReferenceInput(input, secret?.value) : toWireInput(input), timeoutMs));
    try {
      run = await Promise.race([
        answer,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${limitMs / 1000} s`)), limitMs))),
        new Promise<never>((_, reject) => {
          onAbort = () => reject(new AbandonedError());
          signal?.addEventListener("abort", onAbort, { once: true });
        }),
      ]).finally(() => {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener("abort", onAbort);
      });
    } catch (error) {
      if (error instanceof AbandonedError) {
        // The driver kills that Chromium; its (failed) answer is awaited, briefly, so that no
        // abandoned trial browser still runs when the next task's trial starts.
        await abort?.().catch(() => {});
        await Promise.race([answer.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 15_000))]);
        return { result: failed(ABANDONED), startMs: 0, totalMs: performance.now() - start };
      }
      return { result: failed(`trial failed: the driver could not run the trial in a fresh browser: ${error instanceof Error ? error.message : String(error)}`), startMs: 0, totalMs: performance.now() - start };
    }
    const { payload, payloadBlob, ...result } = run.result;
    let bytes: Uint8Array | undefined;
    try {
      bytes = payload === undefined ? undefined : fromBase64(payload);
    } catch {
      return { result: { ...failed("trial failed: the fresh browser's payload is not valid base64"), ...phasesOf(result) }, startMs: run.startMs, totalMs: performance.now() - start };
    }
    if (payloadBlob && !result.failure) {
      // A by-reference encode stored its payload in control; this page needs the bytes.
      try {
        bytes = await fetchChecked(client!, payloadBlob);
      } catch (error) {
        return { result: { ...failed(`trial failed: the payload the trial browser stored in control could not be fetched back: ${error instanceof Error ? error.message : String(error)}`), ...phasesOf(result) }, startMs: run.startMs, totalMs: performance.now() - start };
      }
    }
    return { result: { ...result, ...(bytes ? { payload: bytes } : {}) }, startMs: run.startMs, totalMs: performance.now() - start };
  };
}

/** The driver's host function on this page, if it was opened by codecbench's driver. */
export function driverTrialBrowser(): TrialBrowser | undefined {
  const host = (globalThis as { codecbenchTrialBrowser?: unknown }).codecbenchTrialBrowser;
  return typeof host === "function" ? (host as TrialBrowser) : undefined;
}

/** The driver's abort function on this page, if it exposes one. */
export function driverTrialBrowserAbort(): TrialBrowserAbort | undefined {
  const abort = (globalThis as { codecbenchTrialBrowserAbort?: unknown }).codecbenchTrialBrowserAbort;
  return typeof abort === "function" ? (abort as TrialBrowserAbort) : undefined;
}
