import { existsSync, readdirSync, readFileSync } from "node:fs";
import { BSON } from "bson";
import { describe, expect, it } from "vitest";
import { deserializeBson } from "../src/codecs/bson";
import { repoRoot } from "./vectors";

// The BSON corpus (../shared/testdata/bson-corpus/, README-spec.md) against js-bson, the library
// of the browser's bson codec:
// - `valid` cases of the types the datasets use: canonical_bson decodes (through the codec's own
//   decode path, and type-preserving) and re-encodes to the same bytes;
// - every `decodeErrors` case of every file is rejected with an error by the codec's decode path.

const corpus = `${repoRoot}../shared/testdata/bson-corpus/`;
if (!existsSync(corpus)) throw new Error(`${corpus} is missing: the shared test data lives in shared/ beside the repository`);

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

const datasetTypes = ["document", "array", "string", "int32", "int64", "double", "boolean", "top"];

describe.each(datasetTypes)("bson corpus %s.json, valid cases", (type) => {
  const valid = read(`${type}.json`).valid ?? [];
  it.each(valid.map((c) => [c.description, c] as const))("%s", (_description, c) => {
    const canonical = bytes(c.canonical_bson!);
    // The codec's decode path accepts it.
    expect(() => deserializeBson(canonical)).not.toThrow();
    // Type-preserving decode (Double, Int32, Long stay themselves) re-encodes to the same bytes.
    const document = BSON.deserialize(canonical, { promoteValues: false, validation: { utf8: true } });
    expect(hex(BSON.serialize(document))).toBe(hex(canonical));
  });
});

const files = readdirSync(corpus).filter((name) => name.endsWith(".json"));
const decodeErrors = files.flatMap((name) => (read(name).decodeErrors ?? []).map((c) => [`${name}: ${c.description}`, c.bson!] as const));

describe("bson corpus decodeErrors, every file", () => {
  it("has cases", () => expect(decodeErrors.length).toBeGreaterThan(30));

  it.each(decodeErrors)("rejects %s", (_name, data) => {
    const started = performance.now();
    let error: unknown;
    try {
      deserializeBson(bytes(data));
    } catch (caught) {
      error = caught;
    }
    expect(error, "decoded without an error").toBeInstanceOf(Error);
    // Not a hang: each case is a few bytes.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
