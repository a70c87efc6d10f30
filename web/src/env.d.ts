/// <reference types="vite/client" />

// Filled in by vite.config.ts from codecs/catalogue.yaml (tools/catalogue.ts): the browser's codecs by id.
declare const __CATALOGUE__: Readonly<Record<string, {
  readonly mediaType: string;
  readonly library: string;
  readonly libraryVersion: string;
  readonly modes: readonly string[];
  readonly fileExtension: string;
  readonly notes: string;
  readonly timedRegions: readonly { readonly operation: string; readonly contains: readonly string[]; readonly note: string }[];
}>>;

// Filled in by vite.config.ts: the catalogue's `node` notes by codec id (only src/node/native.ts reads them).
declare const __NODE_NOTES__: Readonly<Record<string, string>>;
