import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DecodeMode } from "../src/codecs/codec";
import { codecs } from "../src/codecs/registry";
import { compareRecords } from "../src/datasets/compare";
import { datasets } from "../src/datasets/registry";
import type { FieldType } from "../src/datasets/schema";
import { runTrial } from "../src/trial/trial";
import { attempt, decodeEntry, foreignError } from "./decode-entries";
import { canonicalPb, datasetIds } from "./vectors";
import { Watchdog } from "./watchdog";

// Bounded fuzzing of every codec's decode entries (the functions a trial times, every mode it
// announces), with fast-check: mutated valid payloads (bit flips, truncation, byte insert/delete,
// 32-bit lengths overwritten with huge values, inserted container/length headers declaring huge
// counts, splices of two payloads) made from what the codec's
// own encode writes for the first 3 canonical records of each dataset, plus random bytes. Every
// case must decode, or fail with the codec's own error (decode-entries.ts), within a time bound,
// without the process growing by more than RSS_MB; a decoded value must also go through the
// trial's verification without an exception. A real hang (a loop that never returns) cannot be
// interrupted from this thread: a watchdog thread prints the case and kills the test process.
//
// CODECBENCH_FUZZ_CASES (default 10000) cases per codec, seed CODECBENCH_FUZZ_SEED (fixed default).

function envInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

const CASES = envInteger("CODECBENCH_FUZZ_CASES", 10_000);
const SEED = envInteger("CODECBENCH_FUZZ_SEED", 20261123);
/** A decode of a payload under a few KiB taking longer than this is a failure. */
const CASE_MS = 2_000;
/** A decode still running after this long is a hang: the watchdog kills the process. */
const HANG_MS = 20_000;
/** Growth of the process's resident memory across one case that counts as unbounded allocation. */
const RSS_MB = 32;

const watchdog = new Watchdog("fuzz", HANG_MS);
afterAll(() => watchdog.close());

type Mutation =
  | { kind: "flip"; at: number; bit: number }
  | { kind: "truncate"; at: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "delete"; at: number; count: number }
  | { kind: "length"; at: number; value: number; littleEndian: boolean }
  | { kind: "splice"; at: number; other: number; from: number; length: number; skip: number }
  | { kind: "header"; at: number; header: number; count: number };

// Container and length headers that declare a count or size, one per format (the count is
// appended, 4 bytes): where a decoder allocates before it reads, these are what make it allocate.
const HEADERS: readonly (readonly number[])[] = [
  [0x5b, 0x24, 0x5a, 0x23, 0x6c], // ubjson [$Z#l: a typed array of nulls, int32 count
  [0x5b, 0x24, 0x54, 0x23, 0x6c], // ubjson [$T#l
  [0x5b, 0x23, 0x6c], // ubjson [#l
  [0x7b, 0x24, 0x5a, 0x23, 0x6c], // ubjson {$Z#l
  [0x53, 0x6c], // ubjson string, int32 length
  [0xdd], // msgpack array 32
  [0xdf], // msgpack map 32
  [0xdb], // msgpack str 32
  [0xc6], // msgpack bin 32
  [0x04, 0x61, 0x00], // bson array "a", then its int32 size
  [0x02, 0x61, 0x00], // bson string "a", then its int32 length
  [0x0a], // protobuf field 1, length-delimited, then (here) 4 bytes read as a varint length
  [0x9a], // cbor array, 32-bit length
  [0xba], // cbor map, 32-bit length
  [0x7a], // cbor text string, 32-bit length
  [0x5a], // cbor byte string, 32-bit length
];
const COUNTS = [0x7fffffff, 0xffffffff, 0x00ffffff, 0x0000ffff, 0x00000003];

// Positions anywhere in the payload: fast-check biases integers towards small values, which would
// put most mutations in the first bytes (the length prefixes, rejected at once).
const at = fc.noBias(fc.nat());

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at, bit: fc.nat(7) }),
  fc.record({ kind: fc.constant("truncate" as const), at }),
  fc.record({ kind: fc.constant("insert" as const), at, bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant("delete" as const), at, count: fc.integer({ min: 1, max: 16 }) }),
  // Length prefixes (bson, msgpack, ubjson, protobuf varints' neighbours) made huge or negative.
  fc.record({
    kind: fc.constant("length" as const),
    at,
    value: fc.constantFrom(0x7fffffff, 0xffffffff, 0x80000000, 0x7ffffff0, 0x00010000, 0),
    littleEndian: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("header" as const), at, header: fc.nat(HEADERS.length - 1), count: fc.nat(COUNTS.length - 1) }),
  fc.record({ kind: fc.constant("splice" as const), at, other: fc.nat(), from: at, length: fc.nat(256), skip: fc.nat(256) }),
);

