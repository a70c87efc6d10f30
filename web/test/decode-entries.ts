import { DecodeError } from "@msgpack/msgpack";
import { BSONError } from "bson";
import type { DecodeMode, PreparedCodec } from "../src/codecs/codec";

// The decode entry points a trial times (src/trial/trial.ts, verifiedDecode), for the peer-suite
// and fuzz tests: typed = prepared.decodeTyped, tree = prepared.decodeTree, lazy =
// prepared.decodeLazy with the task's lazy fields. Nothing here decodes by itself.

/** The function a trial times for `mode` of a prepared codec. */
export function decodeEntry(prepared: PreparedCodec, mode: DecodeMode, lazyFields: readonly string[]): (payload: Uint8Array) => unknown {
  switch (mode) {
    case "typed":
      return (payload) => prepared.decodeTyped(payload);
    case "tree": {
      const { decodeTree } = prepared;
      if (!decodeTree) throw new Error("the codec announces tree but has no decodeTree");
      return (payload) => decodeTree(payload);
    }
    case "lazy": {
      const { decodeLazy } = prepared;
      if (!decodeLazy) throw new Error("the codec announces lazy but has no decodeLazy");
      return (payload) => decodeLazy(payload, lazyFields);
    }
  }
}

// recordsOf (src/codecs/codec.ts): a well-formed value of the wrong shape.
const SHAPE = /^payload (is not a document \{"records": \[\.\.\.\]\}|has no "records" array)$/;

/** Whether `error` is one a codec's decode throws on bad input, per codec and mode. */
function ownError(codec: string, mode: DecodeMode, error: Error): boolean {
  if (error.constructor === Error && SHAPE.test(error.message)) return true;
  switch (codec) {
    case "json":
      // JSON.parse, and the fatal TextDecoder (Node: ERR_ENCODING_INVALID_ENCODED_DATA).
      return error instanceof SyntaxError || (error instanceof TypeError && /encoded data was not valid/.test(error.message));
    case "bson":
      return mode === "lazy" ? error.constructor.name === "LazyBsonError" : BSONError.isBSONError(error);
    case "msgpack":
      // DecodeError, and the library's RangeErrors for short input and trailing bytes.
      return error instanceof DecodeError || (error instanceof RangeError && /^(Insufficient data|Extra \d+ of \d+ byte)/.test(error.message));
    case "ubjson":
      // The library throws plain Errors with these messages; "container count" is ubjson.ts's cap.
      return error.constructor === Error && /^(Unexpected EOF|Unexpected type|Expected count marker|Invalid length\/count|Unsuported type|container count)/.test(error.message);
    case "protobuf":
      // protobuf-es: plain Errors ("illegal tag", "cant skip wire type", "cannot decode ...") and RangeError("premature EOF").
      return error.constructor === Error || (error instanceof RangeError && error.message === "premature EOF");
    default:
      return false;
  }
}

/** Null when `error` is the codec's own, precise rejection; otherwise what is wrong with it. */
export function foreignError(codec: string, mode: DecodeMode, error: unknown): string | null {
  if (!(error instanceof Error)) return `threw a non-Error: ${String(error)}`;
  if (error.message.trim() === "") return `threw ${error.constructor.name} without a message`;
  return ownError(codec, mode, error) ? null : `threw a foreign ${error.constructor.name}: ${error.message}`;
}

/** Decodes, returning {value} or {error}; `ms` is the wall time of the call. */
export function attempt(decode: (payload: Uint8Array) => unknown, payload: Uint8Array): { value?: unknown; error?: unknown; threw: boolean; ms: number } {
  const started = performance.now();
  try {
    const value = decode(payload);
    return { value, threw: false, ms: performance.now() - started };
  } catch (error) {
    return { error, threw: true, ms: performance.now() - started };
  }
}
