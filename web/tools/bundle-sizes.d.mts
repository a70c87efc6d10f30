// Types of tools/bundle-sizes.mjs for the tests (test/bundle-sizes.test.ts).

export interface LibraryBytes {
  readonly version: string;
  /** Rolldown's renderedLength of the package's modules in the chunk, before minification. */
  readonly renderedBytes: number;
  /** Only in a codec's `libraries`: the baseline has some of this package already. */
  readonly inBaseline?: boolean;
}

export interface CodecBundle {
  readonly module: string;
  readonly addedMinifiedBytes: number;
  readonly addedGzipBytes: number;
  readonly entryMinifiedBytes: number;
  readonly entryGzipBytes: number;
  readonly libraries: Readonly<Record<string, LibraryBytes>>;
  readonly modules: Readonly<Record<string, number>>;
  /** "name version" of every package the codec's own modules import, in the baseline or not. */
  readonly uses: readonly string[];
}

export interface BundleSizes {
  readonly what: string;
  readonly tool: { readonly vite: string; readonly rolldown: string; readonly minifier: string; readonly target: string; readonly node: string };
  readonly gzip: { readonly implementation: string; readonly level: number; readonly zlib: string };
  readonly baseline: {
    readonly imports: readonly string[];
    readonly minifiedBytes: number;
    readonly gzipBytes: number;
    readonly libraries: Readonly<Record<string, LibraryBytes>>;
    readonly modules: Readonly<Record<string, number>>;
  };
  readonly codecs: Readonly<Record<string, CodecBundle>>;
}

/** The codec id a codec module declares in its info (`id: "msgpack/msgpackr"`). */
export function codecIdOf(module: string): string;
export function registeredCodecs(source?: string): { name: string; module: string }[];
export function bundleSizes(): Promise<BundleSizes>;
