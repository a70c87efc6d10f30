import { Kind, type FieldPlan, type MessagePlan } from "./flatbuffers-plan";
import { checkTable, fieldAt, FlatBuffersError, follow, readScalar, readVector, type Input } from "./flatbuffers-read";

// Lazy reads for the flatbuffers codec: a dotted path (a matrix row's cell index) resolved once
// to a chain of slots, then followed through the record's table in place; no record is built.
// An enum reads as its value's name.

interface Step {
  /** A field of the current table, or an index into the current list. */
  readonly field: FieldPlan | null;
  readonly index: number;
}

interface LazyPath {
  readonly text: string;
  readonly steps: readonly Step[];
  /** The field whose scalar (or scalar element) is read at the end. */
  readonly end: FieldPlan;
}

export function resolve(record: MessagePlan, unwrapped: FieldPlan | null, text: string): LazyPath {
  // The model's matrix row is the list of the record's one field: the path starts inside it.
  const steps: Step[] = unwrapped ? [{ field: unwrapped, index: 0 }] : [];
  const missing = (why: string) => new FlatBuffersError(`${record.desc.typeName} records have no field ${JSON.stringify(text)} (${why})`);
  // Where the path stands: a message, a list of `of`, or a scalar.
  let message: MessagePlan | null = unwrapped ? null : record;
  let list: FieldPlan | null = unwrapped;
  let scalar: FieldPlan | null = null;
  for (const part of text.split(".")) {
    if (message) {
      const field = message.byName.get(part);
      if (!field) throw missing(`${message.desc.typeName} has no field ${JSON.stringify(part)}`);
      steps.push({ field, index: 0 });
      [message, list, scalar] = field.list ? [null, field, null] : field.kind === Kind.Message ? [field.message, null, null] : [null, null, field];
    } else if (list) {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(part)) throw missing(`${JSON.stringify(part)} is not an index into the list ${list.name}`);
      steps.push({ field: null, index: Number(part) });
      [message, list, scalar] = list.kind === Kind.Message ? [list.message, null, null] : [null, null, list];
    } else {
      throw missing(`${JSON.stringify(part)} is inside a scalar`);
    }
  }
  if (scalar === null) throw missing(`it is a ${message ? "message" : "list"}, not a scalar a lazy read turns into text`);
  return { text, steps, end: scalar };
}

/** Reads one lazy path from the record table at `t` (checked, `size` bytes) as text. */
export function readPath(input: Input, t: number, size: number, path: LazyPath, record: number): string {
  let list: FieldPlan | null = null;
  let listAt = 0;
  for (let s = 0; s < path.steps.length; s++) {
    const { field, index } = path.steps[s]!;
    let at: number;
    if (field) {
      at = fieldAt(input, t, size, field);
      if (at === 0) {
        // Absent: the proto default, unless the field is an unset optional one or an index into the (empty) list follows.
        if (field.optional) throw new FlatBuffersError(`record ${record} has no field ${JSON.stringify(path.text)} (${field.name} is unset)`);
        if (path.steps.some((step, later) => later > s && step.field === null)) {
          throw new FlatBuffersError(`record ${record} has no field ${JSON.stringify(path.text)} (${field.name} is empty)`);
        }
        return String(path.end.zero);
      }
      if (field.list) {
        [list, listAt] = [field, at];
        continue;
      }
      if (field.kind !== Kind.Message) return String(readScalar(input, field, at));
    } else {
      const [start, n] = readVector(input, listAt, list!.elementSize);
      if (index >= n) throw new FlatBuffersError(`record ${record} has no field ${JSON.stringify(path.text)} (${list!.name} has ${n} entries)`);
      at = start + index * list!.elementSize;
      if (list!.kind !== Kind.Message) return String(readScalar(input, list!, at));
    }
    t = follow(input, at, "table", 4);
    size = checkTable(input, t);
  }
  throw new Error("flatbuffers: a lazy path ends in a table");
}
