import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fileExtension } from "../src/codecs/catalogue";
import { formatOf, type DecodeMode } from "../src/codecs/codec";
import { refusalOf } from "../src/codecs/refusals";
import { codecs } from "../src/codecs/registry";
import { datasets } from "../src/datasets/registry";
import { attempt, decodeEntry, foreignError } from "./decode-entries";
import { repoRoot, vectorsDir } from "./vectors";
import { Watchdog } from "./watchdog";

// codecs/fixtures.yaml's hostile inputs through every decode mode of every browser codec of their
// format, as the trial calls them (decode-entries.ts; tree mode then converts the tree to records,
// as its verification does): each must be refused with the codec's own error within CASE_MS.
// Where the file's `knownFailing` says a library legitimately accepts one, it must be accepted: a
// listed case that is refused after all fails too, so the list stays true (rust/codecs/tests/fixtures.rs).
//
// Time is bounded per case; allocation is not: JavaScript cannot measure one call's allocations
// (the heap and RSS move with the GC and lazily committed pages), so the process's RSS growth is
// only printed. The Node worker runs these same modules, so this test covers it too.

/** knownFailing's languages that mean these modules: the page's and the Node worker's. */
const LANGUAGES = ["browser", "node"];
/** One decode of a few KiB takes well under a millisecond; the bound is loose for a shared machine. */
const CASE_MS = 2_000;
/** A decode still running after this long is a hang: the watchdog kills the process. */
const HANG_MS = 20_000;

interface Part {
  hex?: string;
  text?: string;
  repeat?: number;
}
interface Known {
  fixture: string;
  language?: string;
  implementation?: string;
  modes?: string[];
  reason: string;
}
interface FixturesFile {
  derived: string[];
  formats: Map<string, { name: string; input: Part[] }[]>;
  knownFailing: Known[];
}

const FILE = "codecs/fixtures.yaml";

// Strict reading, as serde's deny_unknown_fields: an unknown or missing key is an error.
function mapping(where: string, value: unknown, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${FILE}: ${where} is not a mapping`);
  for (const key of Object.keys(value)) if (!required.includes(key) && !optional.includes(key)) throw new Error(`${FILE}: ${where} has unknown key ${JSON.stringify(key)}`);
  for (const key of required) if (!(key in value)) throw new Error(`${FILE}: ${where} has no ${key}`);
  return value as Record<string, unknown>;
}
function text(where: string, value: unknown): string {
  if (typeof value !== "string") throw new Error(`${FILE}: ${where} is not a string`);
  return value;
}
function list(where: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${FILE}: ${where} is not a list`);
  return value;
}
const optional = <T>(value: unknown, read: (value: unknown) => T): T | undefined => (value === undefined ? undefined : read(value));

function readFile(): FixturesFile {
  const root = mapping("the file", parse(readFileSync(`${repoRoot}${FILE}`, "utf8")), ["derived", "formats", "knownFailing"]);
  const formats = new Map(
    Object.entries(mapping("formats", root.formats, [], Object.keys(root.formats as object))).map(([format, fixtures]) => [
      format,
      list(`formats.${format}`, fixtures).map((raw, i) => {
        const fixture = mapping(`formats.${format}[${i}]`, raw, ["name", "kind", "about", "input"]);
        const name = text(`formats.${format}[${i}].name`, fixture.name);
        text(`${format}/${name} kind`, fixture.kind);
        text(`${format}/${name} about`, fixture.about);
        const input = list(`${format}/${name} input`, fixture.input).map((raw, p) => {
          const where = `${format}/${name} input[${p}]`;
          const part = mapping(where, raw, [], ["hex", "text", "repeat"]);
          const repeat = part.repeat;
          if (repeat !== undefined && !(Number.isSafeInteger(repeat) && (repeat as number) >= 0)) throw new Error(`${FILE}: ${where}.repeat is not a count`);
          return { hex: optional(part.hex, (v) => text(`${where}.hex`, v)), text: optional(part.text, (v) => text(`${where}.text`, v)), repeat: repeat as number | undefined };
        });
        return { name, input };
      }),
    ]),
  );
  const knownFailing = list("knownFailing", root.knownFailing).map((raw, i) => {
    const where = `knownFailing[${i}]`;
    const k = mapping(where, raw, ["fixture", "reason"], ["language", "implementation", "modes"]);
    return {
      fixture: text(`${where}.fixture`, k.fixture),
      language: optional(k.language, (v) => text(`${where}.language`, v)),
      implementation: optional(k.implementation, (v) => text(`${where}.implementation`, v)),
      modes: optional(k.modes, (v) => list(`${where}.modes`, v).map((m) => text(`${where}.modes`, m))),
      reason: text(`${where}.reason`, k.reason),
    };
  });
  return { derived: list("derived", root.derived).map((d) => text("derived", d)), formats, knownFailing };
}

