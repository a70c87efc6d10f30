// Bundle size per browser codec (issue 31 item 5): the minified and gzip bytes each codec adds to a
// page, measured from the bundler's own output. Run by `npm run build` after `vite build` (which
// empties dist/), writes dist/bundle-sizes.json; `node tools/bundle-sizes.mjs [OUT]` alone works
// too (src/gen must exist: `npm run generate`).
//
// How: one production build per entry with Vite (Rolldown, the page's own minifier, target and
// `define`s from vite.config.ts), nothing written to disk, each entry bundled into one chunk:
// - the **baseline** entry imports what every codec of the page shares: the dataset models
//   (src/datasets/registry.ts: the datasets from the generated descriptors, with the @bufbuild/protobuf
//   runtime they need) and the codec interface (src/codecs/codec.ts's recordsOf,
//   src/codecs/catalogue.ts's catalogued, with the whole catalogue: every codec's notes and timed
//   regions are there, not in its module), and puts them on globalThis;
// - one entry per codec registered in src/codecs/registry.ts imports the same, plus that codec's
//   module, and puts it in a one-codec registry Map on globalThis (so nothing is tree-shaken away
//   that a page using the codec would keep: every mode of it, typed, tree and lazy, since the
//   page loads the codec module whole).
// A codec's figure is its entry's bytes minus the baseline's: what choosing that codec costs a page
// that already has the models. Gzip is Node's zlib at level 9 of each entry's whole output; the
// difference of two gzip sizes is not the gzip size of the difference, but it is what the page's
// transfer grows by. Per module, the chunk's `modules[id].renderedLength` (Rolldown's own
// figure, before minification) says where the bytes come from: the libraries and the codecbench
// modules a codec adds.

import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants as zlib } from "node:zlib";
import { build, loadConfigFromFile, version as viteVersion, rolldownVersion } from "vite";

const web = fileURLToPath(new URL("..", import.meta.url));
const GZIP_LEVEL = 9;
const GLOBAL = "codecbenchBundle";

/** The codecs of src/codecs/registry.ts: each `import { xCodec } from "./x"` with its module. */
export function registeredCodecs(source = readFileSync(join(web, "src/codecs/registry.ts"), "utf8")) {
  const found = [...source.matchAll(/^import \{ (\w+)Codec \} from "\.\/([\w-]+)";$/gm)].map(([, name, module]) => ({
    name: `${name}Codec`,
    module: `src/codecs/${module}.ts`,
  }));
  if (found.length === 0) throw new Error("src/codecs/registry.ts imports no `{ xCodec } from \"./x\"`: bundle-sizes.mjs cannot find the codecs");
  // In the order of the registry's list (json first), as the page offers them.
  const list = source.indexOf("new Map(");
  const at = (c) => {
    const i = source.indexOf(c.name, list);
    if (list < 0 || i < 0) throw new Error(`src/codecs/registry.ts imports ${c.name} but does not list it after "new Map("`);
    return i;
  };
  return found.sort((a, b) => at(a) - at(b));
}

