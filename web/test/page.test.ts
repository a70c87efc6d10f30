import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import { canonicalPb, vector } from "./vectors";
import { requireChromium } from "./chromium";
import { FakeControl, task } from "./fake-control";
import { startProcess, type Child } from "./processes";
import { servePage, type PageServer } from "./serve-page";

// The real page in headless Chromium, opened by the driver, against a Node stand-in for control
// that serves the page cross-origin isolated and answers gRPC-web: so the page, connect-web and
// the driver are tested even where the Rust binaries are not built.

const driverPath = new URL("../driver/driver.mjs", import.meta.url).pathname;

describe("the page in Chromium against a gRPC-web control", () => {
  const control = new FakeControl();
  let server: PageServer;
  let driver: Child | undefined;
  const dir = mkdtempSync(join(tmpdir(), "codecbench-page-test-"));
  const logFile = join(dir, "driver.log");
  const screenshot = join(dir, "page.png");

  beforeAll(async () => {
    requireChromium();
    server = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
  });
  afterAll(async () => {
    // SIGTERM, not SIGKILL: the driver must close its Chromium (puppeteer starts it in its own
    // process group, so killing the driver alone would leave Chromium behind).
    await driver?.stop("SIGTERM");
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("attaches from two tabs, runs encode and decode tasks verified, and stops cleanly", async () => {
    const blob = (bytes: Uint8Array) => ({ id: control.putBlob(bytes), size: bytes.length });
    const canonical = (id: "dummy" | "numeric" | "owners" | "docs") => blob(canonicalPb(id));
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "dummy", codec: "json", recordCount: 3, canonical: canonical("dummy") }),
      task({ operation: Operation.ENCODE, dataset: "numeric", codec: "bson", recordCount: 3, canonical: canonical("numeric") }),
      task({ operation: Operation.DECODE, dataset: "numeric", codec: "json", recordCount: 3, canonical: canonical("numeric"), payload: blob(vector("numeric", "json")), measureTransfer: true }),
      task({ operation: Operation.DECODE, dataset: "owners", codec: "bson", recordCount: 3, canonical: canonical("owners"), payload: blob(vector("owners", "bson")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "json", decodeMode: "lazy", lazyField: "name", recordCount: 3, canonical: canonical("docs"), payload: blob(vector("docs", "json")) }),
      // The other codecs in Chromium: ubjson's patched encoder on int64 data, Rust payloads decoded.
      task({ operation: Operation.ENCODE, dataset: "numeric", codec: "ubjson", recordCount: 3, canonical: canonical("numeric") }),
      task({ operation: Operation.DECODE, dataset: "owners", codec: "protobuf", recordCount: 3, canonical: canonical("owners"), payload: blob(vector("owners", "protobuf")) }),
      task({ operation: Operation.DECODE, dataset: "docs", codec: "msgpack", recordCount: 3, canonical: canonical("docs"), payload: blob(vector("docs", "msgpack")) }),
      task({ operation: Operation.DECODE, dataset: "numeric", codec: "ubjson", recordCount: 3, canonical: canonical("numeric"), payload: blob(vector("numeric", "ubjson")) }),
    );
    driver = startProcess("driver", process.execPath, [driverPath, "--control", server.origin, "--count", "2", "--log", logFile, "--screenshot", screenshot]);
    await driver.waitForLine(/2 tab\(s\) open/, 60_000);
    const reports = await control.waitForReports(9, 60_000);
    expect(reports.map((r) => r.failure)).toEqual(Array(9).fill(""));
    const measurements = reports.flatMap((r) => r.measurements);
    // Two tabs take tasks concurrently, so reports arrive in any order.
    expect(measurements.map((m) => Operation[m.operation]).sort()).toEqual([...Array(6).fill("DECODE"), ...Array(3).fill("ENCODE"), "TRANSFER"]);
    expect(measurements.every((m) => m.verified && m.roundNsPerOp.length === 3)).toBe(true);

    await expect.poll(() => control.attaches.length, { timeout: 30_000 }).toBe(2);
    const details = control.attaches[0]!.environment!.details;
    expect(details["crossOriginIsolated"]).toBe("true");
    // Isolated Chromium gives performance.now() a 5 µs grain (100 µs without isolation).
    expect(Number(details["timerResolutionUs"])).toBeLessThanOrEqual(20);
    expect(control.attaches[0]!.environment!.runtime).toMatch(/Chrom/);

    const code = await driver.stop("SIGTERM");
    expect(code, `driver exit; its log:\n${readFileSync(logFile, "utf8")}\n${driver.output.join("\n")}`).toBe(0);
    expect(existsSync(screenshot) && statSync(screenshot).size > 1000).toBe(true);
    if (process.env.CODECBENCH_KEEP_SCREENSHOT) copyFileSync(screenshot, process.env.CODECBENCH_KEEP_SCREENSHOT);
    const log = readFileSync(logFile, "utf8");
    expect(log).toMatch(/tab 1: console\.log: codecbench browser worker: attached as browser-\d/);
    expect(log).toMatch(/tab 2: console\.log: codecbench browser worker: attached as browser-\d/);
    expect(log).toContain("driver: SIGTERM, stopping");
  }, 120_000);
});
