import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The page is served by control from web/dist on the same origin as gRPC-web; relative asset
// paths keep it working under any base URL. Tests run in Node with JSON source text access
// switched on (Chromium has it by default; Node 20 only behind a flag).

// Codec library versions are read from the installed packages (what the lock file resolved), so
// the page announces what it really runs; src/env.d.ts declares the constant.
// A codec written here (ubjson) announces this package's own version as "codecbench-web".
// fast-xml-builder is fast-xml-parser's XMLBuilder (re-exported); its version goes into the xml codec's notes.
const libraries = ["bson", "@bufbuild/protobuf", "@msgpack/msgpack", "msgpackr", "cbor-x", "fast-xml-parser", "fast-xml-builder", "flatbuffers"];
const versionOf = (path: string) => (JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as { version: string }).version;
const libraryVersions = {
  ...Object.fromEntries(libraries.map((name) => [name, versionOf(`./node_modules/${name}/package.json`)])),
  "codecbench-web": versionOf("./package.json"),
};

export default defineConfig({
  base: "./",
  define: { __LIBRARY_VERSIONS__: JSON.stringify(libraryVersions) },
  // Two pages: the worker page, and the page a fresh Chromium opens for one trial (src/trial/host.ts).
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    rolldownOptions: { input: { main: fileURLToPath(new URL("./index.html", import.meta.url)), trial: fileURLToPath(new URL("./trial.html", import.meta.url)) } },
  },
  // Each trial runs in a module Web Worker (src/trial/entry.ts), bundled as its own ES chunk.
  worker: { format: "es" },
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
    pool: "forks",
    execArgv: ["--harmony-json-parse-with-source"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
