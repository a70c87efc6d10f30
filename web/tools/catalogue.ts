// codecs/catalogue.yaml, read when vite builds the page and the Node worker: each codec's media type,
// library, modes, notes and timed regions come from its `browser` entry (defined as __CATALOGUE__,
// read by src/codecs/catalogue.ts), and its version from what npm installed, so none can drift from
// what the worker runs or be written twice. The Node worker runs the page's modules, so a codec's
// `node` entry must name the same library and modes and has no regions; its notes, what differs
// under Node, are defined apart (__NODE_NOTES__, read only by src/node/native.ts: the page does not
// carry them).
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export interface CataloguedCodec {
  readonly mediaType: string;
  readonly library: string;
  readonly libraryVersion: string;
  readonly modes: readonly string[];
  /** A format's golden-vector extension (`<dataset>.<language>.<ext>`); "" for another library of a format. */
  readonly fileExtension: string;
  /** How the library is used ("" where the catalogue says nothing), `{version:NAME}` substituted. */
  readonly notes: string;
  /** One for encode and one per decode mode, in order (regionOperations). */
  readonly timedRegions: readonly CataloguedRegion[];
}

export interface CataloguedRegion {
  readonly operation: string;
  /** results.proto TimedRegion's vocabulary: serialize, parse, utf8, ... */
  readonly contains: readonly string[];
  readonly note: string;
}

export interface Catalogue {
  readonly codecs: Record<string, CataloguedCodec>;
  /** The `node` entries' notes by codec id (those with notes): what the codec does differently under Node. */
  readonly nodeNotes: Record<string, string>;
}

// The keys the other readers accept too (Catalogue.java, rust/codecs/build/catalogue.rs,
// harness/codecbench/catalogue.py): a typo is an error, not an ignored key.
const ENTRY_KEYS = new Set(["id", "mediaType", "spec", "deterministic", "fileExtension", "implementations"]);
const IMPLEMENTATION_KEYS = new Set(["library", "package", "version", "modes", "notes", "timedRegions"]);
const REGION_KEYS = new Set(["operation", "contains", "note"]);

interface Implementation {
  library: string;
  package?: string;
  version?: string;
  modes: string[];
  notes?: string;
  timedRegions?: unknown;
}

/**
 * The operations an implementation's timed regions cover, in order: encode, then one per decode
 * mode, with "encode streaming" just before "streaming" (harness/codecbench/catalogue.py's
 * region_operations; every worker announces them so).
 */
export function regionOperations(modes: readonly string[]): string[] {
  return ["encode", ...modes.flatMap((mode) => (mode === "streaming" ? ["encode streaming", mode] : [mode]))];
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
  if (i.notes !== undefined && typeof i.notes !== "string") fail(`${id}'s ${language} notes are not a string`);
  return i;
}

/** `text` with each `{version:NAME}` replaced by NAME's installed version; an error naming the implementation (`where`) when NAME has none. */
function withVersions(where: string, text: string, versionOf: (npmPackage: string) => string): string {
  return text.replace(/\{version:([^}]*)\}/g, (_, name: string) => {
    try {
      return versionOf(name);
    } catch (e) {
      fail(`${where} notes name {version:${name}}: ${(e instanceof Error ? e.message : String(e)).replace(/^codecs\/catalogue\.yaml: /, "")}`);
    }
  });
}

/** The browser entry's timed regions, checked strictly: its region keys, and one per operation in order. */
function timedRegions(id: string, i: Implementation, versionOf: (npmPackage: string) => string): CataloguedRegion[] {
  if (!Array.isArray(i.timedRegions)) fail(`${id}'s browser implementation has no timedRegions list`);
  const regions = (i.timedRegions as unknown[]).map((raw) => {
    if (typeof raw !== "object" || raw === null) fail(`${id}'s browser timed regions hold a non-mapping`);
    const r = raw as Record<string, unknown>;
    for (const key of Object.keys(r)) {
      if (!REGION_KEYS.has(key)) fail(`${id}'s browser timed region ${JSON.stringify(r.operation)} has an unknown key ${JSON.stringify(key)}`);
    }
    const contains = r.contains;
    if (typeof r.operation !== "string" || !Array.isArray(contains) || contains.length === 0 || !contains.every((w) => typeof w === "string")) {
      fail(`${id}'s browser timed region ${JSON.stringify(r.operation)} lacks an operation or a non-empty contains list`);
    }
    if (r.note !== undefined && typeof r.note !== "string") fail(`${id}'s browser timed region ${r.operation} has a note that is not a string`);
    return { operation: r.operation, contains: contains as string[], note: withVersions(`${id}'s browser`, (r.note as string | undefined) ?? "", versionOf) };
  });
  const operations = regions.map((r) => r.operation);
  const expected = regionOperations(i.modes);
  if (operations.join("|") !== expected.join("|")) {
    fail(`${id}'s browser timed regions are for ${JSON.stringify(operations)}, not ${JSON.stringify(expected)} (one for encode and one per decode mode, in order)`);
  }
  return regions;
}

/**
 * The catalogue's browser implementations by id. `versionOf(package)` reads an installed
 * package's version: the library's `package:` where it names one (the project's own package for
 * a codec written here), else the library's name; `version:` names one where no package does
 * (the built-in JSON). It also fills in each `{version:NAME}` of the notes and region notes.
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
    if (node.timedRegions !== undefined) fail(`${id}: a node entry has no timedRegions (the Node worker announces the browser's)`);
    out[id] = {
      mediaType: raw.mediaType,
      library: browser.library,
      libraryVersion: browser.version ?? versionOf(browser.package ?? browser.library),
      modes: browser.modes,
      fileExtension: typeof raw.fileExtension === "string" ? raw.fileExtension : "",
      notes: withVersions(`${id}'s browser`, browser.notes ?? "", versionOf),
      timedRegions: timedRegions(id, browser, versionOf),
    };
    if (node.notes) nodeNotes[id] = withVersions(`${id}'s node`, node.notes, versionOf);
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
