#!/usr/bin/env node
// Opens N headless Chromium tabs on control's worker page (each tab is one browser worker),
// forwards every page's console to a log file, runs each trial those tabs are given in a fresh
// Chromium (trial-browser.mjs; `--trials web-worker` keeps them in the tab's own Web Workers),
// and on SIGTERM/SIGINT optionally screenshots the first tab, closes Chromium and exits 0.
//
//   node web/driver/driver.mjs --control http://127.0.0.1:PORT --count N --log FILE [--screenshot FILE] [--trials fresh-browser|web-worker] [--user-dataset MANIFEST]...
//
// Each --user-dataset manifest (proto/README.md, "A user's dataset") is read with its descriptor
// set before Chromium starts and handed to every tab before its script runs (user-datasets.mjs);
// each trial carries its dataset's on to the fresh page it runs in. A bad manifest exits 2 with
// one line naming it, whether the driver finds the fault or the page does (before attaching).
//
// When control requires a token, it comes from CODECBENCH_TOKEN_FILE (a file) or CODECBENCH_TOKEN:
// each page is opened once with `?token=`, and control's cookie carries it from then on.

import { createWriteStream, mkdtempSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import puppeteer from "puppeteer-core";
import { CHROMIUM_FLAGS, V8_FLAGS } from "./flags.mjs";
import { exposeTrialBrowser } from "./trial-browser.mjs";
import { injectUserDatasets, readUserDatasets, userDatasetsVerdict } from "./user-datasets.mjs";

const CHROMIUM = process.env.CODECBENCH_CHROMIUM || "/usr/bin/chromium";

function usage(message) {
  process.stderr.write(`driver: ${message}\nusage: node web/driver/driver.mjs --control http://127.0.0.1:PORT --count N --log FILE [--screenshot FILE] [--trials fresh-browser|web-worker] [--user-dataset MANIFEST]...\n`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      control: { type: "string" },
      count: { type: "string", default: "1" },
      log: { type: "string" },
      screenshot: { type: "string" },
      trials: { type: "string", default: "fresh-browser" },
      "user-dataset": { type: "string", multiple: true, default: [] },
    },
    strict: true,
  }));
} catch (error) {
  usage(error.message);
}
if (!options.control) usage("--control is required");
if (!options.log) usage("--log is required");
const count = Number(options.count);
if (!Number.isInteger(count) || count < 1) usage(`--count must be a whole number of at least 1, got ${options.count}`);
if (!["fresh-browser", "web-worker"].includes(options.trials)) usage(`--trials must be fresh-browser or web-worker, got ${options.trials}`);
let userDatasets;
try {
  userDatasets = readUserDatasets(options["user-dataset"]);
} catch (error) {
  // A manifest's own fault, not the command line's: its line alone.
  process.stderr.write(`driver: ${error.message}\n`);
  process.exit(2);
}
let token = process.env.CODECBENCH_TOKEN ?? "";
if (process.env.CODECBENCH_TOKEN_FILE) {
  try {
    token = readFileSync(process.env.CODECBENCH_TOKEN_FILE, "utf8");
  } catch (error) {
    usage(`cannot read the token file ${process.env.CODECBENCH_TOKEN_FILE}: ${error.message}`);
  }
}
token = token.trim();
let pageUrl;
// What the log shows: the page's address without the token.
let shownUrl;
try {
  // The page records the V8 flags it runs under in its environment (it cannot read them itself).
  const url = new URL("/", options.control);
  url.searchParams.set("v8Flags", V8_FLAGS);
  shownUrl = url.href;
  if (token) url.searchParams.set("token", token);
  pageUrl = url.href;
} catch {
  usage(`--control is not a URL: ${options.control}`);
}

mkdirSync(dirname(resolve(options.log)), { recursive: true });
const log = createWriteStream(options.log, { flags: "a" });
const write = (line) => log.write(`${new Date().toISOString()} ${line}\n`);

const userDataDir = mkdtempSync(join(tmpdir(), "codecbench-chromium-"));
let browser;
let stopping = false;
// Each tab's trial browser kept for the current pass, closed (profile removed) on stop.
const trialBrowserClosers = [];

/** A user dataset the page could not build, in the page's words. */
class RefusedManifest extends Error {}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

