import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

// The page is served by control from web/dist on the same origin as gRPC-web; relative asset
// paths keep it working under any base URL. Tests run in Node with JSON source text access
// switched on (Chromium has it by default; Node 20 only behind a flag).
const bsonVersion = (JSON.parse(readFileSync(new URL("./node_modules/bson/package.json", import.meta.url), "utf8")) as { version: string }).version;

export default defineConfig({
  base: "./",
  define: { __BSON_VERSION__: JSON.stringify(bsonVersion) },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
    pool: "forks",
    execArgv: ["--harmony-json-parse-with-source"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
