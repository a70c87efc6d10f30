/// <reference types="vite/client" />

// Filled in by vite.config.ts from node_modules/<package>/package.json: package name -> version.
declare const __LIBRARY_VERSIONS__: Readonly<Record<string, string>>;
