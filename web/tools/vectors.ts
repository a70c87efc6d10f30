import { vectorFile } from "../src/codecs/catalogue";
import { encodeRecords, formatOf } from "../src/codecs/codec";
import { codecs } from "../src/codecs/registry";
import { datasets } from "../src/datasets/registry";

// The browser's golden vectors: for every dataset and browser codec, the payload of the canonical
// records of codecs/vectors/<dataset>.pb, named <dataset>.browser.<ext> (the format's catalogue fileExtension). Made with the same
// codec modules the page runs (write-vectors.ts writes them; the tests compare with them). Vectors
// are per format: a format's reference implementation (id = format) writes them, and another
// implementation of it (msgpack/msgpackr) reads every language's (test/codecs.test.ts).

export function browserVectors(canonical: (dataset: string) => Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const dataset of datasets.values()) {
    const records = dataset.fromCanonical(canonical(dataset.id));
    for (const codec of codecs.values()) {
      if (formatOf(codec.info.id) !== codec.info.id) continue;
      files.set(vectorFile(dataset.id, codec.info.id, "browser"), encodeRecords(codec.prepare(dataset), records));
    }
  }
  return files;
}
