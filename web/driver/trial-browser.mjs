// Trials in fresh Chromiums: the driver exposes `codecbenchTrialBrowser(input, timeoutMs)` on
// every worker tab. A call runs the trial in a headless Chromium launched by the driver (same
// flags, a new profile): it opens control's trial page (trial.html, cross-origin isolated like the
// worker page) in a new page, runs the one trial there in a fresh Web Worker and closes the page
// before answering. The trials of one pass of control's order (one trial of every cell, same
// `launchKey`) share a launch, and the next pass gets a new one. Rust and Java run each trial in
// a fresh process for the same reason: a Chromium launch's code layout is shared by every renderer
// it forks, so trials inside one launch agree with each other more than with a rerun
// (src/worker/trials.ts has the figures). Used by driver.mjs and web/tools/stability.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { CHROMIUM_FLAGS } from "./flags.mjs";

// A fresh Chromium keeps 1–1.5 of this machine's 2 CPUs busy for about 0.5 s after its first page
// has loaded (measured from /proc); a trial started then would share the CPUs with it. So the
// trial waits until the browser's process tree is quiet: SETTLE_WINDOWS consecutive windows of
// SETTLE_WINDOW_MS using under SETTLE_MAX_CPU of one CPU, at most SETTLE_LIMIT_MS.
const SETTLE_WINDOW_MS = 50;
const SETTLE_WINDOWS = 3;
const SETTLE_MAX_CPU = 0.1;
const SETTLE_LIMIT_MS = 5_000;
const TICK_MS = 10; // /proc/PID/stat counts CPU in clock ticks of 10 ms (USER_HZ = 100)

/** `pid` and its descendants, from /proc (Linux); empty of children where /proc is absent. */
export function processTree(pid) {
  const out = [pid];
  for (const task of existsSync(`/proc/${pid}/task`) ? readdirSync(`/proc/${pid}/task`) : []) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean)) out.push(...processTree(Number(child)));
    } catch {}
  }
  return out;
}

/** CPU ms used so far by `pid` and its descendants (utime + stime). */
function treeCpuMs(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks * TICK_MS;
}

/** Waits until the browser's processes are quiet; answers the ms waited (the limit if never quiet). */
async function settle(pid) {
  const start = performance.now();
  if (!pid || !existsSync(`/proc/${pid}/stat`)) {
    // No /proc (not Linux): a fixed pause longer than the start-up burst seen on Linux.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return performance.now() - start;
  }
  let quiet = 0;
  let last = treeCpuMs(pid);
  while (quiet < SETTLE_WINDOWS && performance.now() - start < SETTLE_LIMIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WINDOW_MS));
    const now = treeCpuMs(pid);
    quiet = now - last <= SETTLE_MAX_CPU * SETTLE_WINDOW_MS + TICK_MS ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - start;
}

// Lanes (Task.cpus): a trial Chromium is started through this wrapper, `taskset -c CPUS chromium`,
// so that it and every process it starts run on the lane's CPUs only.
const TASKSET_CHROMIUM = fileURLToPath(new URL("./taskset-chromium.sh", import.meta.url));

/** A CPU set from a Linux CPU list ("0-2,5"). */
function parseCpuList(list) {
  const cpus = new Set();
  for (const part of list.split(",").filter(Boolean)) {
    const [from, to = from] = part.split("-").map(Number);
    for (let cpu = from; cpu <= to; cpu++) cpus.add(cpu);
  }
  return cpus;
}

/** A CPU set as Linux lists it: sorted, runs as ranges ("0-1", "0,2"). */
function formatCpuList(cpus) {
  const sorted = [...cpus].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j;
  }
  return parts.join(",");
}

/** A process's CPU affinity as Linux lists it (/proc/PID/status Cpus_allowed_list); "" where not known. */
export function cpusAllowed(pid) {
  try {
    return /^Cpus_allowed_list:\s*(\S*)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "";
  } catch {
    return "";
  }
}

/**
 * The CPUs the processes of the browser `pid` (itself, zygotes, renderers...) may run on, as one
 * Linux CPU list (their union: a process that escaped the lane shows); "" where /proc does not say.
 */
