import { BSON, Int32, Long } from "bson";
import { Builder, ByteBuffer } from "flatbuffers";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeRecords, encodeRecords } from "../src/codecs/codec";
import { codecs } from "../src/codecs/registry";
import { compareRecords } from "../src/datasets/compare";
import { readLazyField } from "../src/datasets/dataset";
import { media, mediaProtoDir, mediaRecords as records } from "./media-schema";

// Every codec carries the MediaContent shape (test/media-schema.ts) as proto/README.md's payload
// rules say: enums by name (flatbuffers: flatc's enum, the number), proto3 `optional` fields
// written when set, even to their default, and left out when unset; typed, tree and lazy.

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
type Tree = { records: Array<{ media: Record<string, unknown>; images: Array<Record<string, unknown>> }> };

describe("the MediaContent model", () => {
  it("holds enums by name, leaves unset optional fields out and keeps set ones at their default", () => {
    expect(records[0]!.media).toMatchObject({ title: "Javaone Keynote", bitrate: 262144, player: "MEDIA_PLAYER_JAVA", duration: 18000000n });
    expect(records[0]!.media).not.toHaveProperty("copyright");
    expect(records[0]!.images[1]).not.toHaveProperty("title");
    expect(records[0]!.images.map((image) => image.size)).toEqual(["MEDIA_IMAGE_SIZE_LARGE", "MEDIA_IMAGE_SIZE_SMALL"]);
    expect(records[1]!.media).toMatchObject({ title: "", bitrate: 0, copyright: "© 2024 Zoë", player: "MEDIA_PLAYER_FLASH" });
    expect(Object.keys(records[2]!.media)).toEqual(["uri", "width", "height", "format", "duration", "size", "persons", "player"]);
    expect(records[2]!.images).toEqual([{ uri: "", width: 0, height: 0, size: "MEDIA_IMAGE_SIZE_UNSPECIFIED" }]);
  });

  it("is verified with unset told from set to the default", () => {
    const unset = structuredClone(records);
    delete unset[1]!.media.title;
    expect(compareRecords(media.record, records, unset)).toBe('record 1 field media.title: expected "" (set), got nothing (unset)');
    const set = structuredClone(records);
    set[0]!.media.copyright = "";
    expect(compareRecords(media.record, records, set)).toBe('record 0 field media.copyright: expected nothing (unset), got ""');
    const player = structuredClone(records);
    player[0]!.media.player = 1;
    expect(compareRecords(media.record, records, player)).toBe('record 0 field media.player: expected "MEDIA_PLAYER_JAVA", got number 1');
  });
});

describe.each([...codecs.values()].map((codec) => [codec.info.id, codec] as const))("%s carries MediaContent", (id, codec) => {
  const prepared = codec.prepare(media);
  const payload = encodeRecords(prepared, records);

  it("typed", () => {
    expect(compareRecords(media.record, records, decodeRecords(prepared, payload))).toBeNull();
  });

  if (codec.info.decodeModes.includes("tree")) {
    it("tree: enums by name, no key for an unset optional field, a key for one set to its default", () => {
      const tree = prepared.decodeTree!(payload);
      expect(compareRecords(media.record, records, prepared.treeToRecords!(tree))).toBeNull();
      const [first, second] = (tree as Tree).records;
      expect(first!.media.player).toBe("MEDIA_PLAYER_JAVA");
      expect(first!.images[0]!.size).toBe("MEDIA_IMAGE_SIZE_LARGE");
      expect(Object.keys(first!.media)).not.toContain("copyright");
      expect(Object.keys(first!.images[1]!)).not.toContain("title");
      expect(Object.keys(second!.media)).toEqual(expect.arrayContaining(["title", "bitrate"]));
    });
  }

  if (codec.info.decodeModes.includes("lazy")) {
    it("lazy", () => {
      const expected = records.flatMap((record) => media.lazyFields.map((field) => readLazyField(record, field)));
      expect(prepared.decodeLazy!(payload, media.lazyFields)).toEqual(expected);
      expect(prepared.decodeLazy!(payload, ["media.player"])).toEqual(["MEDIA_PLAYER_JAVA", "MEDIA_PLAYER_FLASH", "MEDIA_PLAYER_UNSPECIFIED"]);
    });
  }
});