function bytesOf(fixture: string, parts: readonly Part[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    let one: Uint8Array;
    if (part.hex !== undefined && part.text === undefined) {
      const hex = part.hex.replace(/\s+/g, "");
      if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new Error(`${FILE}: ${fixture}: ${hex} is not hex bytes`);
      one = new Uint8Array(Buffer.from(hex, "hex"));
    } else if (part.text !== undefined && part.hex === undefined) {
      one = new TextEncoder().encode(part.text);
    } else {
      throw new Error(`${FILE}: ${fixture}: a part is either hex or text`);
    }
    for (let r = 0; r < (part.repeat ?? 1); r++) for (const b of one) out.push(b);
  }
  return new Uint8Array(out);
}

/** One input decoded as `dataset`: `fixture` is `<format>/<name>` (what knownFailing names); `label` adds the vector of a derived one. */
interface Case {
  fixture: string;
  label: string;
  dataset: string;
  bytes: Uint8Array;
}

/** Every case by format: the format's own inputs for each built-in dataset, and the derived ones from every language's golden vectors. */
function casesOf(file: FixturesFile): Map<string, Case[]> {
  const byFormat = new Map<string, Case[]>();
  const of = (format: string) => byFormat.get(format) ?? byFormat.set(format, []).get(format)!;
  for (const [format, fixtures] of file.formats) {
    for (const { name, input } of fixtures) {
      const fixture = `${format}/${name}`;
      const bytes = bytesOf(fixture, input);
      for (const dataset of datasets.keys()) of(format).push({ fixture, label: fixture, dataset, bytes });
    }
  }
  // A vector's format by its extension: only the formats these modules implement (the catalogue
  // gives the browser no other). `<dataset>.pb` (canonical records) has two parts and is skipped.
  const formatOfExtension = new Map([...codecs.keys()].map((id) => [fileExtension(formatOf(id)), formatOf(id)]));
  for (const name of readdirSync(vectorsDir).sort()) {
    const parts = name.split(".");
    const format = parts.length === 3 ? formatOfExtension.get(parts[2]!) : undefined;
    if (format === undefined) continue;
    const dataset = parts[0]!;
    const bytes = new Uint8Array(readFileSync(`${vectorsDir}${name}`));
    const cases = of(format);
    for (const derived of file.derived) {
      const fixture = `${format}/${derived}`;
      if (derived === "truncated") cases.push({ fixture, label: `${fixture} of ${name}`, dataset, bytes: bytes.subarray(0, bytes.length >> 1) });
      else if (derived === "empty") {
        if (!cases.some((c) => c.fixture === fixture && c.dataset === dataset)) cases.push({ fixture, label: fixture, dataset, bytes: new Uint8Array(0) });
      } else throw new Error(`${FILE}: unknown derived input ${JSON.stringify(derived)}`);
    }
  }
  return byFormat;
}

function covers(known: Known, fixture: string, implementation: string, mode: string): boolean {
  return (
    known.fixture === fixture &&
    (known.language === undefined || LANGUAGES.includes(known.language)) &&
    (known.implementation === undefined || known.implementation === implementation) &&
    (known.modes === undefined || known.modes.includes(mode))
  );
}

