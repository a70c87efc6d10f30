import { spawn, type ChildProcess } from "node:child_process";
import { V8_FLAGS } from "../../driver/flags.mjs";
import type { TrialMessage } from "../trial/entry";
import type { TrialInput } from "../trial/trial";
import { workerTrials, type TrialRunner, type WorkerLike } from "../worker/trials";
import { FrameReader, frame } from "./frames";

// How the Node worker runs a trial: a fresh Node process per trial (src/node/trial-process.ts),
// as the Rust worker starts `codecbench-worker trial` and the Java worker forks a JVM. The child
// is driven by the page's own runner (src/worker/trials.ts workerTrials: ready → input → result,
// the task's timeout, abandon), through ChildTrial, a Web Worker's interface over the child's
// pipes. A task with a lane (Task.cpus) starts the child under `taskset -c CPUS` (util-linux, as
// the Java worker's trial JVM and the browser's trial Chromium; Node has no affinity API), and the
// child reports the CPUs it was allowed on, failing when they are not the lane's.

/**
 * The V8 flags of every trial process: the browser trials' fixed young generation and
 * pretenuring off (web/driver/flags.mjs, DESIGN.md rule 3), and JSON source text access for exact
 * int64s (Node 20 has it behind a flag; src/codecs/json.ts).
 */
export const TRIAL_NODE_FLAGS = [...V8_FLAGS.split(" "), "--harmony-json-parse-with-source"];

export interface ChildTrialOptions {
  /** The built trial script (dist-node/trial.js). */
  script: string;
  /** The node binary; by default this process's. */
  node?: string;
  /** taskset, by default from PATH. */
  taskset?: string;
}

/** The command line of one trial process: pinned to `cpus` when the task has a lane. */
export function trialCommand(options: ChildTrialOptions, cpus?: readonly number[]): string[] {
  const node = [options.node ?? process.execPath, ...TRIAL_NODE_FLAGS, options.script];
  return cpus?.length ? [options.taskset ?? "taskset", "-c", cpus.join(","), ...node] : node;
}

type Listener = (event: never) => void;
const STDERR_KEPT = 4096;

/** A trial process seen as a Web Worker: postMessage writes the input, messages are its frames. */
export class ChildTrial {
  private readonly child: ChildProcess;
  private readonly listeners = new Map<string, Listener[]>();
  private stderr = "";
  private answered = false;

  constructor(argv: string[]) {
    const [command, ...args] = argv;
    this.child = spawn(command!, args, { stdio: ["pipe", "pipe", "pipe"] });
    const reader = new FrameReader();
    this.child.stdout!.on("data", (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = reader.push(chunk);
      } catch {
        this.emit("messageerror", {});
        return;
      }
      for (const data of messages) {
        if ((data as TrialMessage).kind === "result") this.answered = true;
        this.emit("message", { data });
      }
    });
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_KEPT)));
    this.child.stdin!.on("error", () => {}); // a child that died first: its exit says why
    this.child.on("error", (error) => this.emit("error", { message: `${command}: ${error.message}${command === "taskset" ? " (taskset, from util-linux, pins a lane's trial; is it on PATH?)" : ""}`, filename: "" }));
    this.child.on("close", (code, signal) => {
      if (this.answered) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const said = this.stderr.trim();
      this.emit("error", { message: `the trial process ${how} before answering${said ? `: ${said}` : ""}`, filename: "" });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  postMessage(input: unknown): void {
    this.child.stdin!.end(frame(input));
  }

  terminate(): void {
    this.answered = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  private emit(type: string, event: object): void {
    for (const listener of this.listeners.get(type) ?? []) (listener as (event: object) => void)({ preventDefault() {}, ...event });
  }
}

/** The Node worker's runner: each trial in a fresh Node process, pinned to its lane. */
export function processTrials(options: ChildTrialOptions): TrialRunner {
  return workerTrials((input: TrialInput) => new ChildTrial(trialCommand(options, input.cpus)) as unknown as WorkerLike);
}
