import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_FLAGS } from "../driver/flags.mjs";
import { closeLaunch, cpusAllowed, launchTrialBrowser, processTree, runInFreshBrowser, runTrial, trialBrowserHost } from "../driver/trial-browser.mjs";
import { toWireInput } from "../src/worker/trials";
import { chromiumPath, requireChromium } from "./chromium";
import { FakeControl } from "./fake-control";
import { servePage, type PageServer } from "./serve-page";
import { canonicalPb, vector } from "./vectors";

// The driver's fresh Chromium per trial, called directly: a real trial comes back verified, and
// every way it can fail is a failed trial with the cause, never a throw or a leftover browser.

// This file's trial profiles live in a temporary directory of its own (the driver makes them with
// mkdtemp under os.tmpdir()), so a leftover Chromium of *this* test is told from the trial
// Chromiums (and Java trial JVMs under /tmp/codecbench-trial-*) of a benchmark or another suite
// running on the same machine — orphaned helper processes included, whoever their parent now is.
const ownTmp = mkdtempSync(join(tmpdir(), "codecbench-trial-test-"));
process.env.TMPDIR = ownTmp;

/** Pids of Chromium processes started with one of this file's trial profiles still running. */
function trialBrowsersRunning(): number[] {
  const profile = `--user-data-dir=${join(ownTmp, "codecbench-trial-")}`;
  return readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(profile);
    } catch {
      return false;
    }
  }).map(Number);
}

/** The trial profiles of this file's running Chromiums (one per launch). */
function profiles(): string[] {
  const profile = new RegExp(`--user-data-dir=(${join(ownTmp, "codecbench-trial-")}[^\\0 ]*)`);
  const found = new Set<string>();
  for (const pid of trialBrowsersRunning()) {
    try {
      const match = profile.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
      if (match) found.add(match[1]!);
    } catch {}
  }
  return [...found].sort();
}

// A lane of one CPU for the pinning tests: the first this process may use (0 on most machines).
const laneCpu = Math.min(...cpusAllowed(process.pid).split(",").map((part) => Number(part.split("-")[0])));

function decodeInput(launchKey?: string, taskId = "t1", cpus?: number[]) {
  return toWireInput({
    taskId,
    operation: "decode",
    dataset: "dummy",
    codec: "protobuf",
    decodeMode: "typed",
    recordCount: 3,
    lazyFields: [],
    sampling: { warmupMs: 5, maxWarmupMs: 300, rounds: 3, minRoundMs: 2 },
    canonical: canonicalPb("dummy").slice(),
    payload: vector("dummy", "protobuf").slice(),
    ...(launchKey ? { launchKey } : {}),
    ...(cpus ? { cpus } : {}),
  });
}

