import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { schemaFingerprint } from "./datasets/fingerprint";
import { registerUserDataset } from "./datasets/registry";
import type { UserDatasetSource } from "./datasets/user-dataset";
import { PageView } from "./ui/view";
import { runWorker } from "./worker/attach";
import { WorkerSecret, withWorkerSecret, workerClient } from "./worker/client";
import { collectEnvironment } from "./worker/environment";
import { browserTrials, driverTrialBrowser, driverTrialBrowserAbort, webWorkerTrials } from "./worker/trials";

// The browser worker page. It measures only when cross-origin isolated (COOP/COEP from control):
// otherwise performance.now() is coarsened to 100 µs and the page says so and does not attach,
// so no run ever waits on a worker that cannot time.

declare global {
  interface Window {
    /** Set by codecbench's driver before this script runs: the --user-dataset manifests with their descriptor sets. */
    codecbenchUserDatasets?: UserDatasetSource[];
    /** Set here once they are built, for the driver: the ids carried, or why one could not be. */
    codecbenchUserDatasetsResult?: { ids: string[] } | { error: string };
  }
}

/** Builds and registers the user's datasets the driver gave, before anything announces datasets. */
async function loadUserDatasets(): Promise<void> {
  try {
    const ids: string[] = [];
    for (const source of window.codecbenchUserDatasets ?? []) {
      const dataset = registerUserDataset(source);
      ids.push(dataset.id);
      // The page announces the fingerprint it computes; one unlike the manifest's makes control refuse the dataset, saying so.
      const fingerprint = await schemaFingerprint(dataset.recordMessage);
      const agrees = fingerprint === source.fingerprint ? "as its manifest says" : `but its manifest says ${source.fingerprint || "none"}`;
      console[fingerprint === source.fingerprint ? "log" : "warn"](`codecbench browser worker: carrying user dataset ${dataset.id} (${dataset.recordMessage.typeName}, schema fingerprint ${fingerprint}, ${agrees})`);
    }
    window.codecbenchUserDatasetsResult = { ids };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    window.codecbenchUserDatasetsResult = { error: message };
    throw error;
  }
}

async function start(): Promise<void> {
  // First: a dataset it cannot build stops the page before it attaches (the driver exits, naming it).
  await loadUserDatasets();
  const view = new PageView();
  // Opened by codecbench's driver: each trial in a fresh Chromium; by hand: in this page's workers.
  const trialBrowser = driverTrialBrowser();
  const environment = await collectEnvironment(trialBrowser !== undefined);
  view.showEnvironment(environment);
  console.log(`codecbench browser worker: crossOriginIsolated=${crossOriginIsolated}, timer resolution ${environment.details["timerResolutionUs"]} µs, ${environment.runtime} ${environment.runtimeVersion}`);
  if (!crossOriginIsolated) {
    view.notIsolated();
    console.error("codecbench browser worker: not cross-origin isolated, refusing to measure; not attaching");
    return;
  }
  const client = workerClient(createGrpcWebTransport({ baseUrl: location.origin }));
  // The attachment's report secret: runWorker sets it, and the trial browsers' blob calls carry it.
  const secret = new WorkerSecret();
  await runWorker({
    client,
    secret,
    name: "browser",
    environment,
    trials: trialBrowser ? browserTrials(trialBrowser, undefined, driverTrialBrowserAbort(), withWorkerSecret(client, secret), undefined, secret) : webWorkerTrials,
    events: {
      connecting: () => view.connecting(),
      attached: (id) => (console.log(`codecbench browser worker: attached as ${id}`), view.attached(id)),
      detached: (reason, retryMs) => (console.warn(`codecbench browser worker: detached (${reason}), retrying in ${retryMs} ms`), view.detached(reason, retryMs)),
      taskStarted: (task) => view.taskStarted(task),
      step: (task, step) => view.step(task, step),
      taskFinished: (task, outcome, reported) => {
        const what = `task ${task.id} (${task.dataset} ${task.codec} ${task.decodeMode || "encode"})`;
        if (outcome.failure) console.error(`codecbench browser worker: ${what} failed: ${outcome.failure}`);
        else console.log(`codecbench browser worker: ${what} done, ${outcome.measurements.length} measurement(s)${reported ? "" : ", NOT reported"}`);
        view.taskFinished(task, outcome, reported);
      },
      error: (message) => (console.error(`codecbench browser worker: ${message}`), view.error(message)),
    },
  });
}

start().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`codecbench browser worker stopped: ${message}`);
  const status = document.getElementById("status");
  if (status) {
    status.textContent = `Stopped: ${message}`;
    status.className = "status status-bad";
    status.dataset.state = "detached";
  }
});
