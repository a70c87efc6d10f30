import { existsSync, readdirSync, readFileSync } from "node:fs";
import { BSON } from "bson";
import { describe, expect, it } from "vitest";
import type { DecodeMode } from "../src/codecs/codec";
import { codecById } from "../src/codecs/registry";
import { datasetById } from "../src/datasets/registry";
import { attempt, decodeEntry, foreignError } from "./decode-entries";
import { repoRoot } from "./vectors";

// The BSON corpus (testdata/bson-corpus/, laid out by `make testdata` from pymongo's sdist)
// through the bson codec's own decode entries, in every mode it announces (typed, tree, lazy):
// - every `decodeErrors` case of every file is rejected by every mode with the codec's error, both
//   as the whole payload and as record 0 of {"records": [case]} (as the whole payload, typed and
//   lazy would reject it for lacking "records" alone; as a record, the bytes must be what fails);
// - `valid` cases of the types the datasets use: the library re-encodes canonical_bson to the same
//   bytes, and as record 0 of a payload every mode reads them (lazy: every text leaf).
// bson's prepare(dataset) only specialises encode and tree verification, so one dataset serves.

const corpus = `${repoRoot}testdata/bson-corpus/`;
if (!existsSync(corpus)) throw new Error(`${corpus} is missing: run \`make testdata\` (python3 testdata/fetch.py)`);

interface Case {
  description: string;
  canonical_bson?: string;
  bson?: string;
}
interface CorpusFile {
  description: string;
  valid?: Case[];
  decodeErrors?: Case[];
}

const read = (name: string): CorpusFile => JSON.parse(readFileSync(corpus + name, "utf8")) as CorpusFile;
const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));
const hex = (data: Uint8Array): string => Buffer.from(data).toString("hex").toUpperCase();

const bson = codecById("bson");
const prepared = bson.prepare(datasetById("dummy"));
const decoder = (mode: DecodeMode, fields: readonly string[] = ["a"]) => decodeEntry(prepared, mode, fields);

function int32(value: number): number[] {
  return [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff];
}

/** {"records": [record]}, with `record`'s bytes as they are as element "0" (type document or array). */
function asRecord(record: Uint8Array, type = 0x03): Uint8Array {
  const array = [...int32(4 + 3 + record.length + 1), type, 0x30, 0x00, ...record, 0x00];
  const name = [...Buffer.from("records"), 0x00];
  return new Uint8Array([...int32(4 + 1 + name.length + array.length + 1), 0x04, ...name, ...array, 0x00]);
}

/**
 * The dotted path to the first element of a (possibly malformed) document, descending into
 * embedded documents: what a lazy read must go through to reach the case's bad bytes. "a" when
 * no element name can be read.
 */
function firstPath(doc: Uint8Array, at = 0): string {
  const type = doc[at + 4];
  const nul = doc.indexOf(0, at + 5);
  if (type === undefined || type === 0 || nul < 0) return "a";
  const name = Buffer.from(doc.subarray(at + 5, nul)).toString("latin1");
  return type === 0x03 && doc[nul + 5] ? `${name}.${firstPath(doc, nul + 1)}` : name;
}

const modes = bson.info.decodeModes;

// As record 0, these cases' bad bytes lie after the field a lazy read goes to, in the same record
// (a stray NUL after a complete element): a lazy read stops at its field and does not look past it,
// by design (as bson::RawDocument::get and RawBsonDocument.get do), so it reads the field. Typed and
// tree reject them as a record, and every mode rejects them as the payload.
const PAST_THE_LAZY_FIELD = new Set([
  "document.json: Null byte in sub-document key",
  "string.json: empty string, but extra null",
  "top.json: Null byte in document key",
]);

