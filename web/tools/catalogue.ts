// codecs/catalogue.yaml, read when vite builds the page and the Node worker: each codec's media type,
// library and modes come from its `browser` entry (defined as __CATALOGUE__, read by
// src/codecs/catalogue.ts), and its version from what npm installed, so neither can drift from
// what the worker runs. The Node worker runs the page's modules, so a codec's `node` entry must
// name the same library and modes; its notes, what differs under Node, are defined apart
// (__NODE_NOTES__, read only by src/node/native.ts: the page does not carry them).
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export interface CataloguedCodec {
  readonly mediaType: string;
  readonly library: string;
  readonly libraryVersion: string;
  readonly modes: readonly string[];
  /** A format's golden-vector extension (`<dataset>.<language>.<ext>`); "" for another library of a format. */
  readonly fileExtension: string;
}

export interface Catalogue {
  readonly codecs: Record<string, CataloguedCodec>;
  /** The `node` entries' notes by codec id (those with notes): what the codec does differently under Node. */
  readonly nodeNotes: Record<string, string>;
}

// The keys the other readers accept too (Catalogue.java, rust/codecs/build/catalogue.rs,
// harness/codecbench/catalogue.py): a typo is an error, not an ignored key.
const ENTRY_KEYS = new Set(["id", "mediaType", "spec", "deterministic", "fileExtension", "implementations"]);
const IMPLEMENTATION_KEYS = new Set(["library", "package", "version", "modes", "notes"]);

interface Implementation {
  library: string;
  package?: string;
  version?: string;
  modes: string[];
  notes?: string;
}

function fail(why: string): never {
  throw new Error(`codecs/catalogue.yaml: ${why}`);
}

function implementation(id: string, language: string, raw: unknown): Implementation {
  if (raw === undefined) fail(`${id}'s ${language} implementation is missing (the browser and Node workers run the same modules)`);
  if (typeof raw !== "object" || raw === null) fail(`${id}'s ${language} implementation is not a mapping`);
  for (const key of Object.keys(raw)) {
    if (!IMPLEMENTATION_KEYS.has(key)) fail(`${id}'s ${language} implementation has an unknown key ${JSON.stringify(key)}`);
  }
  const i = raw as Implementation;
  if (typeof i.library !== "string" || !Array.isArray(i.modes)) fail(`${id}'s ${language} implementation lacks library or modes`);
  return i;
}

/**
 * The catalogue's browser implementations by id. `versionOf(package)` reads an installed
 * package's version: the library's `package:` where it names one (the project's own package for
 * a codec written here), else the library's name; `version:` names one where no package does
 * (the built-in JSON).
 */
export function readCatalogue(text: string, versionOf: (npmPackage: string) => string): Catalogue {
  const file = parse(text) as { codecs?: unknown };
  if (!Array.isArray(file?.codecs)) fail("no codecs list");
  const out: Record<string, CataloguedCodec> = {};
  const nodeNotes: Record<string, string> = {};
  for (const raw of file.codecs as Record<string, unknown>[]) {
    for (const key of Object.keys(raw)) {
      if (!ENTRY_KEYS.has(key)) fail(`entry ${JSON.stringify(raw.id)} has an unknown key ${JSON.stringify(key)}`);
    }
    const id = raw.id as string;
    const implementations = (raw.implementations ?? {}) as Record<string, unknown>;
    if (typeof id !== "string" || typeof raw.mediaType !== "string") fail(`an entry lacks id or mediaType`);
    if (id in out) fail(`codec ${id} is listed twice`);
    if (!("browser" in implementations) && !("node" in implementations)) continue;
    const browser = implementation(id, "browser", implementations.browser);
    const node = implementation(id, "node", implementations.node);
    if (node.library !== browser.library || node.modes.join() !== browser.modes.join()) {
      fail(`${id}: node must name the browser's library and modes (the Node worker runs the page's modules)`);
    }
    out[id] = {
      mediaType: raw.mediaType,
      library: browser.library,
      libraryVersion: browser.version ?? versionOf(browser.package ?? browser.library),
      modes: browser.modes,
      fileExtension: typeof raw.fileExtension === "string" ? raw.fileExtension : "",
    };
    if (node.notes) nodeNotes[id] = node.notes;
  }
  return { codecs: out, nodeNotes };
}

/** The catalogue beside web/, versions from web/node_modules (and web/package.json for codecbench-web). */
export function catalogueForBuild(): Catalogue {
  return readCatalogue(readFileSync(new URL("../../codecs/catalogue.yaml", import.meta.url), "utf8"), installedVersion);
}

/** The version npm installed of `npmPackage` (codecbench-web: this package's own). */
export function installedVersion(npmPackage: string): string {
  const path = npmPackage === "codecbench-web" ? "../package.json" : `../node_modules/${npmPackage}/package.json`;
  let text: string;
  try {
    text = readFileSync(new URL(path, import.meta.url), "utf8");
  } catch {
    fail(`no installed npm package ${JSON.stringify(npmPackage)} (name the library's package with package:, or its version with version:)`);
  }
  return (JSON.parse(text) as { version: string }).version;
}