async function stop(signal) {
  if (stopping) return;
  stopping = true;
  write(`driver: ${signal}, stopping`);
  let code = 0;
  try {
    if (options.screenshot && browser) {
      const [first] = await browser.pages();
      if (first) {
        mkdirSync(dirname(resolve(options.screenshot)), { recursive: true });
        // A tab behind others renders no frames, and a screenshot of it would wait forever.
        await first.bringToFront();
        await withTimeout(first.screenshot({ path: options.screenshot, fullPage: true }), 20_000, "the screenshot took longer than 20 s");
        write(`driver: screenshot of tab 1 written to ${options.screenshot}`);
      }
    }
  } catch (error) {
    write(`driver: screenshot failed: ${error.message}`);
    process.stderr.write(`driver: screenshot failed: ${error.message}\n`);
    code = 1;
  }
  for (const close of trialBrowserClosers) await close().catch((error) => write(`driver: closing a trial browser failed: ${error.message}`));
  try {
    await withTimeout(browser?.close() ?? Promise.resolve(), 10_000, "Chromium did not close within 10 s");
  } catch (error) {
    // Chromium is our child: end it by its pid rather than leave it behind.
    write(`driver: closing Chromium failed: ${error.message}; killing it`);
    browser?.process()?.kill("SIGKILL");
  }
  rmSync(userDataDir, { recursive: true, force: true });
  log.end(() => process.exit(code));
}

process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));

function follow(page, tab) {
  const prefix = `tab ${tab}:`;
  page.on("console", (message) => write(`${prefix} console.${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => write(`${prefix} page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    // An aborted stream when a tab closes is expected; everything else is worth a line.
    if (!stopping) write(`${prefix} request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`);
  });
  page.on("crash", () => write(`${prefix} crashed`));
}

try {
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir,
    args: [...CHROMIUM_FLAGS], // a copy: puppeteer edits the array it is given
    // One tab per worker: no viewport emulation, a page the size a person would see.
    defaultViewport: { width: 1280, height: 900 },
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    // DevTools over a pipe, not a WebSocket: Chromium runs in a process group of its own, so if
    // the driver is killed outright (SIGKILL) nothing would stop it; with a pipe it exits as soon
    // as the pipe closes, i.e. when the driver is gone.
    pipe: true,
  });
  write(`driver: ${await browser.version()} started, opening ${count} tab(s) on ${shownUrl}${token ? " (with the token)" : ""}`);
  browser.on("disconnected", () => {
    if (stopping) return;
    write("driver: Chromium exited unexpectedly");
    process.stderr.write("driver: Chromium exited unexpectedly\n");
    rmSync(userDataDir, { recursive: true, force: true });
    log.end(() => process.exit(1));
  });
  for (const source of userDatasets) write(`driver: user dataset ${source.id} (${source.message}, ${source.fieldNames} field names) from ${source.manifest}`);
  const [blank] = await browser.pages();
  for (let tab = 1; tab <= count; tab++) {
    const page = tab === 1 && blank ? blank : await browser.newPage();
    follow(page, tab);
    if (options.trials === "fresh-browser") trialBrowserClosers.push(await exposeTrialBrowser(page, { executablePath: CHROMIUM, origin: pageUrl, token, log: (line) => write(`tab ${tab}: ${line}`) }));
    if (userDatasets.length > 0) await injectUserDatasets(page, userDatasets);
    await page.goto(pageUrl, { waitUntil: "domcontentloaded" });
    write(`tab ${tab}: opened ${shownUrl}`);
    if (userDatasets.length > 0) {
      const refused = await userDatasetsVerdict(page);
      if (refused !== null) throw new RefusedManifest(refused);
    }
  }
  process.stdout.write(`codecbench driver: ${count} tab(s) open on ${shownUrl}, console in ${options.log}\n`);
} catch (error) {
  // The page could not build a user dataset (it has not attached): the manifest's fault, exit 2.
  const refused = error instanceof RefusedManifest;
  write(`driver: could not start: ${error.message}`);
  process.stderr.write(refused ? `driver: ${error.message}\n` : `driver: could not start Chromium or open the page: ${error.message}\n`);
  stopping = true;
  for (const close of trialBrowserClosers) await close().catch(() => {});
  await browser?.close().catch(() => {});
  rmSync(userDataDir, { recursive: true, force: true });
  log.end(() => process.exit(refused ? 2 : 1));
}
