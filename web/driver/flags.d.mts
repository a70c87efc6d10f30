// Types of flags.mjs for the TypeScript tests and tools that import it.
export declare const V8_FLAGS: string;
export declare const CHROMIUM_FLAGS: string[];