function mutate(base: Uint8Array, change: Mutation, seeds: readonly Uint8Array[]): Uint8Array {
  const at = change.at % (base.length + 1);
  switch (change.kind) {
    case "flip": {
      if (base.length === 0) return base;
      const out = new Uint8Array(base);
      out[at % base.length]! ^= 1 << change.bit;
      return out;
    }
    case "truncate":
      return base.subarray(0, at);
    case "insert":
      return new Uint8Array([...base.subarray(0, at), ...change.bytes, ...base.subarray(at)]);
    case "delete":
      return new Uint8Array([...base.subarray(0, at), ...base.subarray(at + change.count)]);
    case "length": {
      if (base.length < 4) return base;
      const out = new Uint8Array(base);
      new DataView(out.buffer).setUint32(Math.min(at, base.length - 4), change.value, change.littleEndian);
      return out;
    }
    case "header": {
      const count = COUNTS[change.count]!;
      // ubjson and cbor are big-endian; the others little-endian (protobuf reads the bytes as a varint).
      const bigEndian = [0x5b, 0x7b, 0x53, 0x9a, 0xba, 0x7a, 0x5a].includes(HEADERS[change.header]![0]!);
      const bytes = new Uint8Array(4);
      new DataView(bytes.buffer).setUint32(0, count, !bigEndian);
      return new Uint8Array([...base.subarray(0, at), ...HEADERS[change.header]!, ...bytes, ...base.subarray(at)]);
    }
    case "splice": {
      const other = seeds[change.other % seeds.length]!;
      const from = change.from % (other.length + 1);
      return new Uint8Array([...base.subarray(0, at), ...other.subarray(from, from + change.length), ...base.subarray(at + change.skip)]);
    }
  }
}

interface Target {
  dataset: (typeof datasetIds)[number];
  records: unknown[];
  seed: Uint8Array;
  entries: { mode: DecodeMode; decode: (payload: Uint8Array) => unknown }[];
  record: FieldType;
  treeToRecords?: (tree: unknown) => unknown[];
}

function targets(codecId: string): Target[] {
  const codec = codecs.get(codecId)!;
  return datasetIds.map((id) => {
    const dataset = datasets.get(id)!;
    const prepared = codec.prepare(dataset);
    const records = dataset.fromCanonical(canonicalPb(id)).slice(0, 3);
    return {
      dataset: id,
      records,
      // A plain copy: js-bson returns a Node Buffer from its pool, whose slice() is a view, not a copy.
      seed: new Uint8Array(prepared.encode(records)),
      entries: codec.info.decodeModes.map((mode) => ({ mode, decode: decodeEntry(prepared, mode, dataset.lazyFields) })),
      record: dataset.record,
      treeToRecords: prepared.treeToRecords,
    };
  });
}

/** A fuzz case: which dataset's decoders read it, and the bytes. */
function cases(seeds: readonly Uint8Array[]): fc.Arbitrary<{ target: number; bytes: Uint8Array; how: string }> {
  const mutated = fc
    .record({ target: fc.nat(seeds.length - 1), mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }) })
    .map(({ target, mutations }) => ({
      target,
      bytes: mutations.reduce((bytes, change) => mutate(bytes, change, seeds), seeds[target]!),
      how: mutations.map((change) => change.kind).join("+"),
    }));
  const random = fc.record({ target: fc.nat(seeds.length - 1), bytes: fc.uint8Array({ maxLength: 512 }), how: fc.constant("random") });
  return fc.oneof({ arbitrary: mutated, weight: 4 }, { arbitrary: random, weight: 1 });
}

