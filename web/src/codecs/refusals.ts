import { lazyFieldProblem, type Dataset } from "../datasets/dataset";
import type { DecodeMode } from "./codec";
import { codecs } from "./registry";

// What the page refuses to run on a dataset (DatasetInfo.refused, proto/README.md): a codec whose
// prepare refuses the schema (requireOffered names the first field it cannot carry, or any other
// reason a codec gives), and the lazy mode of a codec when a lazy field is not one a lazy read
// takes. Announced on attach, so control plans none of those cells; a task for one fails before
// its trial.

export interface DatasetRefusal {
  readonly codec: string;
  /** Empty: the codec in every mode, encode included. */
  readonly decodeMode: "" | DecodeMode;
  readonly reason: string;
}

const known = new WeakMap<Dataset, readonly DatasetRefusal[]>();

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Every refusal of `dataset`, computed once (prepare compiles each codec's mapping: untimed, at attach). */
export function refusalsOf(dataset: Dataset): readonly DatasetRefusal[] {
  let refusals = known.get(dataset);
  if (refusals) return refusals;
  // A bare-list record's lazy fields are cell indexes, not paths.
  const lazy = dataset.bareList ? null : dataset.lazyFields.map((field) => lazyFieldProblem(dataset.record, field)).find((problem) => problem !== null) ?? null;
  const out: DatasetRefusal[] = [];
  for (const [id, codec] of codecs) {
    try {
      codec.prepare(dataset);
    } catch (error) {
      const reason = describe(error);
      out.push({ codec: id, decodeMode: "", reason: reason.startsWith(`${id}: `) ? reason : `${id}: ${reason}` });
      continue;
    }
    if (lazy !== null && codec.info.decodeModes.includes("lazy")) out.push({ codec: id, decodeMode: "lazy", reason: `${id}: ${lazy}` });
  }
  known.set(dataset, (refusals = out));
  return refusals;
}

/** The refusal that covers `codec` in `mode` ("" for encode) on `dataset`, if any. */
export function refusalOf(dataset: Dataset, codec: string, mode: string): DatasetRefusal | undefined {
  return refusalsOf(dataset).find((refusal) => refusal.codec === codec && (refusal.decodeMode === "" || refusal.decodeMode === mode));
}
