import { create } from "@bufbuild/protobuf";
import os from "node:os";
import { EnvironmentSchema, type Environment } from "../gen/codecbench/v1/results_pb";
import { codecs } from "../codecs/registry";
import { timerResolutionUs } from "../worker/timing";
import { ALLOC_METHOD } from "./memory";
import { nativePathsSummary } from "./native";
import { TRIAL_NODE_FLAGS } from "./trials";

// What ran (docs/DESIGN.md rule 8), with the fields the other workers fill: Node and V8 versions,
// the CPU, cores, host, OS, the clock's resolution, the trials' V8 flags, how memory is counted.

export function collectNodeEnvironment(): Environment {
  const cpus = os.cpus();
  const details: Record<string, string> = {
    v8Version: process.versions.v8,
    timerResolutionUs: timerResolutionUs().toFixed(3),
    clock: "performance.now() (monotonic, not coarsened in Node)",
    v8Flags: TRIAL_NODE_FLAGS.join(" "),
    trials: "each trial runs in a fresh Node process (node dist-node/trial.js; under taskset -c for a lane's CPUs), new V8 isolate and heap per trial; upload and download are timed in the attached process",
    jitCounter: "none: V8 in Node exposes no JIT compilation counter to a script, so steady state is judged by round medians only",
    allocBytes: ALLOC_METHOD,
    nativePaths: nativePathsSummary(),
    transport: "@connectrpc/connect-node gRPC over HTTP/2",
    availableParallelism: String(os.availableParallelism()),
  };
  for (const codec of codecs.values()) details[`library.${codec.info.id}`] = `${codec.info.library} ${codec.info.libraryVersion}`;
  return create(EnvironmentSchema, {
    language: "node",
    runtime: "Node.js",
    runtimeVersion: process.versions.node,
    buildProfile: "release",
    cpuModel: cpus[0]?.model ?? "",
    cores: os.availableParallelism(),
    hostname: os.hostname(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    details,
  });
}

/** Clock diagnostics for the transfer legs the attached process times. */
export function nodeLegExtras(environment: Environment): () => Record<string, number> {
  const resolution = Number(environment.details["timerResolutionUs"]);
  return () => ({ jit_observable: 0, ...(Number.isFinite(resolution) ? { timer_resolution_us: resolution } : {}) });
}
