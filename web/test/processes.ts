import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

// Child processes for the end-to-end tests: started with their output kept for messages, and
// always stopped in teardown (by their own pid, never by name).

export interface Child {
  process: ChildProcess;
  name: string;
  output: string[];
  /** Resolves with the first stdout line matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code when the process ends by itself (null: ended by a signal). */
  exited: Promise<number | null>;
  /** Sends `signal` and waits for the exit code (killing it after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export function startProcess(name: string, command: string, args: string[], cwd?: string): Child {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? null : 0))));
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      output.push(line);
      if (stream === child.stdout) for (const listener of listeners) listener(line);
    });
  }
  return {
    process: child,
    name,
    output,
    exited,
    waitForLine(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`${name} printed no line matching ${pattern} in ${timeoutMs} ms; output:\n${output.join("\n")}`)), timeoutMs);
        const onExit = (code: number | null) => finish(new Error(`${name} exited (${code}) before printing ${pattern}; output:\n${output.join("\n")}`));
        const listener = (line: string) => {
          const match = pattern.exec(line);
          if (match) finish(undefined, match);
        };
        function finish(error?: Error, match?: RegExpMatchArray) {
          clearTimeout(timer);
          listeners.delete(listener);
          child.off("exit", onExit);
          if (error) reject(error);
          else resolve(match!);
        }
        for (const line of output) {
          const match = pattern.exec(line);
          if (match) return finish(undefined, match);
        }
        listeners.add(listener);
        child.once("exit", onExit);
      });
    },
    async stop(signal = "SIGTERM", graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
