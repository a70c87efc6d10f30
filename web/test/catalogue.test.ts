import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogued } from "../src/codecs/catalogue";
import { codecs } from "../src/codecs/registry";
import { NODE_NATIVE_PATHS } from "../src/node/native";
import { installedVersion, readCatalogue } from "../tools/catalogue";
import { repoRoot } from "./vectors";

// The browser's and Node's codec descriptions are codecs/catalogue.yaml's (tools/catalogue.ts,
// built in by vite.config.ts), read strictly, with versions from what npm installed.

const text = readFileSync(`${repoRoot}codecs/catalogue.yaml`, "utf8");
const versions = (pkg: string) => `v(${pkg})`;

const entry = (implementations: string, extra = "") =>
  `codecs:\n  - id: x\n    mediaType: application/x\n${extra}    implementations:\n${implementations}`;
const both = (impl: string) => `      browser: ${impl}\n      node: ${impl}\n`;

describe("the catalogue as vite reads it", () => {
  it("gives every codec of the registry its media type, library, installed version and modes", () => {
    const built = readCatalogue(text, installedVersion).codecs;
    expect([...codecs.keys()].sort()).toEqual(Object.keys(built).sort());
    for (const codec of codecs.values()) {
      const listed = built[codec.info.id]!;
      expect(codec.info).toMatchObject({ mediaType: listed.mediaType, library: listed.library, libraryVersion: listed.libraryVersion, decodeModes: listed.modes });
      expect(catalogued(codec.info.id)).toEqual({ id: codec.info.id, mediaType: listed.mediaType, library: listed.library, libraryVersion: listed.libraryVersion, decodeModes: listed.modes });
    }
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
});
