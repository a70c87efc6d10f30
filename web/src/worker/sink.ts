// Where every timed operation's result goes, so the engine cannot prove it unused and skip the
// work. A module-level object property is observable from outside, which is enough.
export const sink: { value: unknown; count: number } = { value: undefined, count: 0 };

export function consume(value: unknown): void {
  sink.value = value;
  sink.count++;
}
