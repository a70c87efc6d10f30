import { DecodeError } from "@msgpack/msgpack";
import { BSONError } from "bson";
import type { DecodeMode, PreparedCodec } from "../src/codecs/codec";
import { FlatBuffersError } from "../src/codecs/flatbuffers";

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

/** A fatal TextDecoder's rejection (Node: ERR_ENCODING_INVALID_ENCODED_DATA; Chromium: "The encoded data was not valid."). */
const utf8Error = (error: Error): boolean => error instanceof TypeError && /encoded data was not valid/.test(error.message);

/** Whether `error` is one a codec's decode throws on bad input, per codec and mode. */
function ownError(codec: string, mode: DecodeMode, error: Error): boolean {
  if (error.constructor === Error && SHAPE.test(error.message)) return true;
  switch (codec) {
    case "json":
      // JSON.parse, and the fatal TextDecoder.
      return error instanceof SyntaxError || utf8Error(error);
    case "bson":
      return mode === "lazy" ? error.constructor.name === "LazyBsonError" : BSONError.isBSONError(error);
    case "msgpack":
      // DecodeError, and RangeError for input that ends early (the library relies on DataView's
      // own out-of-bounds RangeError in synchronous decode) or has trailing bytes.
      return (
        error instanceof DecodeError ||
        (error instanceof RangeError && /^(Insufficient data|Extra \d+ of \d+ byte|Offset is outside the bounds of the DataView)/.test(error.message))
      );
    case "msgpack/msgpackr":
      // msgpackr's own plain Errors ("Unexpected end of MessagePack data", "Data read, but end of
      // buffer not reached", "Unknown MessagePack token"); engine errors from inside the library
      // come rewrapped by fresh-decode.ts as plain Errors.
      return error.constructor === Error;
    case "cbor":
      // cbor-x's own plain Errors ("Unexpected end of CBOR data", "Data read, but end of buffer
      // not reached", "Unknown token 28", length limits); engine errors from inside the library
      // come rewrapped by cbor.ts as plain Errors starting "malformed CBOR:".
      return error.constructor === Error;
    case "ubjson":
      // ubjson.ts throws plain Errors, each naming the offset.
      return error.constructor === Error && /^(Unexpected EOF|Unexpected type|Expected count marker|Invalid length\/count|Invalid data|container count|containers nested too deep)/.test(error.message);
    case "protobuf":
      // protobuf-es: plain Errors ("illegal tag", "cant skip wire type", "cannot decode ..."),
      // RangeError for input that ends early ("premature EOF", or DataView's own for a fixed64/32
      // cut off: its double() reads without a bounds check), and its fatal TextDecoder's TypeError
      // for a string that is not UTF-8.
      return (
        error.constructor === Error ||
        (error instanceof RangeError && /^(premature EOF|Offset is outside the bounds of the DataView)$/.test(error.message)) ||
        utf8Error(error)
      );
    case "xml":
      // xml.ts throws plain Errors: the validator's and parser's verdicts as "malformed XML...",
      // the root as "XML payload: ...", binding as "record N ..."; and the fatal TextDecoder's TypeError.
      return (error.constructor === Error && /^(malformed XML[ :(]|XML payload: |record \d+[ :])/.test(error.message)) || utf8Error(error);
    case "flatbuffers":
      // flatbuffers.ts checks every offset, length and string itself and throws FlatBuffersError
      // ("malformed FlatBuffer: ...", the invalid UTF-8 of a string included); a lazy index past
      // the end of a well-formed list is "record N has no field ...", as in bson's lazy reader.
      return error instanceof FlatBuffersError && /^(malformed FlatBuffer: \S|record \d+ has no field ")/.test(error.message);
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
