// JSON.parse source text access and JSON.rawJSON (TC39 "JSON.parse source text access", shipped in
// Chromium 114; Node 20 behind --harmony-json-parse-with-source). TypeScript's lib lacks them.
interface JSONReviverContext {
  readonly source?: string;
}

interface RawJSON {
  readonly rawJSON: string;
}

interface JSON {
  parse(text: string, reviver: (this: unknown, key: string, value: unknown, context: JSONReviverContext) => unknown): unknown;
  rawJSON(text: string): RawJSON;
  isRawJSON(value: unknown): value is RawJSON;
}
