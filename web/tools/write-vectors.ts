import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { browserVectors } from "./vectors";

// `npm run vectors` (from web/): writes codecs/vectors/<dataset>.browser.<ext> from
// <dataset>.pb. It runs as a vite SSR build, so the codecs see the same build-time constants
// (library versions) as the page; the folder can be given as the first argument.

const dir = `${resolve(process.argv[2] ?? "../codecs/vectors")}/`;
const files = browserVectors((dataset) => new Uint8Array(readFileSync(`${dir}${dataset}.pb`)));
for (const [name, bytes] of files) writeFileSync(dir + name, bytes);
console.log(`web: wrote ${files.size} browser vectors to ${dir}`);