/** The trial's verification of a decoded value (trial.ts) must give a verdict, not an exception. */
function verify(target: Target, mode: DecodeMode, value: unknown): void {
  try {
    if (mode === "lazy") {
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw new TypeError(`lazy decode gave ${typeof value}, not strings`);
      return;
    }
    const records = mode === "tree" ? target.treeToRecords!(value) : (value as unknown[]);
    compareRecords(target.record, target.records, records);
  } catch (error) {
    // treeToRecords rejects a tree of the wrong shape with recordsOf's message: a verdict.
    if (error instanceof Error && error.constructor === Error && /^payload /.test(error.message)) return;
    throw new Error(`verification of a decoded ${mode} value threw ${String(error)}`);
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe.each([...codecs.keys()])("fuzz %s", (codecId) => {
  it(`${CASES} cases through every decode mode, seed ${SEED}`, () => {
    const all = targets(codecId);
    const seeds = all.map((target) => target.seed);
    const counts = new Map<string, { run: number; decoded: number }>();
    let slowest = 0;
    let grownMost = 0;
    fc.assert(
      fc.property(cases(seeds), ({ target: index, bytes }) => {
        const target = all[index]!;
        for (const { mode, decode } of target.entries) {
          const where = `${codecId} ${mode} ${target.dataset}`;
          const before = process.memoryUsage.rss();
          watchdog.begin(where, bytes);
          const result = attempt(decode, bytes);
          watchdog.end();
          const grownMb = (process.memoryUsage.rss() - before) / 2 ** 20;
          const count = counts.get(mode) ?? { run: 0, decoded: 0 };
          count.run++;
          slowest = Math.max(slowest, result.ms);
          grownMost = Math.max(grownMost, grownMb);
          if (result.ms > CASE_MS) throw new Error(`${where}: took ${result.ms.toFixed(0)} ms on ${hex(bytes)}`);
          if (grownMb > RSS_MB) throw new Error(`${where}: the process grew by ${grownMb.toFixed(0)} MiB on ${hex(bytes)}`);
          if (result.threw) {
            const foreign = foreignError(codecId, mode, result.error);
            if (foreign) throw new Error(`${where}: ${foreign} on ${hex(bytes)}`);
          } else {
            count.decoded++;
            verify(target, mode, result.value);
          }
          counts.set(mode, count);
        }
      }),
      { seed: SEED, numRuns: CASES },
    );
    const summary = [...counts].map(([mode, { run, decoded }]) => `${mode} ${run} (${decoded} decoded)`).join(", ");
    console.log(`fuzz ${codecId}: ${CASES} cases, seed ${SEED}: ${summary}; slowest case ${slowest.toFixed(1)} ms, most RSS growth in a case ${grownMost.toFixed(1)} MiB`);
    for (const mode of codecs.get(codecId)!.info.decodeModes) expect(counts.get(mode)?.run).toBeGreaterThanOrEqual(CASES);
  }, 60_000 + CASES * 10);
});

describe("corrupt payloads through a whole decode trial", () => {
  // What the page's trial worker does with a payload that fails to decode: a failed task with the
  // step and the codec's message, no sample (trial.ts, runTrial).
  const dataset = datasets.get("dummy")!;
  const canonical = canonicalPb("dummy");
  const recordCount = dataset.fromCanonical(canonical).length;
  const cases = [...codecs.values()].flatMap((codec) => {
    const payload = codec.prepare(dataset).encode(dataset.fromCanonical(canonical));
    return codec.info.decodeModes.flatMap((mode) =>
      [
        ["truncated", payload.subarray(0, payload.length >> 1)],
        ["random", new Uint8Array(64).map((_, i) => (i * 167 + 13) & 0xff)],
      ].map(([what, bytes]) => [`${codec.info.id} ${mode}, ${what as string}`, codec.info.id, mode, bytes as Uint8Array] as const),
    );
  });
  it.each(cases)("%s", async (_name, codec, mode, payload) => {
    const result = await runTrial({
      taskId: "t",
      operation: "decode",
      dataset: "dummy",
      codec,
      decodeMode: mode,
      recordCount,
      lazyFields: [...dataset.lazyFields],
      sampling: { warmupMs: 1, maxWarmupMs: 10, rounds: 1, minRoundMs: 1 },
      canonical,
      payload,
    });
    // protobuf reads most byte strings as some message: that is a failed verification.
    expect(result.failure).toMatch(/^(decode|verification) failed: \S/);
    expect(result.sample).toBeUndefined();
  });
});
