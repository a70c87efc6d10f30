import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { V8_FLAGS } from "../driver/flags.mjs";
import { encodeRecords } from "../src/codecs/codec";
import { codecs } from "../src/codecs/registry";
import { Operation } from "../src/gen/codecbench/v1/scenario_pb";
import { datasetById, registerUserDataset } from "../src/datasets/registry";
import { requireChromium } from "./chromium";
import { FakeControl, task } from "./fake-control";
import { startProcess, type Child } from "./processes";
import { servePage, type PageServer } from "./serve-page";
import { compileSet, EVERYTHING, SHIPMENT, sourceOf, writeDatasetFolder, type Manifest } from "./user-schemas";

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

// A user's dataset given to the driver (--user-dataset): every tab builds it from the descriptor
// set before attaching and announces it; its tasks run in fresh-browser trials, which build it
// from what the trial carries. A manifest the page cannot build stops the driver before attaching.
describe("the driver with --user-dataset", () => {
  const dir = mkdtempSync(join(tmpdir(), "codecbench-driver-user-test-"));
  const shipment: Manifest = { id: "shipment", message: "zz.plain.v1.Shipment", fieldNames: "proto", lazyFields: ["shipment_id", "ship_to.postal_code"], fingerprint: "68dbed56a8a773b8" };
  const everything: Manifest = { id: "everything", message: "zz.unknown.v1.Everything", fieldNames: "json", lazyFields: [], fingerprint: "2cc5b3647ede6d50" };
  const shipmentSet = compileSet(SHIPMENT);
  const everythingSet = compileSet(EVERYTHING);
  const manifests = [writeDatasetFolder(dir, shipment, shipmentSet), writeDatasetFolder(dir, everything, everythingSet)];
  const stacks: Array<{ server: PageServer; driver?: Child }> = [];

  async function stack() {
    const control = new FakeControl();
    const server = await servePage({ isolated: true, grpc: connectNodeAdapter({ routes: control.routes }) });
    const entry: { server: PageServer; driver?: Child } = { server };
    stacks.push(entry);
    const start = (...args: string[]) => (entry.driver = startProcess("driver", process.execPath, [driverPath, "--control", server.origin, ...args]));
    return { control, start };
  }
  afterAll(async () => {
    for (const { server, driver } of stacks) {
      await driver?.stop("SIGTERM");
      await server.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("has each tab attach carrying the user's datasets, and runs their tasks in fresh-browser trials, verified", async () => {
    requireChromium();
    const { control, start } = await stack();
    // The records as control's canonical blob holds them: each field 1 of one list.
    const dataset = registerUserDataset(sourceOf(shipment, shipmentSet));
    const messages = [create(dataset.recordMessage, { shipmentId: "S-1", itemCount: 3, shipTo: { postalCode: "8000" }, parcels: [{ weightGrams: 5 }] } as never), create(dataset.recordMessage, { shipmentId: "S-2", giftNote: "李" } as never)];
    const writer = new BinaryWriter();
    for (const message of messages) writer.tag(1, WireType.LengthDelimited).bytes(toBinary(dataset.recordMessage, message));
    const canonicalBytes = writer.finish();
    const blob = (bytes: Uint8Array) => ({ id: control.putBlob(bytes), size: bytes.length });
    const canonical = blob(canonicalBytes);
    const bson = encodeRecords(codecs.get("bson")!.prepare(dataset), dataset.fromCanonical(canonicalBytes));
    const everythingCanonical = writeList(everythingSet);
    const everything = datasetById("everything");
    const everythingJson = encodeRecords(codecs.get("json")!.prepare(everything), everything.fromCanonical(everythingCanonical));
    control.enqueue(
      task({ operation: Operation.ENCODE, dataset: "shipment", codec: "json", recordCount: 2, canonical }),
      task({ operation: Operation.DECODE, dataset: "shipment", codec: "bson", decodeMode: "lazy", lazyFields: [...shipment.lazyFields], recordCount: 2, canonical, payload: blob(bson) }),
      // protobuf's payload is the canonical blob's own framing.
      task({ operation: Operation.DECODE, dataset: "everything", codec: "protobuf", recordCount: 1, canonical: blob(everythingCanonical), payload: blob(everythingCanonical) }),
      // Every proto3 feature in Chromium's own JSON (rawJSON, source text) and cbor-x.
      task({ operation: Operation.DECODE, dataset: "everything", codec: "json", decodeMode: "tree", recordCount: 1, canonical: blob(everythingCanonical), payload: blob(everythingJson) }),
      task({ operation: Operation.ENCODE, dataset: "everything", codec: "cbor", recordCount: 1, canonical: blob(everythingCanonical) }),
    );
    const logFile = join(dir, "driver.log");
    const driver = start("--count", "1", "--log", logFile, ...manifests.flatMap((path) => ["--user-dataset", path]));
    await driver.waitForLine(/1 tab\(s\) open/, 60_000);
    const reports = await control.waitForReports(5, 90_000);
    expect(reports.map((r) => r.failure)).toEqual(["", "", "", "", ""]);
    for (const m of reports.flatMap((r) => r.measurements)) {
      expect(m.verified).toBe(true);
      expect(m.extras["browser_launch_ms"]).toBeGreaterThan(0);
    }
    const announced = new Map(control.attaches[0]!.datasets.map((info) => [info.id, info]));
    expect(announced.get("shipment")).toMatchObject({ message: "zz.plain.v1.Shipment", fingerprint: "68dbed56a8a773b8", fieldNames: "proto", refused: [] });
    const everythingInfo = announced.get("everything")!;
    expect([everythingInfo.fingerprint, everythingInfo.fieldNames]).toEqual(["2cc5b3647ede6d50", "json"]);
    expect(everythingInfo.refused.map((r) => r.codec)).toEqual(["bson", "ubjson", "flatbuffers"]);
    expect(everythingInfo.refused[0]!.reason).toMatch(/^bson: uint64 field zz\.unknown\.v1\.Everything\.u64 is not offered/);
    expect(announced.get("dummy")?.fieldNames).toBe("json");
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain(`driver: user dataset shipment (zz.plain.v1.Shipment, proto field names) from ${manifests[0]}`);
    expect(log).toContain("codecbench browser worker: carrying user dataset shipment (zz.plain.v1.Shipment, schema fingerprint 68dbed56a8a773b8, as its manifest says)");
    expect(await driver.stop("SIGTERM")).toBe(0);
  }, 180_000);

  it("exits 2 without attaching when the page cannot build a manifest's dataset, with the page's reason", async () => {
    requireChromium();
    const { control, start } = await stack();
    const builtIn = writeDatasetFolder(join(dir, "clash"), { ...shipment, id: "dummy" }, shipmentSet);
    const driver = start("--count", "1", "--log", join(dir, "refused.log"), "--user-dataset", builtIn);
    const code = await Promise.race([driver.exited, new Promise((resolve) => setTimeout(() => resolve("still running after 90 s"), 90_000))]);
    expect(code, driver.output.join("\n")).toBe(2);
    expect(driver.output).toContain(`driver: user dataset "dummy" (${builtIn}): "dummy" is a built-in dataset's id; give yours another`);
    expect(control.attaches).toEqual([]);
  }, 120_000);
});

/** One zz.unknown.v1.Everything record (a map, a oneof, a Timestamp, bytes, a float and 64-bit extremes set) as a canonical blob. */
function writeList(set: Uint8Array): Uint8Array {
  const dataset = registerUserDataset(sourceOf({ id: "everything", message: "zz.unknown.v1.Everything", fieldNames: "json", lazyFields: [], fingerprint: "" }, set));
  const record = create(dataset.recordMessage, { u64: 2n ** 64n - 1n, i64: -(2n ** 63n), f: 0.1, blob: new Uint8Array([0, 255]), text: "x", attributes: { k: { units: 5n } }, payment: { case: "card", value: "4111" }, placedAt: { seconds: 1n } } as never);
  return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(toBinary(dataset.recordMessage, record)).finish();
}