describe("a trial in a fresh Chromium", () => {
  let isolated: PageServer;
  let plain: PageServer;
  const control = new FakeControl();
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  beforeAll(async () => {
    requireChromium();
    isolated = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
    plain = await servePage({ isolated: false });
  });
  afterAll(async () => {
    await isolated?.close();
    await plain?.close();
    rmSync(ownTmp, { recursive: true, force: true });
  });

  it("runs the trial in the trial page's Web Worker and reports launch and settling", async () => {
    const run = await runInFreshBrowser({ executablePath: chromiumPath, origin: isolated.origin, input: decodeInput(), timeoutMs: 30_000, log });
    expect(run.result.failure).toBe("");
    expect(run.result.sample?.roundNsPerOp).toHaveLength(3);
    expect(run.result.extras["cross_origin_isolated"]).toBe(1);
    expect(run.result.extras["browser_launch_ms"]).toBeGreaterThan(0);
    expect(run.result.extras["browser_settle_ms"]).toBeGreaterThanOrEqual(150); // three quiet 50 ms windows at least
    expect(run.startMs).toBeGreaterThan(run.result.extras["browser_launch_ms"]!);
    expect(lines.at(-1)).toMatch(/^trial browser: decode dummy protobuf typed \(task t1\) done in \d+ ms/);
    expect(trialBrowsersRunning()).toEqual([]);
  }, 60_000);

  it("leaves the launch flags it is given as they were, so the next launch gets them all", async () => {
    // puppeteer takes --disable-features out of the array it launches with; a shared flags array
    // lost the omnibox-preload switch from the second launch on until each launch got a copy.
    const args = [...CHROMIUM_FLAGS];
    for (let launch = 0; launch < 2; launch++) {
      const run = await runInFreshBrowser({ executablePath: chromiumPath, origin: isolated.origin, input: decodeInput(), timeoutMs: 30_000, log, args });
      expect(run.result.failure).toBe("");
    }
    expect(args).toEqual(CHROMIUM_FLAGS);
    expect(args.some((flag) => flag.startsWith("--disable-features=") && flag.includes("WebUIOmniboxPopup"))).toBe(true);
  }, 60_000);

  it("fails the trial, naming the cause, when the trial page is not cross-origin isolated", async () => {
    const run = await runInFreshBrowser({ executablePath: chromiumPath, origin: plain.origin, input: decodeInput(), timeoutMs: 30_000, log });
    expect(run.result.failure).toMatch(/^trial failed: the fresh browser's trial page is not cross-origin isolated/);
  }, 60_000);

  it("fails the trial when Chromium cannot start", async () => {
    const run = await runInFreshBrowser({ executablePath: "/nonexistent/chromium", origin: isolated.origin, input: decodeInput(), timeoutMs: 30_000, log });
    expect(run.result.failure).toMatch(/^trial failed: the fresh browser for this trial failed: .*\/nonexistent\/chromium/);
    expect(lines.at(-1)).toMatch(/^trial browser: decode dummy protobuf typed \(task t1\) failed: /);
  }, 60_000);

  it("fails a trial that does not answer in time, and the browser goes with it", async () => {
    const input = { ...decodeInput(), sampling: { warmupMs: 60_000, maxWarmupMs: 60_000, rounds: 3, minRoundMs: 2 } };
    const run = await runInFreshBrowser({ executablePath: chromiumPath, origin: isolated.origin, input, timeoutMs: 1_000, log });
    expect(run.result.failure).toBe("trial failed: the trial worker gave no answer within 1 s; it was terminated");
    expect(trialBrowsersRunning()).toEqual([]);
  }, 60_000);

  it("runs the trials of one pass in one launch, each in a page of its own, and the next pass in a new launch", async () => {
    const host = trialBrowserHost({ executablePath: chromiumPath, origin: isolated.origin, log });
    try {
      const a = await host.run(decodeInput("run/trial-0", "a"), 30_000);
      const launchA = profiles();
      const b = await host.run(decodeInput("run/trial-0", "b"), 30_000);
      for (const run of [a, b]) expect(run.result.failure).toBe("");
      // One launch: the same profile, the second trial its second, with its launch time and no launch of its own.
      expect(profiles()).toEqual(launchA);
      expect(launchA).toHaveLength(1);
      expect([a.result.extras["browser_launch_trial"], b.result.extras["browser_launch_trial"]]).toEqual([0, 1]);
      expect(b.result.extras["browser_launch_ms"]).toBe(a.result.extras["browser_launch_ms"]);
      expect(a.startMs).toBeGreaterThan(a.result.extras["browser_launch_ms"]!);
      expect(b.startMs).toBeLessThan(a.startMs);
      expect(b.result.extras["browser_page_ms"]).toBeGreaterThan(0);
      // A new pass: the old browser is gone, a new one runs the trial as its first.
      const c = await host.run(decodeInput("run/trial-1", "c"), 30_000);
      expect(c.result.failure).toBe("");
      expect(c.result.extras["browser_launch_trial"]).toBe(0);
      expect(profiles()).toHaveLength(1);
      expect(profiles()).not.toEqual(launchA);
      // A failed trial takes its browser with it; the next trial of that pass gets a new one.
      const slow = { ...decodeInput("run/trial-1", "d"), sampling: { warmupMs: 60_000, maxWarmupMs: 60_000, rounds: 3, minRoundMs: 2 } };
      const before = profiles();
      expect((await host.run(slow, 1_000)).result.failure).toBe("trial failed: the trial worker gave no answer within 1 s; it was terminated");
      expect(trialBrowsersRunning()).toEqual([]);
      const e = await host.run(decodeInput("run/trial-1", "e"), 30_000);
      expect(e.result.extras["browser_launch_trial"]).toBe(0);
      expect(profiles()).not.toEqual(before);
      // Without a key, a Chromium of its own, closed with the trial (the kept one is closed first).
      const f = await host.run(decodeInput(undefined, "f"), 30_000);
      expect(f.result.failure).toBe("");
      expect(trialBrowsersRunning()).toEqual([]);
    } finally {
      await host.close();
    }
    expect(trialBrowsersRunning()).toEqual([]);
  }, 120_000);

  it("starts a lane's Chromium pinned to its cpus, every process it starts too, and reports them as trialCpus", async () => {
    const launch = await launchTrialBrowser({ executablePath: chromiumPath, cpus: [laneCpu] });
    try {
      const pid = launch.browser.process()!.pid!;
      expect(cpusAllowed(pid)).toBe(`${laneCpu}`);
      // With a page open, a renderer exists: it and the zygotes inherited the browser's affinity.
      const page = await launch.browser.newPage();
      await page.goto(`${isolated.origin}/trial.html`, { waitUntil: "domcontentloaded" });
      const tree = processTree(pid).map((p) => {
        try {
          return { cmdline: readFileSync(`/proc/${p}/cmdline`, "utf8"), cpus: cpusAllowed(p) };
        } catch {
          return { cmdline: "", cpus: "" }; // exited meanwhile
        }
      }).filter((p) => p.cpus);
      expect(tree.filter((p) => p.cmdline.includes("--type=renderer")).length).toBeGreaterThan(0);
      expect(new Set(tree.map((p) => p.cpus))).toEqual(new Set([`${laneCpu}`]));
      await page.close();
      const run = await runTrial({ executablePath: chromiumPath, origin: isolated.origin, input: decodeInput(undefined, "t1", [laneCpu]), timeoutMs: 30_000, log, launch });
      expect(run.result.failure).toBe("");
      expect(run.result.trialCpus).toBe(`${laneCpu}`);
    } finally {
      await closeLaunch(launch);
    }
    expect(trialBrowsersRunning()).toEqual([]);
  }, 60_000);

  it("keeps a launch to its lane: the same pass unpinned (or in another lane) gets a launch of its own", async () => {
    const host = trialBrowserHost({ executablePath: chromiumPath, origin: isolated.origin, log });
    try {
      const a = await host.run(decodeInput("run/trial-0", "a", [laneCpu]), 30_000);
      expect(a.result.failure).toBe("");
      expect(a.result.trialCpus).toBe(`${laneCpu}`);
      const launchA = profiles();
      const b = await host.run(decodeInput("run/trial-0", "b"), 30_000);
      expect(b.result.failure).toBe("");
      expect(b.result.extras["browser_launch_trial"]).toBe(0);
      expect(profiles()).not.toEqual(launchA);
      // Unpinned, a trial browser may run wherever the driver may.
      expect(b.result.trialCpus).toBe(cpusAllowed(process.pid));
    } finally {
      await host.close();
    }
    expect(trialBrowsersRunning()).toEqual([]);
  }, 60_000);

  it("runs a trial sent by reference: the trial page fetches its blobs from control and stores an encode's payload there", async () => {
    const canonical = canonicalPb("dummy").slice();
    const payload = vector("dummy", "protobuf").slice();
    const blobs = { canonical: { id: control.putBlob(canonical), size: canonical.length }, payload: { id: control.putBlob(payload), size: payload.length } };
    const { canonical: _c, payload: _p, ...rest } = decodeInput();
    const decode = await runInFreshBrowser({ executablePath: chromiumPath, origin: isolated.origin, input: { ...rest, blobs, byReference: true }, timeoutMs: 30_000, log });
    expect(decode.result.failure).toBe("");
    expect(decode.result.sample?.roundNsPerOp).toHaveLength(3);
    const encode = await runInFreshBrowser({ executablePath: chromiumPath, origin: isolated.origin, input: { ...rest, operation: "encode", decodeMode: "", codec: "json", blobs: { canonical: blobs.canonical }, byReference: true }, timeoutMs: 30_000, log });
    expect(encode.result.failure).toBe("");
    expect(encode.result.payload).toBeUndefined();
    const stored = encode.result.payloadBlob!;
    expect(control.blobs.get(stored.id)).toEqual(vector("dummy", "json", "browser"));
    expect(stored.size).toBe(vector("dummy", "json", "browser").length);
    // A blob control does not have: a failed trial naming the cause.
    const missing = await runInFreshBrowser({ executablePath: chromiumPath, origin: isolated.origin, input: { ...rest, blobs: { canonical: { id: "0".repeat(64), size: 5 } }, byReference: true }, timeoutMs: 30_000, log });
    expect(missing.result.failure).toMatch(/^trial failed: the trial page could not fetch its blobs from control: /);
  }, 90_000);
});
