import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { catalogueForBuild } from "./tools/catalogue.ts";

// The page is served by control from web/dist on the same origin as gRPC-web; relative asset
// paths keep it working under any base URL. Tests run in Node with JSON source text access
// switched on (Chromium has it by default; Node 20 only behind a flag).

// A codec's media type, library, version, modes, notes and timed regions come from
// codecs/catalogue.yaml (tools/catalogue.ts; versions, and the `{version:NAME}`s of notes, from what
// npm installed), defined as __CATALOGUE__ (and the `node` entries' notes as __NODE_NOTES__, which
// only the Node worker reads); src/env.d.ts declares them.
const catalogue = catalogueForBuild();

export default defineConfig({
  base: "./",
  define: { __CATALOGUE__: JSON.stringify(catalogue.codecs), __NODE_NOTES__: JSON.stringify(catalogue.nodeNotes) },
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
