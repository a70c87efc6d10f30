// cbor-x and msgpackr share one author and one decoder design, and two habits a trial must handle
// the same way in both.
//
// - They cache a DataView on the input array (source.dataView). A trial decodes one payload object
//   over and over, so each decode gets a fresh view of it, as an application decoding bytes that
//   just arrived pays that DataView every time.
// - Their readers trust the shape of what they read and fail with whatever the engine throws on a
//   wrong one: a head cut off fails in DataView's RangeError, a wrong tag or extension content in a
//   TypeError, deep nesting in the stack's RangeError. Those are rethrown as one Error saying so;
//   the library's own Errors pass unchanged. The try costs nothing unless something is thrown.

/** A fresh view of the payload's bytes (no copy). */
export type FreshView = (payload: Uint8Array) => Uint8Array;

export const uint8View: FreshView = (payload) => new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);

/** The library's decoder: cbor-x's Decoder, msgpackr's Unpackr. */
export interface LibraryDecoder {
  decode(source: Uint8Array): unknown;
}

/** `decoder.decode` of a fresh view of `payload`, engine errors from inside the library rethrown as one Error naming `format` and `library`. */
export function decodeFresh(decoder: LibraryDecoder, payload: Uint8Array, view: FreshView, format: string, library: string): unknown {
  try {
    return decoder.decode(view(payload));
  } catch (error) {
    if (error instanceof Error && error.constructor !== Error) {
      // DataView's read past the end (V8's message) is a cut-off head; the libraries' `incomplete` flag is not precise.
      const cut = error instanceof RangeError && error.message === "Offset is outside the bounds of the DataView";
      const what = cut ? `${format} payload ends inside a value` : `malformed ${format}`;
      throw new Error(`${what}: ${library} failed with ${error.name}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