function treeCpusAllowed(pid) {
  const cpus = new Set();
  for (const p of pid ? processTree(pid) : []) for (const cpu of parseCpuList(cpusAllowed(p))) cpus.add(cpu);
  return formatCpuList(cpus);
}

/** Task.cpus as taskset and launch keys spell them: "0,1"; "" for none. */
function cpuListOf(cpus = []) {
  return cpus.join(",");
}

/**
 * Throws, saying why, unless taskset can pin a process to `cpuList`: a Chromium whose wrapper
 * failed would only show as puppeteer's "Target closed" (its stderr is not kept).
 */
function checkTaskset(cpuList) {
  const probe = spawnSync("taskset", ["-c", cpuList, "true"], { encoding: "utf8", timeout: 10_000 });
  if (probe.error?.code === "ENOENT") throw new Error(`the task asks for cpus ${cpuList} but taskset (util-linux) is not on PATH, so the trial Chromium cannot be pinned to them`);
  if (probe.error || probe.status !== 0) throw new Error(`the trial Chromium cannot be pinned to cpus ${cpuList}: taskset -c ${cpuList}: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`);
}

function failure(message, trialCpus = "") {
  return { result: { failure: `trial failed: ${message}`, payloadBytes: 0, extras: {}, ...(trialCpus ? { trialCpus } : {}) }, startMs: 0, totalMs: 0 };
}

/**
 * Launches a headless Chromium for trials (a new profile). Answers a launch `{ browser, launchMs,
 * trials, cpus }`; close it with closeLaunch. `onLaunch(browser)` sees the browser as soon as it
 * exists. With `cpus` (Task.cpus, the task's lane) the browser starts pinned to them (taskset):
 * such a launch serves only trials of that lane.
 */
