import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogued } from "../src/codecs/catalogue";
import { codecs } from "../src/codecs/registry";
import { NODE_NATIVE_PATHS } from "../src/node/native";
import { installedVersion, readCatalogue, regionOperations } from "../tools/catalogue";
import { repoRoot } from "./vectors";

// The browser's and Node's codec descriptions, notes and timed regions included, are
// codecs/catalogue.yaml's (tools/catalogue.ts, built in by vite.config.ts), read strictly, with
// versions from what npm installed.

const text = readFileSync(`${repoRoot}codecs/catalogue.yaml`, "utf8");
const versions = (pkg: string) => `v(${pkg})`;

const entry = (implementations: string, extra = "") =>
  `codecs:\n  - id: x\n    mediaType: application/x\n${extra}    implementations:\n${implementations}`;
const TYPED_REGIONS = "[{operation: encode, contains: [serialize]}, {operation: typed, contains: [parse]}]";
/** `impl` ({...} flow mapping) as the browser's, with `regions`, and as the node's, without. */
const both = (impl: string, regions = TYPED_REGIONS) => `      browser: ${impl.replace(/}$/, `, timedRegions: ${regions}}`)}\n      node: ${impl}\n`;

describe("the catalogue as vite reads it", () => {
  it("gives every codec of the registry its media type, library, installed version, modes, notes and timed regions", () => {
    const built = readCatalogue(text, installedVersion).codecs;
    expect([...codecs.keys()].sort()).toEqual(Object.keys(built).sort());
    for (const codec of codecs.values()) {
      const listed = built[codec.info.id]!;
      const { notes, timedRegions } = listed;
      expect(catalogued(codec.info.id)).toEqual({ id: codec.info.id, mediaType: listed.mediaType, library: listed.library, libraryVersion: listed.libraryVersion, decodeModes: listed.modes, notes, timedRegions });
      // The codec announces its entry; msgpackr alone puts what run time knows before the notes.
      if (codec.info.id === "msgpack/msgpackr") {
        expect(codec.info).toEqual({ ...catalogued(codec.info.id), notes: codec.info.notes });
        expect(codec.info.notes).toMatch(/^(native add-on loaded|pure JavaScript)[^;]*, (Buffer|Uint8Array) views; /);
        expect(codec.info.notes.endsWith(`views; ${notes}`)).toBe(true);
      } else {
        expect(codec.info).toEqual(catalogued(codec.info.id));
      }
      expect(timedRegions.map((r) => r.operation)).toEqual(regionOperations(listed.modes));
    }
    // {version:NAME} is the installed version of a library used beside the codec's own.
    expect(built.xml!.notes).toContain(`XMLBuilder (fast-xml-builder ${installedVersion("fast-xml-builder")}, re-exported)`);
    expect(JSON.stringify(built)).not.toContain("{version:");
    // Versions: the library's package, a named package, a stated version, the project's own.
    expect(built["msgpack/msgpackr"]!.libraryVersion).toBe(JSON.parse(readFileSync(`${repoRoot}web/node_modules/msgpackr/package.json`, "utf8")).version);
    expect(built.bson!.libraryVersion).toBe(installedVersion("bson"));
    expect(built.json!.libraryVersion).toBe("ECMAScript");
    expect(built.ubjson!.libraryVersion).toBe(JSON.parse(readFileSync(`${repoRoot}web/package.json`, "utf8")).version);
  });

  it("takes the Node worker's native-path notes from the node entries", () => {
    const { nodeNotes } = readCatalogue(text, installedVersion);
    expect(Object.entries(NODE_NATIVE_PATHS)).toEqual(Object.entries(nodeNotes).map(([id, notes]) => [id, `Node: ${notes}`]));
    expect(Object.keys(NODE_NATIVE_PATHS)).toEqual(expect.arrayContaining(["json", "bson", "cbor", "msgpack", "msgpack/msgpackr"]));
  });

  it("resolves a version from package:, version: or the library's name", () => {
    expect(readCatalogue(entry(both("{library: lib, modes: [typed]}")), versions).codecs.x!.libraryVersion).toBe("v(lib)");
    expect(readCatalogue(entry(both("{library: Lib (js), package: lib, modes: [typed]}")), versions).codecs.x!.libraryVersion).toBe("v(lib)");
    expect(readCatalogue(entry(both("{library: Built in, version: ES, modes: [typed]}")), versions).codecs.x!.libraryVersion).toBe("ES");
    expect(readCatalogue(entry("      rust: {library: r, modes: [typed]}\n"), versions)).toEqual({ codecs: {}, nodeNotes: {} });
    expect(() => installedVersion("no-such-package-here")).toThrow(/no installed npm package "no-such-package-here".*package:/);
  });

  it("refuses unknown keys, a codec listed twice, and a node entry unlike the browser's", () => {
    expect(() => readCatalogue(entry(both("{library: l, modes: [typed], mode: [tree]}")), versions)).toThrow(/x's browser implementation has an unknown key "mode"/);
    expect(() => readCatalogue(entry(both("{library: l, modes: [typed]}"), "    determinstic: true\n"), versions)).toThrow(/entry "x" has an unknown key "determinstic"/);
    const once = entry(both("{library: l, modes: [typed]}"));
    expect(() => readCatalogue(once + once.replace("codecs:\n", ""), versions)).toThrow(/codec x is listed twice/);
    expect(() => readCatalogue(entry("      browser: {library: l, modes: [typed, tree]}\n      node: {library: l, modes: [typed]}\n"), versions))
      .toThrow(/x: node must name the browser's library and modes/);
    expect(() => readCatalogue(entry("      browser: {library: l, modes: [typed]}\n"), versions)).toThrow(/x's node implementation is missing/);
    expect(() => readCatalogue("codec: []", versions)).toThrow(/no codecs list/);
  });

  it("substitutes {version:NAME} in notes and region notes, and orders regions as the modes", () => {
    const listed = readCatalogue(entry(both('{library: l, modes: [typed], notes: "beside {version:helper}"}', '[{operation: encode, contains: [serialize], note: "helper {version:helper}"}, {operation: typed, contains: [parse]}]')), versions).codecs.x!;
    expect(listed.notes).toBe("beside v(helper)");
    expect(listed.timedRegions).toEqual([{ operation: "encode", contains: ["serialize"], note: "helper v(helper)" }, { operation: "typed", contains: ["parse"], note: "" }]);
    expect(regionOperations(["typed", "tree", "streaming"])).toEqual(["encode", "typed", "tree", "encode streaming", "streaming"]);
  });

  it("refuses regions out of order, an unknown region key, an unknown {version:X} and node regions, naming the codec", () => {
    expect(() => readCatalogue(entry(both("{library: l, modes: [typed]}", "[{operation: typed, contains: [parse]}, {operation: encode, contains: [serialize]}]")), versions))
      .toThrow(/x's browser timed regions are for \["typed","encode"\], not \["encode","typed"\]/);
    expect(() => readCatalogue(entry(both("{library: l, modes: [typed, tree]}")), versions)).toThrow(/x's browser timed regions are for .*, not \["encode","typed","tree"\]/);
    expect(() => readCatalogue(entry(both("{library: l, modes: [typed]}", "[{operation: encode, contain: [serialize]}, {operation: typed, contains: [parse]}]")), versions))
      .toThrow(/x's browser timed region "encode" has an unknown key "contain"/);
    expect(() => readCatalogue(entry(both("{library: l, modes: [typed]}", "[{operation: encode, contains: []}, {operation: typed, contains: [parse]}]")), versions))
      .toThrow(/x's browser timed region "encode" lacks an operation or a non-empty contains list/);
    expect(() => readCatalogue(entry(both('{library: l, version: ES, modes: [typed], notes: "with {version:no-such-package-here}"}')), installedVersion))
      .toThrow(/x's browser notes name \{version:no-such-package-here\}: no installed npm package "no-such-package-here"/);
    expect(() => readCatalogue(entry(`      browser: {library: l, modes: [typed], timedRegions: ${TYPED_REGIONS}}\n      node: {library: l, modes: [typed], timedRegions: ${TYPED_REGIONS}}\n`), versions))
      .toThrow(/x: a node entry has no timedRegions/);
    expect(() => readCatalogue(entry("      browser: {library: l, modes: [typed]}\n      node: {library: l, modes: [typed]}\n"), versions)).toThrow(/x's browser implementation has no timedRegions list/);
  });
});
