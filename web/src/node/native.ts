// Node-native paths (issue 34): where a codec's library has a faster path under Node than in a
// page, whether the Node worker takes it: the `node` notes of codecs/catalogue.yaml (the one place
// they are written). The worker adds these to its codecs' timed-region notes (CodecInfo.timed_regions,
// the report's timed-region table). The reference codecs run the page's modules as they are (the
// figures answer "the browser's code, under Node"); a native path is a declared codec of its own:
// msgpack/msgpackr.
export const NODE_NATIVE_PATHS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(__NODE_NOTES__).map(([id, notes]) => [id, `Node: ${notes}`]),
);

/** One line for the environment's details. */
export function nativePathsSummary(): string {
  return Object.entries(NODE_NATIVE_PATHS).map(([codec, note]) => `${codec}: ${note.replace(/^Node: /, "")}`).join("; ");
}
