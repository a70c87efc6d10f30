// The driver's --user-dataset manifests (proto/README.md, "A user's dataset"): each is read and
// checked here, with its descriptor set, before Chromium starts, and handed to every page as a
// JSON-safe source (the set in base64; src/datasets/user-dataset.ts reads it). A bad manifest is one
// error naming the file and what is wrong with it.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

/** The ids control accepts for a user's dataset (rust/control/src/user_datasets.rs). */
const ID = /^[a-z][a-z0-9_]{0,63}$/;
const FIELD_NAMES = ["json", "proto"];

export class ManifestError extends Error {}

const describe = (error) => (error instanceof Error ? error.message : String(error));

/** The source of one manifest: `{id, message, fieldNames, lazyFields, fingerprint, descriptorSet (base64), manifest}`. */
export function readUserDataset(path) {
  const manifest = resolve(path);
  const fail = (what) => new ManifestError(`--user-dataset ${path}: ${what}`);
  let text;
  try {
    text = readFileSync(manifest, "utf8");
  } catch (error) {
    throw fail(`cannot read the manifest: ${describe(error)}`);
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw fail(`the manifest is not JSON: ${describe(error)}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw fail("the manifest is not a JSON object");
  const { id, message, descriptorSet, fieldNames = "json", lazyFields = [], fingerprint = "" } = json;
  if (typeof id !== "string" || !ID.test(id)) throw fail(`"id" is ${JSON.stringify(id)}; an id is 1 to 64 lowercase letters, digits and _, starting with a letter`);
  if (typeof message !== "string" || message === "") throw fail(`"message" is ${JSON.stringify(message)}; it names the record message in full (acme.shop.v1.Order)`);
  if (typeof descriptorSet !== "string" || descriptorSet === "") throw fail(`"descriptorSet" is ${JSON.stringify(descriptorSet)}; it names the FileDescriptorSet file, relative to the manifest's folder`);
  if (!FIELD_NAMES.includes(fieldNames)) throw fail(`"fieldNames" is ${JSON.stringify(fieldNames)}, not one of ${FIELD_NAMES.map((n) => JSON.stringify(n)).join(", ")}`);
  if (!Array.isArray(lazyFields) || !lazyFields.every((field) => typeof field === "string" && field !== "")) throw fail(`"lazyFields" is ${JSON.stringify(lazyFields)}; it is a list of dotted field paths`);
  if (typeof fingerprint !== "string") throw fail(`"fingerprint" is ${JSON.stringify(fingerprint)}, not a string`);

  const setPath = resolve(dirname(manifest), descriptorSet);
  let bytes;
  try {
    bytes = readFileSync(setPath);
  } catch (error) {
    throw fail(`cannot read its descriptor set ${setPath}: ${describe(error)}`);
  }
  let registry;
  try {
    const set = fromBinary(FileDescriptorSetSchema, bytes);
    if (set.file.length === 0) throw new Error("it holds no file");
    registry = createFileRegistry(set);
  } catch (error) {
    throw fail(`its descriptor set ${setPath} is not a FileDescriptorSet of the record's file and every import, dependencies first (protoc --include_imports): ${describe(error)}`);
  }
  if (!registry.getMessage(message)) {
    const found = [...registry].filter((type) => type.kind === "message" && !type.typeName.startsWith("google.protobuf.")).map((type) => type.typeName);
    throw fail(`its descriptor set ${setPath} has no message ${message} (its messages: ${found.join(", ") || "none"})`);
  }
  return { id, message, fieldNames, lazyFields, fingerprint, descriptorSet: Buffer.from(bytes).toString("base64"), manifest };
}

/** Every manifest's source, in order; two with one id are refused. */
export function readUserDatasets(paths) {
  const sources = paths.map(readUserDataset);
  for (const [i, source] of sources.entries()) {
    const first = sources.findIndex((other) => other.id === source.id);
    if (first !== i) throw new ManifestError(`--user-dataset ${paths[i]}: id ${JSON.stringify(source.id)} is also the id of --user-dataset ${paths[first]}`);
  }
  return sources;
}

/**
 * Hands the sources to `page` before any of its scripts runs (and again on every reload); the page
 * builds its datasets from them first thing and says how that went (`codecbenchUserDatasetsResult`).
 */
export async function injectUserDatasets(page, sources) {
  await page.evaluateOnNewDocument((given) => {
    window.codecbenchUserDatasets = given;
  }, sources);
}

/**
 * Waits until the page has built the user datasets; answers null when it did, or the page's
 * reason when it could not (it then does not attach). Throws when the page never says.
 */
export async function userDatasetsVerdict(page, timeoutMs = 30_000) {
  let handle;
  try {
    handle = await page.waitForFunction(() => window.codecbenchUserDatasetsResult, { timeout: timeoutMs });
  } catch (error) {
    throw new Error(`the page did not say within ${timeoutMs / 1000} s whether it built the user datasets (${describe(error)}); is control serving a page built from this checkout?`);
  }
  const result = await handle.jsonValue();
  return "error" in result ? result.error : null;
}
