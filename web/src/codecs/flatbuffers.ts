import type { DescMessage } from "@bufbuild/protobuf";
import { Builder } from "flatbuffers";
import type { Dataset } from "../datasets/dataset";
import { requireOffered } from "../datasets/schema";
import type { Codec, PreparedCodec } from "./codec";
import { readPath, resolve } from "./flatbuffers-lazy";
import { checkAcyclic, recordShape, type MessagePlan } from "./flatbuffers-plan";
import { checkTable, Corrupt, fail, FlatBuffersError, follow, Input, recordsVector, tableReader } from "./flatbuffers-read";
import { Offsets, tableWriter, vectorWriter } from "./flatbuffers-write";
import { catalogued } from "./catalogue";

export { FlatBuffersError } from "./flatbuffers-read";

// flatbuffers: the npm flatbuffers runtime (Builder, ByteBuffer). The wire form of proto/README.md:
// the dataset's `*Dataset` table as the root, in the schema `flatc --proto` makes of
// proto/codecbench/v1/datasets.proto (one table per message, a field's slot = its position in
// the message's declaration, as flatc 2.0.8 numbers them), no file identifier.
//
// The mapping between the model objects and the tables is built once per dataset in prepare()
// from the protobuf-es descriptors (the schema every codec shares; flatbuffers-plan.ts), and makes
// the calls flatc's generated TypeScript makes: Builder.createString / startVector / addOffset /
// endVector / startObject / addField* / endObject / finish to write (flatbuffers-write.ts),
// ByteBuffer.__offset / __indirect / __vector / __vector_len / __string and read* to read
// (flatbuffers-read.ts, bounds-checked; lazy paths in flatbuffers-lazy.ts). flatc's own TypeScript
// (npm run generate, src/gen/fbs/) is not used here: it has one class per message, and a codec
// that called it would need hand-written code per dataset. test/flatbuffers.test.ts reads this
// codec's buffers through those generated classes and decodes what their builders write
// (test/media.test.ts the same for enums and optional fields). A fresh Builder per encode;
// asUint8Array() is a view of its buffer, so the bytes are copied out.

// ---- the codec -----------------------------------------------------------------------------------

export const flatbuffersCodec: Codec = {
  info: catalogued("flatbuffers"),
  prepare(dataset: Dataset): PreparedCodec {
    requireOffered("flatbuffers", dataset.record);
    const plans = new Map<DescMessage, MessagePlan>();
    const { root: rootPlan, record, unwrapped } = recordShape(dataset, plans);
    checkAcyclic(record);
    const list = rootPlan.fields[0]!;
    const offsets = new Offsets();
    const writeRecord = tableWriter(record, offsets, new Map(), unwrapped !== null);
    const writeRecords = vectorWriter(list, offsets, writeRecord);
    const readRecord = tableReader(record, new Map(), unwrapped !== null);

    return {
      encode: (records) => {
        const b = new Builder();
        offsets.top = 0;
        const vector = writeRecords(b, records);
        b.startObject(rootPlan.fields.length);
        b.addFieldOffset(list.slot, vector, 0);
        b.finish(b.endObject());
        return b.asUint8Array().slice();
      },
      decodeTyped: (payload) => {
        const input = new Input(payload, payload.length);
        const vector = recordsVector(input, list);
        if (!vector) return [];
        const [start, n] = vector;
        const records = new Array<unknown>(n);
        let i = 0;
        try {
          for (; i < n; i++) records[i] = readRecord(input, follow(input, start + 4 * i, "table", 4));
        } catch (error) {
          fail(error, i);
        }
        return records;
      },
      decodeLazy: (payload, fields) => {
        if (fields.length === 0) throw new FlatBuffersError("a lazy read needs at least one field");
        const paths = fields.map((text) => resolve(record, unwrapped, text));
        // Each path may pass the record's nested tables again.
        const input = new Input(payload, payload.length * paths.length);
        const vector = recordsVector(input, list);
        if (!vector) return [];
        const [start, n] = vector;
        const values = new Array<string>(n * paths.length);
        let i = 0;
        try {
          for (; i < n; i++) {
            const t = follow(input, start + 4 * i, "table", 4);
            const size = checkTable(input, t);
            for (let p = 0; p < paths.length; p++) {
              const path = paths[p]!;
              try {
                values[i * paths.length + p] = readPath(input, t, size, path, i);
              } catch (error) {
                if (error instanceof Corrupt) error.path = path.text;
                throw error;
              }
            }
          }
        } catch (error) {
          fail(error, i);
        }
        return values;
      },
    };
  },
};