describe("the wire forms", () => {
  const encode = (id: string) => encodeRecords(codecs.get(id)!.prepare(media), records);

  it("json: fields in proto order, enums as names, unset optional fields without a key", () => {
    const json = text(encode("json"));
    expect(json).toContain(
      '{"uri":"http://zoë.example/李小龙.mp4","title":"","width":-1,"height":2147483647,"format":"video/mp4","duration":9007199254740991,"size":-9007199254740991,' +
        '"bitrate":0,"persons":["Zoë","李小龙","<&>\\r"],"player":"MEDIA_PLAYER_FLASH","copyright":"© 2024 Zoë"}',
    );
    expect(json).toContain('{"uri":"http://javaone.com/keynote_small.jpg","width":320,"height":240,"size":"MEDIA_IMAGE_SIZE_SMALL"}');
    expect(json.match(/"copyright"/g)).toHaveLength(1);
  });

  it("bson: int32 and int64 types by field, enums as strings, unset optional fields without an element", () => {
    const document = BSON.deserialize(encode("bson"), { promoteValues: false }) as Tree;
    const [first, second, third] = document.records;
    expect(first!.media.bitrate).toBeInstanceOf(Int32);
    expect(second!.media.bitrate).toEqual(new Int32(0));
    expect(first!.media.duration).toBeInstanceOf(Long);
    expect(String(first!.media.player)).toBe("MEDIA_PLAYER_JAVA");
    expect(Object.keys(first!.media)).not.toContain("copyright");
    expect(Object.keys(third!.media)).not.toContain("title");
    expect(Object.keys(third!.media)).not.toContain("bitrate");
  });

  it("xml: enums as text, an element for an optional field set to its default, none when unset", () => {
    const [first, second, third] = text(encode("xml")).split("</records>");
    expect(first).toContain("<player>MEDIA_PLAYER_JAVA</player>");
    expect(first).toContain("<size>MEDIA_IMAGE_SIZE_SMALL</size>");
    expect(first).not.toContain("<copyright>");
    expect(second).toMatch(/<title(><\/title|\/)>/);
    expect(second).toContain("<bitrate>0</bitrate>");
    expect(second).toContain("<persons>&lt;&amp;&gt;&#13;</persons>");
    expect(third).not.toMatch(/<title|<bitrate|<copyright/);
  });

  it("xml: an enum text that names no value, or a missing element of a plain field, is refused", () => {
    const xml = codecs.get("xml")!.prepare(media);
    const bytes = (s: string) => new TextEncoder().encode(s);
    const one = text(encode("xml")).split("</records>")[0] + "</records></payload>";
    expect(() => xml.decodeTyped(bytes(one.replace("MEDIA_PLAYER_JAVA", "JAVA")))).toThrow('record 0 field media.player: "JAVA" is not a value of enum acme.media.v1.MediaPlayer');
    expect(() => xml.decodeTyped(bytes(one.replace(/<format>[^<]*<\/format>/, "")))).toThrow("record 0 field media.format: missing");
  });
});