/** The codec id a codec module's info names (`catalogued("msgpack/msgpackr")`): the key of its figures. */
export function codecIdOf(module) {
  const ids = new Set([...readFileSync(join(web, module), "utf8").matchAll(/\bcatalogued\("([^"]+)"\)/g)].map((m) => m[1]));
  if (ids.size !== 1) throw new Error(`${module} names ${ids.size ? [...ids].join(", ") : "no codec"} by \`catalogued("<id>")\`, not one: bundle-sizes.mjs cannot name its figures`);
  return [...ids][0];
}

const SHARED = [
  ['{ datasetById, allDatasets, registerUserDataset }', "src/datasets/registry.ts"],
  ["{ recordsOf }", "src/codecs/codec.ts"],
  ["{ catalogued }", "src/codecs/catalogue.ts"],
];

/** The source of an entry: the shared imports, the codecs given, all on globalThis. */
function entrySource(codecs) {
  const lines = [...SHARED, ...codecs.map((c) => [`{ ${c.name} }`, c.module])].map(
    ([names, path]) => `import ${names} from ${JSON.stringify(join(web, path))};`,
  );
  lines.push(
    `const codecs = new Map([${codecs.map((c) => c.name).join(", ")}].map((codec) => [codec.info.id, codec]));`,
    `globalThis.${GLOBAL} = { datasetById, allDatasets, registerUserDataset, recordsOf, catalogued, codecs };`,
  );
  return lines.join("\n") + "\n";
}

/** The package a module of node_modules belongs to, with its version, or undefined for our own. */
function packageOf(id) {
  const parts = id.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const name = parts[at + 1].startsWith("@") ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
  const root = parts.slice(0, at + 1).join(sep) + sep + name;
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  return { name, version };
}

/** Bundles one entry; its minified bytes, gzip bytes and rendered bytes per library and per own module. */
async function measure(name, source, define) {
  const id = `\0bundle-entry:${name}`;
  const importedIds = {};
  const output = await build({
    configFile: false,
    root: web,
    logLevel: "warn",
    define,
    plugins: [
      {
        name: "bundle-entry",
        resolveId: (x) => (x === `bundle-entry:${name}` ? id : undefined),
        load: (x) => (x === id ? source : undefined),
        // What each bundled module imports (Rolldown's module graph), for the packages a codec uses.
        generateBundle(_, bundle) {
          for (const file of Object.values(bundle)) {
            if (file.type !== "chunk") continue;
            for (const moduleId of Object.keys(file.modules)) importedIds[moduleId] = this.getModuleInfo(moduleId)?.importedIds ?? [];
          }
        },
      },
    ],
    build: {
      write: false,
      target: "es2022",
      minify: true,
      sourcemap: false,
      modulePreload: false,
      copyPublicDir: false,
      rolldownOptions: { input: { [name]: `bundle-entry:${name}` }, output: { codeSplitting: false } },
    },
  });
  const chunks = [output].flat().flatMap((o) => o.output).filter((o) => o.type === "chunk");
  if (chunks.length !== 1) throw new Error(`${name}: expected one chunk, Rolldown made ${chunks.length}`);
  const [chunk] = chunks;
  const code = Buffer.from(chunk.code, "utf8");
  const libraries = {};
  const modules = {};
  const imports = {};
  for (const [moduleId, info] of Object.entries(chunk.modules)) {
    if (!info.renderedLength) continue;
    const pkg = packageOf(moduleId);
    if (pkg) {
      const key = pkg.name;
      libraries[key] ??= { version: pkg.version, renderedBytes: 0 };
      libraries[key].renderedBytes += info.renderedLength;
    } else if (!moduleId.startsWith("\0")) {
      const path = relative(web, moduleId).split(sep).join("/");
      modules[path] = info.renderedLength;
      imports[path] = [...new Set((importedIds[moduleId] ?? []).map(packageOf).filter((p) => p !== undefined).map((p) => `${p.name} ${p.version}`))];
    }
  }
  return {
    minifiedBytes: code.length,
    gzipBytes: gzipSync(code, { level: GZIP_LEVEL }).length,
    libraries,
    modules,
    imports,
  };
}

/** Everything in `entry` that is not in (or bigger than in) `baseline`, by rendered bytes. */
function added(entry, baseline) {
  const libraries = {};
  for (const [name, lib] of Object.entries(entry.libraries)) {
    const more = lib.renderedBytes - (baseline.libraries[name]?.renderedBytes ?? 0);
    if (more > 0) libraries[name] = { version: lib.version, renderedBytes: more, inBaseline: name in baseline.libraries };
  }
  const modules = Object.fromEntries(Object.entries(entry.modules).filter(([path]) => !(path in baseline.modules)));
  // The packages the codec's own modules import, whether or not the baseline has them already.
  const uses = [...new Set(Object.keys(modules).flatMap((path) => entry.imports[path] ?? []))].sort();
  return { libraries, modules, uses };
}

export async function bundleSizes() {
  const loaded = await loadConfigFromFile({ command: "build", mode: "production" }, join(web, "vite.config.ts"), web, "silent");
  const define = loaded?.config.define ?? {};
  const baseline = await measure("baseline", entrySource([]), define);
  const codecs = {};
  for (const codec of registeredCodecs()) {
    const entry = await measure(codec.name, entrySource([codec]), define);
    const id = codecIdOf(codec.module);
    codecs[id] = {
      module: codec.module,
      addedMinifiedBytes: entry.minifiedBytes - baseline.minifiedBytes,
      addedGzipBytes: entry.gzipBytes - baseline.gzipBytes,
      entryMinifiedBytes: entry.minifiedBytes,
      entryGzipBytes: entry.gzipBytes,
      ...added(entry, baseline),
    };
  }
  return {
    what: "bytes each browser codec adds to a page: a minimal entry importing the dataset models, the codec interface and that codec, minus the baseline entry without the codec (web/tools/bundle-sizes.mjs)",
    tool: { vite: viteVersion, rolldown: rolldownVersion, minifier: "vite build.minify (Oxc)", target: "es2022", node: process.version },
    gzip: { implementation: "node:zlib gzipSync", level: GZIP_LEVEL, zlib: process.versions.zlib },
    baseline: {
      imports: SHARED.map(([names, path]) => `${path} ${names}`),
      minifiedBytes: baseline.minifiedBytes,
      gzipBytes: baseline.gzipBytes,
      libraries: baseline.libraries,
      modules: baseline.modules,
    },
    codecs,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!existsSync(join(web, "src/gen/codecbench/v1/datasets_pb.ts"))) {
    console.error("bundle-sizes: src/gen is not generated: run npm run generate (or npm run build)");
    process.exit(1);
  }
  const out = process.argv[2] ?? join(web, "dist/bundle-sizes.json");
  const sizes = await bundleSizes();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(sizes, null, 2) + "\n");
  const kB = (b) => `${(b / 1000).toFixed(1)} kB`;
  console.log(`bundle sizes (${relative(process.cwd(), out) || out}): baseline ${kB(sizes.baseline.minifiedBytes)} min, ${kB(sizes.baseline.gzipBytes)} gz; each codec adds:`);
  for (const [id, c] of Object.entries(sizes.codecs)) {
    const libs = Object.entries(c.libraries).filter(([, l]) => !l.inBaseline).map(([n, l]) => `${n} ${l.version}`);
    console.log(`  ${id.padEnd(12)} ${kB(c.addedMinifiedBytes).padStart(9)} min ${kB(c.addedGzipBytes).padStart(9)} gz${libs.length ? `  (${libs.join(", ")})` : ""}`);
  }
}
