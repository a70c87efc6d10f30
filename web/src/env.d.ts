/// <reference types="vite/client" />

// Filled in by vite.config.ts from node_modules/<package>/package.json: package name -> version.
declare const __LIBRARY_VERSIONS__: Readonly<Record<string, string>>;

// Filled in by vite.config.ts from codecs/catalogue.yaml (tools/catalogue.ts): the browser's codecs by id.
declare const __CATALOGUE__: Readonly<Record<string, {
  readonly mediaType: string;
  readonly library: string;
  readonly libraryVersion: string;
  readonly modes: readonly string[];
  readonly fileExtension: string;
}>>;

// Filled in by vite.config.ts: the catalogue's `node` notes by codec id (only src/node/native.ts reads them).
declare const __NODE_NOTES__: Readonly<Record<string, string>>;
