import type { Environment, Measurement } from "../gen/codecbench/v1/results_pb";
import { Operation } from "../gen/codecbench/v1/scenario_pb";
import type { Task } from "../gen/codecbench/v1/worker_service_pb";
import type { WorkerEvents } from "../worker/attach";
import type { TaskOutcome } from "../worker/task";
import { median, spread } from "../worker/timing";
import { formatBytes, formatNs, formatPercent } from "./format";

// The page's DOM: status, current task, live measurement table, errors, environment. The
// `data-state` attribute on #status is what the tests and the driver look at.

// Rounds further apart than this (max - min, relative to the median) are flagged.
const WIDE_SPREAD = 0.2;
// The table keeps this many rows so a long session does not grow the page without bound.
const MAX_ROWS = 1000;

type State = "starting" | "not-isolated" | "connecting" | "attached" | "detached";

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

function cell(row: HTMLTableRowElement, text: string, className?: string): HTMLTableCellElement {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

const operationName: Record<number, string> = {
  [Operation.ENCODE]: "encode",
  [Operation.DECODE]: "decode",
  [Operation.UPLOAD]: "upload",
  [Operation.DOWNLOAD]: "download",
};

function describeTask(task: Task): string {
  const op = operationName[task.operation] ?? "?";
  const mode = task.operation === Operation.DECODE ? ` (${task.decodeMode})` : "";
  const from = task.operation === Operation.DECODE ? ` produced by ${task.producerWorkerId}` : "";
  return `${op}${mode} ${task.dataset} × ${task.recordCount} records with ${task.codec}${from} — task ${task.id}`;
}

export class PageView implements WorkerEvents {
  private readonly status = element<HTMLParagraphElement>("status");
  private readonly current = element<HTMLParagraphElement>("current-task");
  private readonly rows = element<HTMLTableElement>("measurements").tBodies[0]!;
  private readonly errors = element<HTMLUListElement>("errors");
  private workerId = "";

  private setStatus(state: State, text: string, tone: "idle" | "ok" | "warn" | "bad"): void {
    this.status.dataset.state = state;
    this.status.textContent = text;
    this.status.className = `status status-${tone}`;
  }

  showEnvironment(environment: Environment): void {
    const body = element<HTMLTableElement>("environment").tBodies[0]!;
    body.replaceChildren();
    const entries: Array<[string, string]> = [
      ["language", environment.language],
      ["runtime", `${environment.runtime} ${environment.runtimeVersion}`],
      ["build profile", environment.buildProfile],
      ["cores", String(environment.cores)],
      ["os", environment.os],
      ...Object.entries(environment.details).sort(([a], [b]) => a.localeCompare(b)),
    ];
    for (const [key, value] of entries) {
      const row = body.insertRow();
      const th = document.createElement("th");
      th.textContent = key;
      row.append(th);
      cell(row, value);
    }
  }

  notIsolated(): void {
    this.setStatus("not-isolated", "Not measuring: this page is not cross-origin isolated", "bad");
    const notice = element<HTMLElement>("isolation");
    notice.hidden = false;
    notice.innerHTML = `<h2>This page refuses to measure</h2>
      <p>It is not cross-origin isolated, so <code>performance.now()</code> is coarse (about 100 µs instead of 5 µs)
      and any timing it took would not be trustworthy. It has <strong>not attached</strong> to control and will not time anything.</p>
      <p>Open it from control (<code>codecbench up</code>), which serves it with the headers
      <code>Cross-Origin-Opener-Policy: same-origin</code> and <code>Cross-Origin-Embedder-Policy: require-corp</code>.</p>`;
    this.current.textContent = "None: this page does not measure.";
  }

  connecting(): void {
    this.setStatus("connecting", "Connecting to control…", "warn");
  }

  attached(workerId: string): void {
    this.workerId = workerId;
    document.title = `codecbench · ${workerId}`;
    this.setStatus("attached", `Attached to control as ${workerId}`, "ok");
    this.current.textContent = "Waiting for a task.";
  }

  detached(reason: string, retryInMs: number): void {
    this.setStatus("detached", `Not attached (${reason}); trying again in ${Math.round(retryInMs / 1000)} s`, "bad");
    this.current.textContent = "None while detached.";
  }

  taskStarted(task: Task): void {
    this.current.textContent = describeTask(task);
  }

  step(task: Task, step: string): void {
    this.current.textContent = `${describeTask(task)}: ${step}…`;
  }

  taskFinished(task: Task, outcome: TaskOutcome, reported: boolean): void {
    for (const measurement of outcome.measurements) this.addMeasurement(task, measurement);
    if (outcome.failure) {
      this.addFailure(task, outcome.failure);
      this.error(`${describeTask(task)}: ${outcome.failure}`);
    }
    this.current.textContent = reported ? `Waiting for a task (last: ${task.id}).` : `Task ${task.id} could not be reported.`;
  }

  error(message: string): void {
    const item = document.createElement("li");
    item.textContent = `${new Date().toLocaleTimeString()} — ${message}`;
    this.errors.prepend(item);
    while (this.errors.children.length > 100) this.errors.lastElementChild?.remove();
    element("no-errors").hidden = true;
  }

  private newRow(task: Task, operation: Operation): HTMLTableRowElement {
    element("no-measurements").hidden = true;
    const row = this.rows.insertRow(0);
    while (this.rows.rows.length > MAX_ROWS) this.rows.deleteRow(-1);
    cell(row, task.dataset);
    cell(row, task.codec);
    cell(row, operation === Operation.DECODE ? task.decodeMode : "");
    cell(row, operationName[operation] ?? "?");
    // Decode and transfer rows differ by who produced the payload; encode rows are this worker's.
    cell(row, task.operation === Operation.DECODE ? task.producerWorkerId : "this tab");
    cell(row, String(task.recordCount), "num");
    return row;
  }

  private addMeasurement(task: Task, measurement: Measurement): void {
    const row = this.newRow(task, measurement.operation);
    row.className = "measurement";
    const perRecord = median(measurement.roundNsPerOp) / Math.max(1, task.recordCount);
    const roundSpread = spread(measurement.roundNsPerOp);
    cell(row, formatBytes(Number(measurement.payloadBytes)), "num");
    cell(row, formatNs(perRecord), "num");
    const spreadCell = cell(row, formatPercent(roundSpread), roundSpread > WIDE_SPREAD ? "num wide-spread" : "num");
    if (roundSpread > WIDE_SPREAD) spreadCell.title = "rounds differ by more than 20 %: do not trust this median";
    cell(row, measurement.verified ? "yes" : "no");
  }

  private addFailure(task: Task, failure: string): void {
    const row = this.newRow(task, task.operation);
    row.className = "failed";
    const td = cell(row, failure);
    td.colSpan = 4;
  }

  get id(): string {
    return this.workerId;
  }
}
