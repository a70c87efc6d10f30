import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import base from "./vite.config.ts";

// The Node.js worker (src/node/): the page's codecs, trial and task modules built for Node (an SSR
// build: packages stay imports, resolved from web/node_modules at run time) into dist-node/:
// main.js (the attached worker) and trial.js (one trial process). `npm run build:node`; make web.
export default defineConfig({
  define: base.define,
  build: {
    ssr: true,
    outDir: "dist-node",
    emptyOutDir: true,
    target: "node20",
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL("./src/node/main.ts", import.meta.url)),
        trial: fileURLToPath(new URL("./src/node/trial-process.ts", import.meta.url)),
      },
      output: { format: "es", entryFileNames: "[name].js" },
    },
  },
  logLevel: "warn",
});
