import type { CodecInfo, DecodeMode, TimedRegionInfo } from "./codec";

// A codec's descriptive facts, from codecs/catalogue.yaml (vite.config.ts reads it when it builds,
// tools/catalogue.ts): its media type, library, installed version, modes, notes and timed regions,
// written there once for every language. A codec module adds only what it alone knows at run time
// (msgpack/msgpackr: whether its native add-on loaded).

// Read once: vite writes the object literal in place of every use of the name.
const CATALOGUE = __CATALOGUE__;

/** Codec `id`'s catalogue entry as its CodecInfo; an error naming it when the catalogue gives the browser none. */
export function catalogued(id: string): CodecInfo {
  const entry = CATALOGUE[id];
  if (entry === undefined) throw new Error(`codec ${id} has no browser implementation in codecs/catalogue.yaml`);
  return {
    id,
    mediaType: entry.mediaType,
    library: entry.library,
    libraryVersion: entry.libraryVersion,
    decodeModes: entry.modes as DecodeMode[],
    notes: entry.notes,
    // tools/catalogue.ts checked the operations: encode, then the modes in order.
    timedRegions: entry.timedRegions as readonly TimedRegionInfo[],
  };
}

/** A format's golden-vector file extension (catalogue `fileExtension`: tools read owners.browser.json as JSON). */
export function fileExtension(format: string): string {
  const ext = CATALOGUE[format]?.fileExtension;
  if (!ext) throw new Error(`codecs/catalogue.yaml gives format ${format} no fileExtension`);
  return ext;
}

/** A golden vector's file name: `<dataset>.<language>.<ext>` of the codec's format. */
export function vectorFile(dataset: string, format: string, language: string): string {
  return `${dataset}.${language}.${fileExtension(format)}`;
}