const file = readFile();
const cases = casesOf(file);
const hex = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 64)).toString("hex") + (bytes.length > 64 ? "..." : "");
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The (case, mode) pairs the worker would run for a codec: a dataset, or a mode of it, that the codec refuses is never planned. */
function planned(id: string): { c: Case; mode: DecodeMode }[] {
  const codec = codecs.get(id)!;
  return (cases.get(formatOf(id)) ?? []).flatMap((c) => codec.info.decodeModes.filter((mode) => !refusalOf(datasets.get(c.dataset)!, id, mode)).map((mode) => ({ c, mode })));
}

const watchdog = new Watchdog("fixtures", HANG_MS);
afterAll(() => watchdog.close());

describe.each([...codecs.keys()].filter((id) => cases.has(formatOf(id))))("fixtures %s", (id) => {
  it("refuses every case with its own error, in every decode mode", () => {
    const codec = codecs.get(id)!;
    const decoders = new Map<string, ReturnType<typeof decodeEntry>>();
    const failures: string[] = [];
    let slowest = 0;
    let grownMost = 0;
    const work = planned(id);
    for (const { c, mode } of work) {
      const dataset = datasets.get(c.dataset)!;
      const prepared = codec.prepare(dataset);
      const key = `${c.dataset} ${mode}`;
      const decode = decoders.get(key) ?? decoders.set(key, decodeEntry(prepared, mode, dataset.lazyFields)).get(key)!;
      const where = `${id} ${mode} ${c.label} as ${c.dataset}`;
      const before = process.memoryUsage.rss();
      const started = performance.now();
      watchdog.begin(where, c.bytes);
      const result = attempt(decode, c.bytes);
      // A tree the library accepted goes on to the trial's conversion to records: its refusal is a
      // verdict (as in Rust, the case counts as accepted), anything else a failure.
      let conversion: string | null = null;
      if (!result.threw && mode === "tree") {
        try {
          prepared.treeToRecords!(result.value);
        } catch (error) {
          conversion = foreignError(id, mode, error);
        }
      }
      watchdog.end();
      const ms = performance.now() - started;
      slowest = Math.max(slowest, ms);
      grownMost = Math.max(grownMost, (process.memoryUsage.rss() - before) / 2 ** 20);
      const known = file.knownFailing.some((k) => covers(k, c.fixture, id, mode));
      if (result.threw) {
        const foreign = foreignError(id, mode, result.error);
        if (foreign) failures.push(`${where}: ${foreign}; input ${hex(c.bytes)}`);
        else if (known) failures.push(`${where}: refused (${message(result.error)}) though knownFailing lists it as accepted: remove it from knownFailing`);
      } else if (conversion) {
        failures.push(`${where}: converting the accepted tree ${conversion}`);
      } else if (!known) {
        failures.push(`${where}: accepted; input ${hex(c.bytes)}`);
      }
      if (ms > CASE_MS) failures.push(`${where}: took ${ms.toFixed(0)} ms (limit ${CASE_MS})`);
    }
    console.log(`fixtures ${id}: ${work.length} decode calls; slowest ${slowest.toFixed(1)} ms, most RSS growth in a call ${grownMost.toFixed(1)} MiB (printed, not bounded)`);
    expect(work.length).toBeGreaterThan(0);
    expect(failures, `${failures.length} fixture cases broke the contract`).toEqual([]);
  });
});

it("every knownFailing entry for these modules matches a case here", () => {
  const ours = file.knownFailing.filter((k) => k.language === undefined || LANGUAGES.includes(k.language));
  const stale = ours.filter((k) => {
    const ids = [...codecs.keys()].filter((id) => (k.implementation === undefined || k.implementation === id) && k.fixture.startsWith(`${formatOf(id)}/`));
    return ids.length > 0 && !ids.some((id) => planned(id).some(({ c, mode }) => covers(k, c.fixture, id, mode)));
  });
  expect(stale.map((k) => k.fixture)).toEqual([]);
});
