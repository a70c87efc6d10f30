import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, describe, expect, it } from "vitest";
import { readUserDataset, readUserDatasets } from "../driver/user-datasets.mjs";
import { compileSet, READING, SHIPMENT, writeDatasetFolder } from "./user-schemas";

// The driver's --user-dataset manifests: read and checked, descriptor set included, before
// Chromium starts; a bad one is one line naming the file and the fault, and exit code 2.

const driverPath = new URL("../driver/driver.mjs", import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), "codecbench-manifest-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const shipmentSet = compileSet(SHIPMENT);
const good = { id: "shipment", message: "zz.plain.v1.Shipment", fieldNames: "proto" as const, lazyFields: ["shipment_id"], fingerprint: "68dbed56a8a773b8" };
const goodPath = writeDatasetFolder(root, good, shipmentSet);

/** A manifest of `json` (text as is when a string) beside the Shipment descriptor set; answers its path. */
function manifest(name: string, json: unknown): string {
  const path = join(root, `${name}.json`);
  writeFileSync(join(root, "descriptors.binpb"), shipmentSet);
  writeFileSync(path, typeof json === "string" ? json : JSON.stringify(json));
  return path;
}

const base = { ...good, descriptorSet: "descriptors.binpb" };

describe("a --user-dataset manifest", () => {
  it("is read with its descriptor set, relative to the manifest's folder, into the source the page builds from", () => {
    const source = readUserDataset(goodPath);
    expect(source).toEqual({ ...good, manifest: goodPath, descriptorSet: Buffer.from(readFileSync(join(root, "shipment", "descriptors.binpb"))).toString("base64") });
    // fieldNames defaults to json, lazyFields to none, as control reads an empty field_names.
    const { fieldNames: _f, lazyFields: _l, fingerprint: _p, ...bare } = base;
    expect(readUserDataset(manifest("defaults", bare))).toMatchObject({ fieldNames: "json", lazyFields: [], fingerprint: "" });
  });

  it.each([
    ["a missing manifest", () => join(root, "nowhere.json"), /: cannot read the manifest: ENOENT/],
    ["text that is not JSON", () => manifest("text", "{id: orders"), /: the manifest is not JSON: /],
    ["a list", () => manifest("list", []), /: the manifest is not a JSON object$/],
    ["a bad id", () => manifest("id", { ...base, id: "Orders" }), /: "id" is "Orders"; an id is 1 to 64 lowercase letters, digits and _, starting with a letter$/],
    ["no message", () => manifest("message", { ...base, message: undefined }), /: "message" is undefined; it names the record message in full/],
    ["a missing descriptor set", () => manifest("set", { ...base, descriptorSet: "gone.binpb" }), /: cannot read its descriptor set .*gone\.binpb: ENOENT/],
    ["bytes that are no descriptor set", () => (writeFileSync(join(root, "junk.binpb"), "junk\xff"), manifest("junk", { ...base, descriptorSet: "junk.binpb" })), /: its descriptor set .*junk\.binpb is not a FileDescriptorSet of the record's file and every import/],
    ["a message the set lacks", () => manifest("lacks", { ...base, message: "zz.plain.v1.Order" }), /: its descriptor set .*descriptors\.binpb has no message zz\.plain\.v1\.Order \(its messages: zz\.plain\.v1\.Shipment, zz\.plain\.v1\.Shipment\.Address, zz\.plain\.v1\.Shipment\.Parcel\)$/],
    ["other field names", () => manifest("names", { ...base, fieldNames: "camel" }), /: "fieldNames" is "camel", not one of "json", "proto"$/],
    ["lazy fields that are no list of paths", () => manifest("lazy", { ...base, lazyFields: "id" }), /: "lazyFields" is "id"; it is a list of dotted field paths$/],
  ])("is refused for %s, naming the file", (_what, path, message) => {
    const at = path();
    expect(() => readUserDataset(at)).toThrow(message);
    expect(() => readUserDataset(at)).toThrow(`--user-dataset ${at}: `);
  });

  it("is refused when a dependency comes after its dependant, naming the import", () => {
    const set = fromBinary(FileDescriptorSetSchema, compileSet({ ...READING, "uses.proto": 'syntax = "proto3";\nimport "reading.proto";\nmessage Uses {\n  Reading reading = 1;\n}\n' }));
    expect(set.file.map((file) => file.name)).toEqual(["reading.proto", "uses.proto"]);
    set.file.reverse();
    writeFileSync(join(root, "reversed.binpb"), toBinary(FileDescriptorSetSchema, set));
    expect(() => readUserDataset(manifest("reversed", { ...base, message: "Uses", descriptorSet: "reversed.binpb" }))).toThrow(
      /reversed\.binpb is not a FileDescriptorSet of the record's file and every import, dependencies first \(protoc --include_imports\): .*reading\.proto/,
    );
  });

  it("shares no id with another", () => {
    const other = manifest("again", base);
    expect(() => readUserDatasets([goodPath, other])).toThrow(`--user-dataset ${other}: id "shipment" is also the id of --user-dataset ${goodPath}`);
  });
});

describe("the driver given a bad manifest", () => {
  it.each([
    ["missing", () => join(root, "nowhere.json"), "cannot read the manifest: ENOENT"],
    ["naming a message its set lacks", () => manifest("lacks2", { ...base, message: "zz.plain.v1.Order" }), "has no message zz\\.plain\\.v1\\.Order \\(its messages: zz\\.plain\\.v1\\.Shipment"],
  ])("%s: exits 2 with one line naming it, before starting Chromium or writing its log", (_what, path, words) => {
    const at = path();
    const log = join(root, `driver-${_what}.log`);
    const run = spawnSync(process.execPath, [driverPath, "--control", "http://127.0.0.1:9", "--log", log, "--user-dataset", goodPath, "--user-dataset", at], { encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^driver: --user-dataset ${at}: .*${words}`));
    expect(run.stdout).toBe("");
    expect(existsSync(log)).toBe(false);
  });
});
