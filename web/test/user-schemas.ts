import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { UserDatasetSource } from "../src/datasets/user-dataset";

// Schemas no web source knows, compiled at test time by buf (a devDependency) into the
// FileDescriptorSet a user's manifest names (imports included, dependencies first), and written
// out as the harness writes a dataset's folder: descriptors.binpb and dataset.json.

/** zz.unknown.v1.Everything: every proto3 feature, a second file imported, a Timestamp. */
export const EVERYTHING = {
  "zz/unknown/v1/common.proto": `syntax = "proto3";
package zz.unknown.v1;

enum Tier {
  TIER_UNSPECIFIED = 0;
  TIER_GOLD = 1;
  TIER_SILVER = 2;
}
message Money {
  string currency = 1;
  int64 units = 2;
  sint32 nanos = 3;
}
`,
  "zz/unknown/v1/everything.proto": `syntax = "proto3";
package zz.unknown.v1;

import "google/protobuf/timestamp.proto";
import "zz/unknown/v1/common.proto";

message Everything {
  double d = 1;
  float f = 2;
  int32 i32 = 3;
  int64 i64 = 4;
  uint32 u32 = 5;
  uint64 u64 = 6;
  sint32 s32 = 7;
  sint64 s64 = 8;
  fixed32 fx32 = 9;
  fixed64 fx64 = 10;
  sfixed32 sf32 = 11;
  sfixed64 sf64 = 12;
  bool flag = 13;
  string text = 14;
  bytes blob = 15;
  Tier tier = 16;
  Money price = 17;
  repeated Line lines = 18;
  repeated string tags = 19;
  map<string, Money> attributes = 20;
  oneof payment {
    string card = 21;
    Money voucher = 22;
  }
  optional string note = 23;
  google.protobuf.Timestamp placed_at = 24;
  Status status = 25;
  map<int32, Tier> tier_by_rank = 26;

  message Line {
    string sku = 1;
    uint32 quantity = 2;
    repeated Tier tiers = 3;
  }
  enum Status {
    STATUS_UNSPECIFIED = 0;
    STATUS_PAID = 1;
  }
}
`,
};

/** A package-less file, snake_case field names, unsigned and zigzag integers. */
export const READING = {
  "reading.proto": `syntax = "proto3";

message Reading {
  uint32 sensor_id = 1;
  sint32 delta_value = 2;
  string unit_name = 3;
  repeated sint32 raw_samples = 4;
  uint32 error_count = 5;
  optional uint32 battery_level = 6;
}
`,
};

/** zz.plain.v1.Shipment: only the kinds every codec carries, snake_case names (for "proto" field names). */
export const SHIPMENT = {
  "zz/plain/v1/shipment.proto": `syntax = "proto3";
package zz.plain.v1;

enum Carrier {
  CARRIER_UNSPECIFIED = 0;
  CARRIER_POST = 1;
  CARRIER_FREIGHT = 2;
}
message Shipment {
  string shipment_id = 1;
  int32 item_count = 2;
  int64 total_weight = 3;
  double unit_price = 4;
  bool is_fragile = 5;
  Carrier carrier = 6;
  Address ship_to = 7;
  repeated Parcel parcels = 8;
  repeated string tracking_codes = 9;
  optional string gift_note = 10;
  optional int32 priority_level = 11;

  message Address {
    string street_name = 1;
    string postal_code = 2;
  }
  message Parcel {
    int32 weight_grams = 1;
    repeated int64 scan_times = 2;
    Carrier handed_to = 3;
  }
}
`,
};

const buf = fileURLToPath(new URL("../node_modules/.bin/buf", import.meta.url));

/** The FileDescriptorSet of `files` (path -> .proto text), imports included, as buf builds it. */
export function compileSet(files: Record<string, string>): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "codecbench-user-schema-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const out = join(dir, "descriptors.binpb");
  const result = spawnSync(buf, ["build", ".", "--as-file-descriptor-set", "-o", out], { cwd: dir, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`buf build failed: ${result.error?.message ?? result.stderr}`);
  return readFileSync(out);
}

export function messageIn(set: Uint8Array, name: string): DescMessage {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage(name)!;
}

export type Manifest = Omit<UserDatasetSource, "descriptorSet" | "manifest"> & { descriptorSet?: string };

/** The source the driver hands the page for this manifest and set. */
export function sourceOf(manifest: Manifest, set: Uint8Array): UserDatasetSource {
  return { ...manifest, descriptorSet: Buffer.from(set).toString("base64"), manifest: `${manifest.id}/dataset.json` };
}

/** A dataset's folder as the harness writes it: descriptors.binpb and dataset.json; answers the manifest's path. */
export function writeDatasetFolder(root: string, manifest: Manifest, set: Uint8Array): string {
  const dir = join(root, manifest.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "descriptors.binpb"), set);
  writeFileSync(join(dir, "dataset.json"), JSON.stringify({ descriptorSet: "descriptors.binpb", ...manifest }, null, 2));
  return join(dir, "dataset.json");
}

/** harness/tests/test_user_dataset.py's schema: zz.unknown.v1.Everything over two files (parts.proto imported). */
export const HARNESS_PARTS = `syntax = "proto3";
package zz.unknown.v1;
enum Colour { COLOUR_UNSPECIFIED = 0; COLOUR_RED = 1; COLOUR_GREEN = 2; }
message Part { string name = 1; int32 weight = 2; Colour colour = 3; }
`;

const harnessEverything = (name: string, unsigned64: boolean) => `syntax = "proto3";
package zz.unknown.v1;
import "google/protobuf/timestamp.proto";
import "parts.proto";
message ${name} {
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; ${unsigned64 ? "uint64 u64 = 4;" : ""} sint32 s32 = 5; sint64 s64 = 6;
  fixed32 f32 = 7; ${unsigned64 ? "fixed64 f64 = 8;" : ""} sfixed32 sf32 = 9; sfixed64 sf64 = 10; float fl = 11; double db = 12;
  bool ok = 13; string text = 14; bytes raw = 15;
  Colour colour = 16; Part main = 17; repeated Part parts = 18; map<string, int32> counts = 19;
  oneof choice { string label = 20; int32 code = 21; }
  optional string note = 22; google.protobuf.Timestamp at = 23; repeated string tags = 24;
}
`;

export const HARNESS_EVERYTHING = { "parts.proto": HARNESS_PARTS, "everything.proto": harnessEverything("Everything", true) };

/** The same without its unsigned 64-bit fields (u64, f64): what bson and ubjson carry. */
export const HARNESS_SIGNED = { "parts.proto": HARNESS_PARTS, "signed.proto": harnessEverything("Signed", false) };
