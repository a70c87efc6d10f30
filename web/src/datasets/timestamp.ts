// google.protobuf.Timestamp in the model is its proto3 JSON text (RFC 3339, as protobuf-es's toJson
// writes it: UTC with "Z", 0, 3, 6 or 9 fractional digits). Readers compare seconds and nanos
// (proto/README.md), so another writer's "…:00.100Z" or an offset form equals "…:00.1Z".

const RFC3339 = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$/;

export interface Instant {
  readonly seconds: bigint;
  readonly nanos: number;
}

/** Seconds since the epoch and nanos of an RFC 3339 text, or null when it is not one. */
export function parseTimestamp(text: string): Instant | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC maps years below 100 to 19xx; setUTCFullYear puts them back.
  date.setUTCFullYear(year);
  if (date.getUTCDate() !== day) return null;
  let seconds = BigInt(date.getTime() / 1000);
  if (m[8] === undefined) seconds -= BigInt((m[9] === "-" ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60));
  return { seconds, nanos: m[7] === undefined ? 0 : Number(m[7].padEnd(9, "0")) };
}

/** True when two RFC 3339 texts are the same instant (seconds and nanos); texts that are not RFC 3339 compare as texts. */
export function sameInstant(expected: unknown, actual: unknown): boolean {
  if (typeof expected !== "string" || typeof actual !== "string") return false;
  if (expected === actual) return true;
  const a = parseTimestamp(expected);
  const b = parseTimestamp(actual);
  return a !== null && b !== null && a.seconds === b.seconds && a.nanos === b.nanos;
}
