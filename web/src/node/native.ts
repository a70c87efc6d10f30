// Node-native paths (issue 34): where a codec's library has a faster path under Node than in a
// page, whether the Node worker takes it. The worker adds these to its codecs' timed-region notes
// (CodecInfo.timed_regions, the report's timed-region table); docs/DESIGN.md "One boundary" and
// codecs/catalogue.yaml say the same. The reference codecs run the page's modules as they are (the
// figures answer "the browser's code, under Node"); a native path is a declared codec of its own:
// msgpack/msgpackr.

export const NODE_NATIVE_PATHS: Readonly<Record<string, string>> = {
  json: "Node: the page's TextEncoder/TextDecoder, not Buffer (Buffer.from(text) / buffer.toString('utf8'), Node's native UTF-8 path, is not taken)",
  cbor: "Node: cbor-x's cbor-x/encode and cbor-x/decode resolve to its JavaScript build; its native string extractor (cbor-extract, loaded only by the package root) is not taken",
  msgpack: "Node: @msgpack/msgpack has no native add-on (msgpack/msgpackr is the native one)",
  "msgpack/msgpackr": "Node: msgpackr's Node entry, with its msgpackr-extract native add-on reading strings (when it loads: the codec's notes say) and Buffer views of each payload",
  bson: "Node: js-bson is JavaScript in Node as in a page (no native add-on)",
};

/** One line for the environment's details. */
export function nativePathsSummary(): string {
  return Object.entries(NODE_NATIVE_PATHS).map(([codec, note]) => `${codec}: ${note.replace(/^Node: /, "")}`).join("; ");
}
