// Trials in a fresh Chromium each: the driver exposes `codecbenchTrialBrowser(input, timeoutMs)`
// on every worker tab; a call launches a new headless Chromium (same flags, a new profile), opens
// control's trial page (trial.html, cross-origin isolated like the worker page), runs the one
// trial there and closes that browser before answering. Rust and Java run each trial in a fresh
// process for the same reason: a Chromium launch's code layout is shared by every renderer it
// forks, so trials inside one launch agree with each other more than with a rerun
// (src/worker/trials.ts has the figures). Used by driver.mjs and web/tools/stability.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

function failure(message) {
  return { result: { failure: `trial failed: ${message}`, payloadBytes: 0, extras: {} }, startMs: 0, totalMs: 0 };
}

/**
 * Runs one wire trial (src/worker/trials.ts WireTrialInput) in a fresh Chromium and answers with
 * its WireTrialRun; every fault (launch, page, timeout, crash) is a failed trial, never a throw.
 * `log(line)` records launches and faults.
 */
export async function runInFreshBrowser({ executablePath, origin, token = "", input, timeoutMs, log = () => {}, args = CHROMIUM_FLAGS, dumpio = false, onLaunch = () => {} }) {
  const start = performance.now();
  const userDataDir = mkdtempSync(join(tmpdir(), "codecbench-trial-"));
  let browser;
  let timer;
  const what = `${input.operation} ${input.dataset} ${input.codec}${input.decodeMode ? ` ${input.decodeMode}` : ""} (task ${input.taskId})`;
  try {
    const run = async () => {
      // A pipe, as for the worker's Chromium: if the driver dies, this browser exits with it.
      // A copy: puppeteer takes --disable-features out of the array it is given (to merge it with
      // its own), so a shared array would lose it from the second launch on.
      browser = await puppeteer.launch({ executablePath, headless: true, userDataDir, args: [...args], pipe: true, dumpio,
        // DevTools calls otherwise give up after puppeteer's default 180 s; the trial's own limit rules.
        protocolTimeout: timeoutMs + 60_000, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
      onLaunch(browser);
      const [page] = await browser.pages();
      page.on("pageerror", (error) => log(`trial browser: page error: ${error.message}`));
      page.on("console", (message) => { if (message.type() === "error") log(`trial browser: console.error: ${message.text()}`); });
      // With a token, control sets its cookie on this first load; the page's later requests carry it.
      const url = new URL("/trial.html", origin);
      if (token) url.searchParams.set("token", token);
      await page.goto(url.href, { waitUntil: "domcontentloaded" });
      await page.waitForFunction(() => typeof window.codecbenchTrial === "function", { timeout: 30_000 });
      const launchMs = performance.now() - start;
      const settleMs = await settle(browser.process()?.pid);
      const answer = await page.evaluate((input, timeoutMs) => window.codecbenchTrial(input, timeoutMs), input, timeoutMs);
      answer.result.extras = { ...answer.result.extras, browser_launch_ms: launchMs, browser_settle_ms: settleMs };
      // The trial worker's start is measured in the fresh page; launch and settling come before it.
      return { ...answer, startMs: launchMs + settleMs + answer.startMs };
    };
    const limitMs = timeoutMs + 30_000;
    const answer = await Promise.race([run(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the fresh browser gave no answer within ${limitMs / 1000} s; it was killed`)), limitMs)))]);
    log(`trial browser: ${what} ${answer.result.failure ? `failed: ${answer.result.failure}` : "done"} in ${(performance.now() - start).toFixed(0)} ms (start ${answer.startMs.toFixed(0)} ms)`);
    return answer;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`trial browser: ${what} failed: ${message}`);
    return failure(`the fresh browser for this trial failed: ${message}`);
  } finally {
    clearTimeout(timer);
    // Closed before the answer goes back, so its exit never overlaps the next timed step.
    try {
      await Promise.race([browser?.close() ?? Promise.resolve(), new Promise((_, reject) => setTimeout(() => reject(new Error("close timed out")), 10_000))]);
    } catch {
      browser?.process()?.kill("SIGKILL");
    }
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

/**
 * Exposes `codecbenchTrialBrowser` on a worker tab (before it navigates; it survives reloads), and
 * `codecbenchTrialBrowserAbort`, which closes the Chromium of the trial in flight (control ended
 * its task): that trial then answers as failed at once.
 */
export async function exposeTrialBrowser(page, { executablePath, origin, token, log, args, dumpio }) {
  // The trial in flight: its Chromium once launched, and whether control abandoned it (an abort
  // may come before the launch finished; the browser is then killed as soon as it exists).
  let current;
  await page.exposeFunction("codecbenchTrialBrowser", async (input, timeoutMs) => {
    const trial = { browser: undefined, abandoned: false };
    current = trial;
    const onLaunch = (browser) => {
      trial.browser = browser;
      if (trial.abandoned) browser.process()?.kill("SIGKILL");
    };
    try {
      return await runInFreshBrowser({ executablePath, origin, token, input, timeoutMs, log, args, dumpio, onLaunch });
    } finally {
      if (current === trial) current = undefined;
    }
  });
  await page.exposeFunction("codecbenchTrialBrowserAbort", async () => {
    const trial = current;
    if (!trial) return;
    log("trial browser: abandoned by control; killing it");
    trial.abandoned = true;
    trial.browser?.process()?.kill("SIGKILL");
  });
}
