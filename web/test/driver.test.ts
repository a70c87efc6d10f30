import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { V8_FLAGS } from "../driver/flags.mjs";
import { requireChromium } from "./chromium";
import { FakeControl } from "./fake-control";
import { startProcess, type Child } from "./processes";
import { servePage, type PageServer } from "./serve-page";

// A driver that is killed outright (SIGKILL: no chance to close Chromium) must not leave Chromium
// running: it talks to Chromium over a pipe, and Chromium exits when the pipe closes.

const driverPath = new URL("../driver/driver.mjs", import.meta.url).pathname;

/** Pids of the processes whose parent is `pid`. */
function children(pid: number): number[] {
  const out = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).trim();
  return out ? out.split(/\s+/).map(Number) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the driver", () => {
  const control = new FakeControl();
  let server: PageServer;
  let driver: Child | undefined;
  const dir = mkdtempSync(join(tmpdir(), "codecbench-driver-test-"));

  beforeAll(async () => {
    requireChromium();
    server = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
  });
  afterAll(async () => {
    await driver?.stop("SIGKILL");
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves no Chromium behind when it is killed with SIGKILL", async () => {
    driver = startProcess("driver", process.execPath, [driverPath, "--control", server.origin, "--count", "1", "--log", join(dir, "driver.log")]);
    await driver.waitForLine(/1 tab\(s\) open/, 60_000);
    const chromium = children(driver.process.pid!);
    expect(chromium.length).toBeGreaterThan(0);
    // Chromium runs with the fixed V8 young generation and no pretenuring (flags.mjs), and the page was told so.
    const cmdline = readFileSync(`/proc/${chromium[0]}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain(`--js-flags=${V8_FLAGS}`);
    expect(V8_FLAGS).toMatch(/--min-semi-space-size=16 --max-semi-space-size=16/);
    expect(V8_FLAGS).toMatch(/--no-allocation-site-pretenuring/);
    await expect.poll(() => control.attaches.length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(control.attaches[0]!.environment!.details["v8Flags"]).toBe(V8_FLAGS);
    await driver.stop("SIGKILL");
    const deadline = Date.now() + 10_000;
    while (chromium.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const left = chromium.filter(alive);
    for (const pid of left) process.kill(pid, "SIGKILL"); // do not leak it from a failing test
    expect(left).toEqual([]);
  }, 90_000);
});
