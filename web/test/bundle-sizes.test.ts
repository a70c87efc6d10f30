import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { codecs } from "../src/codecs/registry";
import { bundleSizes, codecIdOf, registeredCodecs, type BundleSizes } from "../tools/bundle-sizes.mjs";

// Bundle size per browser codec (tools/bundle-sizes.mjs, issue 31 item 5): measured afresh with
// Vite/Rolldown here, and compared with what `npm run build` wrote to dist/bundle-sizes.json.

const built = new URL("../dist/bundle-sizes.json", import.meta.url);
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), "utf8")) as { version: string }).version;

describe("bundle sizes", () => {
  let measured: BundleSizes;
  const sizes = async () => (measured ??= await bundleSizes());

  test("the script finds every codec of the registry, in its order", () => {
    // A module is named after its format or library (msgpack/msgpackr is msgpackr.ts) and declares its id.
    expect(registeredCodecs().map((c) => codecIdOf(c.module))).toEqual([...codecs.keys()]);
  });

  test("every codec adds positive minified and gzip bytes over the baseline", async () => {
    const s = await sizes();
    expect(Object.keys(s.codecs)).toEqual([...codecs.keys()]);
    expect(s.baseline.minifiedBytes).toBeGreaterThan(s.baseline.gzipBytes);
    expect(Object.keys(s.baseline.libraries)).toEqual(["@bufbuild/protobuf"]);
    for (const [id, c] of Object.entries(s.codecs)) {
      expect(c.addedMinifiedBytes, id).toBeGreaterThan(0);
      expect(c.addedGzipBytes, id).toBeGreaterThan(0);
      expect(c.addedGzipBytes, id).toBeLessThan(c.addedMinifiedBytes);
      expect(c.entryMinifiedBytes, id).toBe(s.baseline.minifiedBytes + c.addedMinifiedBytes);
      expect(c.entryGzipBytes, id).toBe(s.baseline.gzipBytes + c.addedGzipBytes);
      expect(c.modules[c.module], id).toBeGreaterThan(0);
    }
  });

  test("a codec's own library is in its figure, with the version the codec announces; the others add none", async () => {
    const s = await sizes();
    // The npm package of each codec's library; json and ubjson are written here, and protobuf's
    // runtime is in the baseline (the dataset models are protobuf-es descriptors).
    const packages: Record<string, string | undefined> = {
      json: undefined, bson: "bson", protobuf: undefined, ubjson: undefined, msgpack: "@msgpack/msgpack",
      cbor: "cbor-x", xml: "fast-xml-parser", flatbuffers: "flatbuffers", "msgpack/msgpackr": "msgpackr",
    };
    expect(Object.keys(packages).sort()).toEqual([...codecs.keys()].sort());
    for (const [id, codec] of codecs) {
      const c = s.codecs[id]!;
      const own = Object.keys(c.libraries).filter((name) => !c.libraries[name]!.inBaseline);
      const pkg = packages[id];
      if (pkg === undefined) {
        expect(own, id).toEqual([]);
        if (id === "protobuf") expect(c.uses, id).toContain(`@bufbuild/protobuf ${versionOf("@bufbuild/protobuf")}`);
      } else {
        expect(c.uses, id).toContain(`${pkg} ${versionOf(pkg)}`);
        expect(own, id).toContain(pkg);
        expect(c.libraries[pkg]!.version, id).toBe(versionOf(pkg));
        expect(c.libraries[pkg]!.version, id).toBe(codec.info.libraryVersion);
      }
    }
  });

  test("the order is plausible: a codec without a library adds less than one with a big library", async () => {
    const { codecs: c } = await sizes();
    for (const heavy of ["bson", "xml", "cbor", "msgpack", "msgpack/msgpackr"]) {
      expect(c.json!.addedGzipBytes, heavy).toBeLessThan(c[heavy]!.addedGzipBytes);
      expect(c.protobuf!.addedMinifiedBytes, heavy).toBeLessThan(c[heavy]!.addedMinifiedBytes);
    }
    // bson's library alone is bigger than the json codec and its helpers.
    expect(c.bson!.libraries.bson!.renderedBytes).toBeGreaterThan(Object.values(c.json!.modules).reduce((a, b) => a + b, 0));
  });

  test("dist/bundle-sizes.json is what the sources bundle to now", async () => {
    expect(existsSync(built), "dist/bundle-sizes.json is not built: npm run build").toBe(true);
    const file = JSON.parse(readFileSync(built, "utf8")) as BundleSizes;
    const s = await sizes();
    expect(file.codecs, "dist/bundle-sizes.json is stale: npm run build").toEqual(s.codecs);
    expect(file.baseline).toEqual(s.baseline);
    expect(file.tool.vite).toBe(versionOf("vite"));
  });
});
