// Failures name the step that failed (proto/README.md: "decode failed: ...").

/** An error that already says which step failed. */
export class StepError extends Error {
  constructor(readonly step: string, detail: string) {
    super(`${step} failed: ${detail}`);
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work` as step `name`: any error becomes a StepError of that step (unless it already is one). */
export async function step<T>(name: string, work: () => T | Promise<T>, onStep?: (step: string) => void): Promise<T> {
  onStep?.(name);
  try {
    return await work();
  } catch (error) {
    throw error instanceof StepError ? error : new StepError(name, describe(error));
  }
}