export async function launchTrialBrowser({ executablePath, args = CHROMIUM_FLAGS, dumpio = false, protocolTimeoutMs = 360_000, onLaunch = () => {}, cpus = [] }) {
  const start = performance.now();
  const cpuList = cpuListOf(cpus);
  if (cpuList) checkTaskset(cpuList);
  const userDataDir = mkdtempSync(join(tmpdir(), "codecbench-trial-"));
  try {
    // Pinned before it starts, not after: a process Chromium forks inherits its parent's affinity
    // at that moment, so pinning a running browser would miss what it forks meanwhile.
    const pinned = cpuList ? { executablePath: TASKSET_CHROMIUM, env: { ...process.env, CODECBENCH_TRIAL_CPUS: cpuList, CODECBENCH_TRIAL_CHROMIUM: executablePath } } : { executablePath };
    // A pipe, as for the worker's Chromium: if the driver dies, this browser exits with it.
    // A copy: puppeteer takes --disable-features out of the array it is given (to merge it with
    // its own), so a shared array would lose it from the second launch on.
    const browser = await puppeteer.launch({ ...pinned, headless: true, userDataDir, args: [...args], pipe: true, dumpio,
      // DevTools calls otherwise give up after puppeteer's default 180 s; the trial's own limit rules.
      protocolTimeout: protocolTimeoutMs, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    onLaunch(browser);
    return { browser, userDataDir, launchMs: performance.now() - start, trials: 0, cpus: cpuList, trialCpus: cpusAllowed(browser.process()?.pid) };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Closes a launch's browser (killed if it does not close within 10 s) and removes its profile. */
export async function closeLaunch(launch) {
  if (!launch) return;
  try {
    await Promise.race([launch.browser.close(), new Promise((_, reject) => setTimeout(() => reject(new Error("close timed out")), 10_000))]);
  } catch {
    launch.browser.process()?.kill("SIGKILL");
  }
  rmSync(launch.userDataDir, { recursive: true, force: true });
}

/**
 * Runs one wire trial (src/worker/trials.ts WireTrialInput) in `launch`, in a page of its own
 * (opened for the trial, closed after it), and answers with its WireTrialRun. Throws on a fault
 * of the browser (page, timeout, crash); the caller then closes the launch.
 */
async function runInLaunch(launch, { origin, token = "", input, timeoutMs, log }) {
  const start = performance.now();
  const firstInLaunch = launch.trials === 0;
  launch.trials += 1;
  let page;
  let timer;
  const run = async () => {
    page = await launch.browser.newPage();
    page.on("pageerror", (error) => log(`trial browser: page error: ${error.message}`));
    page.on("console", (message) => { if (message.type() === "error") log(`trial browser: console.error: ${message.text()}`); });
    // With a token, control sets its cookie on this first load; the page's later requests carry it.
    const url = new URL("/trial.html", origin);
    if (token) url.searchParams.set("token", token);
    await page.goto(url.href, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => typeof window.codecbenchTrial === "function", { timeout: 30_000 });
    const pageMs = performance.now() - start;
    const pid = launch.browser.process()?.pid;
    const settleMs = await settle(pid);
    // Where the trial runs: the browser and its processes, the trial page's renderer among them
    // now (its Web Worker is a thread of it). A lane's trial runs on the lane's CPUs or not at all.
    launch.trialCpus = treeCpusAllowed(pid) || launch.trialCpus;
    const lane = cpuListOf(input.cpus);
    if (lane && launch.trialCpus !== formatCpuList(parseCpuList(lane))) {
      throw new Error(`the trial browser's processes may run on cpus ${launch.trialCpus || "(unknown)"}, not only on the task's cpus ${lane}`);
    }
    const answer = await page.evaluate((input, timeoutMs) => window.codecbenchTrial(input, timeoutMs), input, timeoutMs);
    answer.result.extras = { ...answer.result.extras, browser_launch_ms: launch.launchMs, browser_launch_trial: launch.trials - 1, browser_page_ms: pageMs, browser_settle_ms: settleMs };
    answer.result.trialCpus = launch.trialCpus;
    // The trial worker's start is measured in the page; the launch (for its first trial), the
    // page's load and settling come before it.
    return { ...answer, startMs: (firstInLaunch ? launch.launchMs : 0) + pageMs + settleMs + answer.startMs };
  };
  const limitMs = timeoutMs + 30_000;
  try {
    return await Promise.race([run(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the fresh browser gave no answer within ${limitMs / 1000} s; it was killed`)), limitMs)))]);
  } finally {
    clearTimeout(timer);
    // Closed before the answer goes back, so its renderer's exit never overlaps the next timed step.
    await Promise.race([page?.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
}

const describeInput = (input) => `${input.operation} ${input.dataset} ${input.codec}${input.decodeMode ? ` ${input.decodeMode}` : ""} (task ${input.taskId})`;

/**
 * Runs one wire trial in `launch` if given, else in a Chromium launched for it and closed before
 * the answer; every fault (launch, page, timeout, crash) is a failed trial, never a throw. A
 * trial that failed closes its launch (a later trial must not inherit a broken browser) and
 * answers `closed: true` beside its run. `log(line)` records launches and faults.
 */
export async function runTrial({ executablePath, origin, token = "", input, timeoutMs, log = () => {}, args = CHROMIUM_FLAGS, dumpio = false, onLaunch = () => {}, launch }) {
  const start = performance.now();
  const what = describeInput(input);
  const own = !launch;
  let failed = true;
  try {
    launch ??= await launchTrialBrowser({ executablePath, args, dumpio, protocolTimeoutMs: timeoutMs + 60_000, onLaunch, cpus: input.cpus });
    const answer = await runInLaunch(launch, { origin, token, input, timeoutMs, log });
    failed = !!answer.result.failure;
    log(`trial browser: ${what} ${answer.result.failure ? `failed: ${answer.result.failure}` : "done"} in ${(performance.now() - start).toFixed(0)} ms (start ${answer.startMs.toFixed(0)} ms, trial ${launch.trials} of its launch)`);
    return answer;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`trial browser: ${what} failed: ${message}`);
    return failure(`the fresh browser for this trial failed: ${message}`, launch?.trialCpus);
  } finally {
    if (own || failed) await closeLaunch(launch);
  }
}

/** Runs one wire trial in a Chromium of its own, closed before the answer goes back. */
export function runInFreshBrowser(options) {
  return runTrial({ ...options, launch: undefined });
}

// A launch kept for a pass is closed after this long without a trial, so an idle driver holds
// no trial browser; the next trial then launches a new one (a pass only loses its sharing).
const IDLE_CLOSE_MS = 300_000;

/**
 * The trial browsers of one worker tab: `run(input, timeoutMs)` runs a wire trial, `abort()`
 * closes the Chromium of the trial in flight (control ended its task; that trial then answers as
 * failed at once), `close()` closes the launch kept between trials.
 *
 * Trials whose inputs carry the same `launchKey` (control's pass: one trial of every cell) run in
 * one Chromium launch, each in a fresh page and Web Worker; a new key closes it and launches
 * another. So every cell's trials still come from as many launches as it has trials (the launch's
 * variation stays inside its interval), while cells compared with each other, A/A groups first,
 * met the same launches (docs/DESIGN.md rule 3, "One launch per pass"). An input without a key
 * gets a Chromium of its own. A launch is pinned to its first input's cpus (its lane) and serves
 * only inputs with the same cpus: the page's key names them too (src/worker/task.ts launchKey),
 * and the kept launch is compared on both.
 */
export function trialBrowserHost({ executablePath, origin, token, log = () => {}, args, dumpio }) {
  // The launch kept for the current key, and the trial in flight (whether control abandoned it:
  // an abort may come before its launch finished; the browser is then killed as soon as it exists).
  let kept; // { key, launch, idle }
  let current;
  const drop = async () => {
    const old = kept;
    kept = undefined;
    if (old) {
      clearTimeout(old.idle);
      await closeLaunch(old.launch);
    }
  };
  const run = async (input, timeoutMs) => {
    const trial = { browser: undefined, abandoned: false };
    current = trial;
    const onLaunch = (browser) => {
      trial.browser = browser;
      if (trial.abandoned) browser.process()?.kill("SIGKILL");
    };
    const key = input.launchKey;
    const cpus = cpuListOf(input.cpus);
    try {
      if (!key) {
        await drop();
        return await runInFreshBrowser({ executablePath, origin, token, input, timeoutMs, log, args, dumpio, onLaunch });
      }
      // A kept browser that has gone (crashed, killed) is replaced rather than failing the trial.
      if (kept?.key !== key || kept.launch.cpus !== cpus || !kept.launch.browser.connected) await drop();
      if (!kept) {
        try {
          kept = { key, launch: await launchTrialBrowser({ executablePath, args, dumpio, protocolTimeoutMs: timeoutMs + 60_000, onLaunch, cpus: input.cpus }) };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log(`trial browser: ${describeInput(input)} failed: ${message}`);
          return failure(`the fresh browser for this trial failed: ${message}`);
        }
      }
      clearTimeout(kept.idle);
      const { launch } = kept;
      onLaunch(launch.browser);
      const answer = await runTrial({ origin, token, input, timeoutMs, log, launch });
      if (answer.result.failure) {
        // runTrial closed the launch of a failed trial.
        kept = undefined;
      } else {
        kept.idle = setTimeout(() => { if (kept?.launch === launch) drop(); }, IDLE_CLOSE_MS);
        kept.idle.unref?.();
      }
      return answer;
    } finally {
      if (current === trial) current = undefined;
    }
  };
  const abort = async () => {
    const trial = current;
    if (!trial) return;
    log("trial browser: abandoned by control; killing it");
    trial.abandoned = true;
    trial.browser?.process()?.kill("SIGKILL");
  };
  return { run, abort, close: drop };
}

/**
 * Exposes a trialBrowserHost on a worker tab (before it navigates; it survives reloads) as
 * `codecbenchTrialBrowser(input, timeoutMs)` and `codecbenchTrialBrowserAbort()`. Answers a
 * function that closes the launch it keeps.
 */
export async function exposeTrialBrowser(page, options) {
  const host = trialBrowserHost(options);
  await page.exposeFunction("codecbenchTrialBrowser", host.run);
  await page.exposeFunction("codecbenchTrialBrowserAbort", host.abort);
  return host.close;
}