// FlatBuffers: what flatc 2.0.8 makes of the same .proto (as generate-fbs does for datasets.proto).
// flatc --proto turns `optional int32 bitrate` into a plain `bitrate:int` (default 0), so its
// accessor cannot tell unset from 0: presence is the field's vtable entry.
describe("flatbuffers against flatc's classes for the same .proto", () => {
  type Generated = any;
  let G: Generated;
  const flatbuffers = fileURLToPath(new URL("../node_modules/flatbuffers/mjs/index.js", import.meta.url));

  beforeAll(async () => {
    const dir = mediaProtoDir();
    const run = (args: string[]) => {
      const result = spawnSync(process.env.FLATC || "flatc", args, { encoding: "utf8" });
      if (result.status !== 0) throw new Error(`flatc ${args.join(" ")}: ${result.error?.message ?? result.stderr}`);
    };
    run(["--proto", "-o", dir, join(dir, "media.proto")]);
    run(["--ts", "-o", join(dir, "ts"), join(dir, "media.fbs")]);
    // The generated files live outside web/: their runtime import is pointed at web's flatbuffers.
    for (const name of ["media", "media-content", "media-dataset", "media-image"]) {
      const file = join(dir, "ts/acme/media/v1", `${name}.ts`);
      writeFileSync(file, readFileSync(file, "utf8").replace("from 'flatbuffers'", `from ${JSON.stringify(flatbuffers)}`));
    }
    // media_generated.ts re-exports every class but the list message's.
    G = { ...(await import(/* @vite-ignore */ join(dir, "ts/media_generated.ts"))), ...(await import(/* @vite-ignore */ join(dir, "ts/acme/media/v1/media-dataset.ts"))) };
  });

  const present = (table: Generated, slot: number) => table.bb.__offset(table.bb_pos, 4 + 2 * slot) !== 0;
  const optional = (table: Generated, slot: number, name: string) => (present(table, slot) ? { [name]: table[name]() } : {});

  /** A payload read through the generated accessors into model records. */
  function readGenerated(payload: Uint8Array): unknown[] {
    const root = G.MediaDataset.getRootAsMediaDataset(new ByteBuffer(payload));
    return Array.from({ length: root.recordsLength() }, (_, i) => {
      const record = root.records(i);
      const m = record.media();
      return {
        media: {
          uri: m.uri(),
          ...optional(m, 1, "title"),
          width: m.width(),
          height: m.height(),
          format: m.format(),
          duration: m.duration(),
          size: m.size(),
          ...optional(m, 7, "bitrate"),
          persons: Array.from({ length: m.personsLength() }, (_, j) => m.persons(j)),
          player: G.MediaPlayer[m.player()],
          ...optional(m, 10, "copyright"),
        },
        images: Array.from({ length: record.imagesLength() }, (_, j) => {
          const image = record.images(j);
          return { uri: image.uri(), ...optional(image, 1, "title"), width: image.width(), height: image.height(), size: G.MediaImageSize[image.size()] };
        }),
      };
    });
  }

  /** The records written with the generated builders, as another language's writer would: every set field added (forceDefaults), unset optional ones not. */
  function writeGenerated(): Uint8Array {
    const b = new Builder();
    b.forceDefaults(true);
    const string = (value: unknown) => (value === undefined ? undefined : b.createString(value as string));
    const contents = records.map(({ media: m, images }) => {
      const imageOffsets = images.map((image) => {
        const [uri, title] = [string(image.uri)!, string(image.title)];
        G.MediaImage.startMediaImage(b);
        G.MediaImage.addUri(b, uri);
        if (title !== undefined) G.MediaImage.addTitle(b, title);
        G.MediaImage.addWidth(b, image.width);
        G.MediaImage.addHeight(b, image.height);
        G.MediaImage.addSize(b, G.MediaImageSize[image.size as string]);
        return G.MediaImage.endMediaImage(b);
      });
      const [uri, title, format, copyright] = [string(m.uri)!, string(m.title), string(m.format)!, string(m.copyright)];
      const persons = G.Media.createPersonsVector(b, (m.persons as string[]).map((person) => b.createString(person)));
      G.Media.startMedia(b);
      G.Media.addUri(b, uri);
      if (title !== undefined) G.Media.addTitle(b, title);
      G.Media.addWidth(b, m.width);
      G.Media.addHeight(b, m.height);
      G.Media.addFormat(b, format);
      G.Media.addDuration(b, m.duration);
      G.Media.addSize(b, m.size);
      if (m.bitrate !== undefined) G.Media.addBitrate(b, m.bitrate);
      G.Media.addPersons(b, persons);
      G.Media.addPlayer(b, G.MediaPlayer[m.player as string]);
      if (copyright !== undefined) G.Media.addCopyright(b, copyright);
      const mediaOffset = G.Media.endMedia(b);
      const imagesVector = G.MediaContent.createImagesVector(b, imageOffsets);
      return G.MediaContent.createMediaContent(b, mediaOffset, imagesVector);
    });
    b.finish(G.MediaDataset.createMediaDataset(b, G.MediaDataset.createRecordsVector(b, contents)));
    return b.asUint8Array();
  }

  it("the codec's buffer reads through flatc's accessors: enums as flatc's numbers, an unset optional field absent, a set one present at its default", () => {
    const payload = encodeRecords(codecs.get("flatbuffers")!.prepare(media), records);
    expect(compareRecords(media.record, records, readGenerated(payload))).toBeNull();
    const m = G.MediaDataset.getRootAsMediaDataset(new ByteBuffer(payload)).records(1).media();
    expect([m.player(), G.MediaPlayer.MEDIA_PLAYER_FLASH]).toEqual([2, 2]);
    expect([present(m, 1), present(m, 7), m.bitrate()]).toEqual([true, true, 0]);
  });

  it("a buffer written with flatc's builders decodes through the codec", () => {
    const prepared = codecs.get("flatbuffers")!.prepare(media);
    const payload = writeGenerated();
    expect(compareRecords(media.record, records, prepared.decodeTyped(payload))).toBeNull();
    expect(prepared.decodeLazy!(payload, ["media.duration", "media.player"])).toEqual(records.flatMap((record) => [String(record.media.duration), record.media.player]));
  });
});