describe("bson corpus: decodeErrors, every file, every mode", () => {
  const files = readdirSync(corpus).filter((name) => name.endsWith(".json")).sort();
  const cases = files.flatMap((name) => (read(name).decodeErrors ?? []).map((c) => ({ name: `${name}: ${c.description}`, data: bytes(c.bson!) })));

  it("has cases and the three modes", () => {
    expect(cases.length).toBeGreaterThanOrEqual(70);
    expect([...modes].sort()).toEqual(["lazy", "tree", "typed"]);
  });

  it.each(cases.map((c) => [c.name, c] as const))("rejects %s", (name, { data }) => {
    const problems: string[] = [];
    const path = firstPath(data);
    for (const mode of modes) {
      for (const [form, payload] of [["payload", data], ["record 0", asRecord(data)]] as const) {
        const result = attempt(decoder(mode, [path]), payload);
        if (result.ms > 1000) problems.push(`${mode} ${form}: took ${result.ms.toFixed(0)} ms`);
        const pastTheField = mode === "lazy" && form === "record 0" && PAST_THE_LAZY_FIELD.has(name);
        if (pastTheField) {
          if (result.threw) problems.push(`lazy record 0: now rejected (${(result.error as Error).message}): drop it from PAST_THE_LAZY_FIELD`);
          continue;
        }
        if (!result.threw) {
          problems.push(`${mode} ${form}: accepted`);
          continue;
        }
        const foreign = foreignError("bson", mode, result.error);
        if (foreign) problems.push(`${mode} ${form}: ${foreign}`);
        // As a record, typed and tree must be rejected by js-bson itself, not by the shape check.
        else if (form === "record 0" && mode !== "lazy" && /"records"/.test((result.error as Error).message)) problems.push(`${mode} ${form}: only the shape was rejected`);
      }
    }
    expect(problems, `lazy path ${JSON.stringify(path)}`).toEqual([]);
  });
});

/** Every text leaf of a decoded record: [dotted path, the text a lazy read gives]. Arrays apart. */
function leaves(value: Record<string, unknown>, prefix = ""): { texts: [string, string][]; arrays: string[]; dotted: number } {
  const out = { texts: [] as [string, string][], arrays: [] as string[], dotted: 0 };
  for (const [key, item] of Object.entries(value)) {
    // A lazy field is a dotted path, so a key containing "." cannot be named (none in the datasets).
    if (key.includes(".")) {
      out.dotted++;
      continue;
    }
    const path = prefix + key;
    if (Array.isArray(item)) out.arrays.push(path);
    else if (typeof item === "object" && item !== null) {
      const inner = leaves(item as Record<string, unknown>, `${path}.`);
      out.texts.push(...inner.texts);
      out.arrays.push(...inner.arrays);
      out.dotted += inner.dotted;
    } else out.texts.push([path, String(item)]);
  }
  return out;
}

const datasetTypes = ["document", "array", "string", "int32", "int64", "double", "boolean", "top"];

describe.each(datasetTypes)("bson corpus %s.json, valid cases", (type) => {
  const valid = read(`${type}.json`).valid ?? [];
  it("has cases", () => expect(valid.length).toBeGreaterThan(0));

  it.each(valid.map((c) => [c.description, c] as const))("%s", (_description, c) => {
    const canonical = bytes(c.canonical_bson!);
    // Type-preserving decode (Double, Int32, Long stay themselves) re-encodes to the same bytes.
    const document = BSON.deserialize(canonical, { promoteValues: false, validation: { utf8: true } });
    expect(hex(BSON.serialize(document))).toBe(hex(canonical));

    // The codec's typed and tree entries read it as record 0 of a payload.
    const payload = asRecord(canonical);
    const expected = BSON.deserialize(canonical, { useBigInt64: true, validation: { utf8: true } });
    expect(decoder("typed")(payload)).toEqual([expected]);
    expect((decoder("tree")(payload) as { records: unknown[] }).records).toEqual([BSON.deserialize(canonical, { validation: { utf8: true } })]);

    // Lazy: every text leaf by its path, in one read (as a task's lazy fields).
    const { texts, arrays } = leaves(expected);
    if (texts.length > 0) expect(decoder("lazy", texts.map(([path]) => path))(payload)).toEqual(texts.map(([, text]) => text));
    // Arrays (the matrix rows' form): an array's own bytes as an array record, read by index.
    for (const path of arrays) {
      if (path !== "a" || canonical[4] !== 0x04) throw new Error(`unexpected array ${path}: the test reads only {"a": [...]} arrays`);
      const items = expected.a as unknown[];
      if (items.length === 0) continue;
      const row = asRecord(canonical.subarray(7, canonical.length - 1), 0x04);
      expect(decoder("lazy", items.map((_, i) => String(i)))(row)).toEqual(items.map(String));
    }
  });
});

describe("bson lazy reads every text type of the corpus", () => {
  it("reads leaves of each dataset type, and dotted keys are the only ones skipped", () => {
    let read_ = 0;
    let dotted = 0;
    for (const type of datasetTypes) {
      for (const c of read(`${type}.json`).valid ?? []) {
        const found = leaves(BSON.deserialize(bytes(c.canonical_bson!), { useBigInt64: true }));
        read_ += found.texts.length;
        dotted += found.dotted;
      }
    }
    expect(read_).toBeGreaterThan(30);
    // "a.b" and "." in top.json and document.json.
    expect(dotted).toBe(4);
  });
});
