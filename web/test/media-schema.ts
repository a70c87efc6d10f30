import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DatasetOptionsSchema } from "../src/gen/codecbench/v1/dataset_options_pb";
import { datasetOf, type Dataset } from "../src/datasets/dataset";

// A record message of jvm-serializers' MediaContent shape (enums, proto3 `optional` fields, int64,
// non-ASCII text) that no web source names: the seventh built-in will have this shape. Its
// .proto text is the one source: buf compiles it to the descriptors the page derives everything
// from, and flatc (test/media.test.ts) to the FlatBuffers classes the other languages use.

export const MEDIA_PROTO = `syntax = "proto3";
package acme.media.v1;

message MediaContent {
  Media media = 1;
  repeated MediaImage images = 2;
}
message Media {
  string uri = 1;
  optional string title = 2;
  int32 width = 3;
  int32 height = 4;
  string format = 5;
  int64 duration = 6;
  int64 size = 7;
  optional int32 bitrate = 8;
  repeated string persons = 9;
  MediaPlayer player = 10;
  optional string copyright = 11;
}
message MediaImage {
  string uri = 1;
  optional string title = 2;
  int32 width = 3;
  int32 height = 4;
  MediaImageSize size = 5;
}
enum MediaPlayer {
  MEDIA_PLAYER_UNSPECIFIED = 0;
  MEDIA_PLAYER_JAVA = 1;
  MEDIA_PLAYER_FLASH = 2;
}
enum MediaImageSize {
  MEDIA_IMAGE_SIZE_UNSPECIFIED = 0;
  MEDIA_IMAGE_SIZE_SMALL = 1;
  MEDIA_IMAGE_SIZE_LARGE = 2;
}
message MediaDataset {
  repeated MediaContent records = 1;
}
`;

const buf = fileURLToPath(new URL("../node_modules/.bin/buf", import.meta.url));

/** A fresh folder holding media.proto. */
export function mediaProtoDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "codecbench-media-"));
  writeFileSync(join(dir, "media.proto"), MEDIA_PROTO);
  return dir;
}

function compile(dir: string): DescMessage {
  const out = join(dir, "media.binpb");
  const result = spawnSync(buf, ["build", join(dir, "media.proto"), "--as-file-descriptor-set", "-o", out], { cwd: dir, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`buf build failed: ${result.error?.message ?? result.stderr}`);
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(out))).getMessage("acme.media.v1.MediaContent")!;
}

export const mediaContent = compile(mediaProtoDir());
export const media: Dataset = datasetOf(mediaContent, create(DatasetOptionsSchema, { id: "media", lazyFields: ["media.uri", "media.duration"] }));

// Record 0: jvm-serializers' record, copyright unset; 1: non-ASCII text, optional fields set to
// their defaults ("" and 0), int64 at ±(2^53 - 1) (tree modes read int64 as doubles), no images; 2: everything unset or default.
const messages = [
  {
    media: {
      uri: "http://javaone.com/keynote.mpg",
      title: "Javaone Keynote",
      width: 640,
      height: 480,
      format: "video/mpg4",
      duration: 18000000n,
      size: 58982400n,
      bitrate: 262144,
      persons: ["Bill Gates", "Steve Jobs"],
      player: 1,
    },
    images: [
      { uri: "http://javaone.com/keynote_large.jpg", title: "Javaone Keynote", width: 1024, height: 768, size: 2 },
      { uri: "http://javaone.com/keynote_small.jpg", width: 320, height: 240, size: 1 },
    ],
  },
  {
    media: {
      uri: "http://zoë.example/李小龙.mp4",
      title: "",
      width: -1,
      height: 2147483647,
      format: "video/mp4",
      duration: 2n ** 53n - 1n,
      size: -(2n ** 53n - 1n),
      bitrate: 0,
      persons: ["Zoë", "李小龙", "<&>\r"],
      player: 2,
      copyright: "© 2024 Zoë",
    },
    images: [],
  },
  { media: {}, images: [{}] },
];

const canonical = toBinary(media.message, create(media.message, { records: messages.map((message) => create(mediaContent, message as never)) } as never));

/** The records as the page gets them from control: the list message's bytes, converted. */
export const mediaRecords = media.fromCanonical(canonical) as Array<{ media: Record<string, unknown>; images: Array<Record<string, unknown>> }>;
