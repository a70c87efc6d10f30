import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ManifestError, readUserDatasets } from "../../driver/user-datasets.mjs";
import { schemaFingerprint } from "../datasets/fingerprint";
import { registerUserDataset } from "../datasets/registry";
import { runWorker } from "../worker/attach";
import { WorkerSecret, workerClient } from "../worker/client";
import { collectNodeEnvironment, nodeLegExtras } from "./environment";
import { NODE_NATIVE_PATHS } from "./native";
import { processTrials } from "./trials";

// The Node.js worker (language `node`): the page's codecs, trial and task code under Node. It
// attaches to control like the others (gRPC over HTTP/2 with @connectrpc/connect-node), runs each
// task with the page's src/worker/task.ts and each trial in a fresh Node process
// (src/node/trials.ts), and reattaches when the stream drops.
//
//   node --harmony-json-parse-with-source web/dist-node/main.js --control http://127.0.0.1:7600 [--name node] [--user-dataset DATASET.json]...
//
// The flag is Node 20's (Node 21+ has JSON.rawJSON and JSON.parse source text by default): json
// keeps 64-bit integers exact with them, and the attached process announces what its trials
// (started with the flag, src/node/trials.ts) can carry, so without them it does not start.
// A user's dataset (proto/README.md "A user's dataset"): each --user-dataset manifest is read and
// checked as the browser driver reads it (driver/user-datasets.mjs) and built as the page builds it
// (src/datasets/user-dataset.ts) before attaching; each trial of it carries the source to its process.
// When control requires a token: CODECBENCH_TOKEN_FILE (a file) or CODECBENCH_TOKEN.

const USAGE = "usage: node --harmony-json-parse-with-source web/dist-node/main.js [--control URL] [--name NAME] [--token-file FILE] [--user-dataset MANIFEST]...";

function fail(message: string, code: number): never {
  process.stderr.write(`codecbench node worker: ${message}\n${USAGE}\n`);
  process.exit(code);
}

function token(file: string | undefined): string {
  if (!file) return (process.env.CODECBENCH_TOKEN ?? "").trim();
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    return fail(`cannot read the token file ${file}: ${error instanceof Error ? error.message : String(error)}`, 2);
  }
}

/**
 * Reads, checks and registers the --user-dataset manifests before anything announces datasets; a
 * bad one exits with 2 and one line naming it (as the browser driver does). Returns a line per dataset.
 */
async function userDatasets(paths: string[]): Promise<string[]> {
  const lines: string[] = [];
  try {
    for (const source of readUserDatasets(paths)) {
      const dataset = registerUserDataset(source);
      // Announced with the fingerprint computed here; one unlike the manifest's makes control refuse it, saying so.
      const fingerprint = await schemaFingerprint(dataset.recordMessage);
      const agrees = fingerprint === source.fingerprint ? "as its manifest says" : `but its manifest says ${source.fingerprint || "none"}`;
      lines.push(`carrying user dataset ${dataset.id} (${dataset.recordMessage.typeName}, schema fingerprint ${fingerprint}, ${agrees})`);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    fail(error instanceof ManifestError ? message : `a --user-dataset could not be built: ${message}`, 2);
  }
  return lines;
}

async function main(): Promise<void> {
  if (typeof (JSON as { rawJSON?: unknown }).rawJSON !== "function") {
    fail(`Node ${process.versions.node} has no JSON.rawJSON, which json needs to keep 64-bit integers exact: start it with node --harmony-json-parse-with-source (Node 20; 21 and later have it)`, 2);
  }
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        control: { type: "string", default: process.env.CODECBENCH_CONTROL ?? "http://127.0.0.1:7600" },
        name: { type: "string", default: "node" },
        "token-file": { type: "string", ...(process.env.CODECBENCH_TOKEN_FILE ? { default: process.env.CODECBENCH_TOKEN_FILE } : {}) },
        "user-dataset": { type: "string", multiple: true, default: [] },
      },
      strict: true,
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error), 64);
  }
  const carried = await userDatasets(values["user-dataset"]);
  const bearer = token(values["token-file"]);
  const authorize: Interceptor = (next) => (request) => {
    if (bearer) request.header.set("authorization", `Bearer ${bearer}`);
    return next(request);
  };
  const client = workerClient(createGrpcTransport({ baseUrl: values.control, interceptors: [authorize] }));
  const environment = collectNodeEnvironment();
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} codecbench node worker: ${line}\n`);
  for (const line of carried) log(line);
  log(`Node.js ${environment.runtimeVersion} (V8 ${environment.details["v8Version"]}), timer resolution ${environment.details["timerResolutionUs"]} µs, ${environment.cores} cores; control ${values.control}`);
  const stop = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => (log(`${signal}: stopping`), stop.abort()));
  await runWorker({
    client,
    secret: new WorkerSecret(),
    name: values.name,
    environment,
    trials: processTrials({ script: fileURLToPath(new URL("./trial.js", import.meta.url)) }),
    legExtras: nodeLegExtras(environment),
    runtimeNotes: NODE_NATIVE_PATHS,
    signal: stop.signal,
    events: {
      connecting: () => log(`connecting to ${values.control}`),
      attached: (id) => log(`attached as ${id}`),
      detached: (reason, retryMs) => log(`detached (${reason}), retrying in ${retryMs} ms`),
      taskStarted: () => {},
      step: () => {},
      taskFinished: (task, outcome, reported) => {
        const what = `task ${task.id} (${task.dataset} ${task.codec} ${task.decodeMode || "encode"}${task.cpus.length ? ` cpus ${task.cpus.join(",")}` : ""})`;
        log(outcome.failure ? `${what} failed: ${outcome.failure}` : `${what} done, ${outcome.measurements.length} measurement(s)${reported ? "" : ", NOT reported"}`);
      },
      error: (message) => log(message),
    },
  });
  log("stopped");
  process.exit(0);
}

main().catch((error: unknown) => fail(`stopped: ${error instanceof Error ? error.stack : String(error)}`, 1));
