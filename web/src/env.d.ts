/// <reference types="vite/client" />

// Filled in by vite.config.ts from node_modules/bson/package.json.
declare const __BSON_VERSION__: string;
