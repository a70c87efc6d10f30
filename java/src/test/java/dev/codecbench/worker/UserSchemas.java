package dev.codecbench.worker;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.codecbench.worker.modelgen.DescriptorSets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Users' schemas no code knows, written as .proto files at test time, compiled to a descriptor set
 * by the protoc the build ships (target/protoc/protoc), each with its manifest (proto/README.md,
 * "A user's dataset"); and their records, built as dynamic messages of the set (the test's side
 * only: the worker's typed models are what it generates).
 */
public final class UserSchemas {
  private UserSchemas() {}

  /** Every proto3 feature, in a package no code knows, importing a file of another package. */
  public static final Map<String, String> EVERYTHING = Map.of(
      "zz/shared/v1/parts.proto", """
          syntax = "proto3";
          package zz.shared.v1;

          enum Grade {
            GRADE_UNSPECIFIED = 0;
            GRADE_A = 1;
            GRADE_B = 2;
          }

          message Part {
            string label = 1;
            repeated int32 sizes = 2;
            Grade grade = 3;
          }
          """,
      "zz/unknown/v1/everything.proto", """
          syntax = "proto3";
          package zz.unknown.v1;

          import "google/protobuf/timestamp.proto";
          import "zz/shared/v1/parts.proto";

          message Everything {
            enum Colour {
              COLOUR_UNSPECIFIED = 0;
              COLOUR_RED = 1;
              COLOUR_GREEN = 2;
            }
            message Inner {
              string note = 1;
              repeated zz.shared.v1.Part parts = 2;
            }
            string name = 1 [json_name = "_name"];
            int32 i32 = 2;
            int64 i64 = 3;
            uint32 u32 = 4;
            uint64 u64 = 5;
            sint32 s32 = 6;
            sint64 s64 = 7;
            fixed32 f32 = 8;
            fixed64 f64 = 9;
            sfixed32 sf32 = 10;
            sfixed64 sf64 = 11;
            float fl = 12;
            double db = 13;
            bool flag = 14;
            bytes raw = 15;
            Colour colour = 16;
            repeated Colour colours = 17;
            zz.shared.v1.Part part = 18;
            repeated zz.shared.v1.Part parts = 19;
            Inner inner = 20;
            map<string, int64> counts = 21;
            map<int32, zz.shared.v1.Part> parts_by_id = 22;
            map<string, bytes> blobs_by_name = 23;
            oneof choice {
              string text = 24;
              zz.shared.v1.Part chosen = 25;
            }
            optional int32 maybe = 26;
            optional zz.shared.v1.Part maybe_part = 27;
            google.protobuf.Timestamp at = 28;
            repeated bytes blobs = 29;
            string class = 30;
            repeated string tags = 31;
          }
          """);

  /** A file without a package: snake_case names, unsigned and zigzag integers, a nested message. */
  public static final Map<String, String> LEGACY = Map.of("legacy.proto", """
      syntax = "proto3";

      enum LegacyKind {
        LEGACY_KIND_UNSPECIFIED = 0;
        LEGACY_KIND_HOT = 1;
        LEGACY_KIND_COLD = 2;
      }

      message LegacyRow {
        message Inner {
          sint32 x_pos = 1;
          uint32 y_pos = 2;
          string label_text = 3;
        }
        string row_id = 1;
        uint32 hit_count = 2;
        sint32 delta_value = 3;
        LegacyKind kind = 4;
        Inner inner = 5;
        repeated Inner history = 6;
        optional string note_text = 7;
        uint64 big_count = 8;
      }
      """);

  /** Only what every codec has a payload rule for (proto/README.md, "Payloads"). */
  public static final Map<String, String> PLAIN = Map.of("zz/plain/v1/plain.proto", """
      syntax = "proto3";
      package zz.plain.v1;

      enum Status {
        STATUS_UNSPECIFIED = 0;
        STATUS_OPEN = 1;
        STATUS_PAID = 2;
      }

      message Customer {
        string email_address = 1;
        int32 age = 2;
      }

      message Line {
        string sku = 1;
        int32 quantity = 2;
      }

      message Plain {
        string order_id = 1;
        int32 qty = 2;
        int64 big_total = 3;
        double unit_price = 4;
        bool is_paid = 5;
        Status status = 6;
        Customer customer = 7;
        repeated Line lines = 8;
        repeated string tags = 9;
        optional int64 coupon_cents = 10;
        optional Customer referrer = 11;
        repeated int64 stamps = 12;
      }
      """);

  /**
   * Writes the files into {@code dir}, compiles them with the shipped protoc into
   * {@code dir/descriptors.binpb} (imports included, google/protobuf/*.proto from protobuf-java's
   * jar) and writes {@code dir/dataset.json}; returns the manifest.
   */
  public static Path write(Path dir, Map<String, String> files, String id, String message, String fieldNames,
      List<String> lazyFields) throws IOException, InterruptedException {
    Path src = dir.resolve("proto");
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = src.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    Path wkt = dir.resolve("wkt/google/protobuf/timestamp.proto");
    Files.createDirectories(wkt.getParent());
    try (InputStream in = Message.class.getResourceAsStream("/google/protobuf/timestamp.proto")) {
      Files.write(wkt, in.readAllBytes());
    }
    List<String> cmd = new ArrayList<>(List.of(Path.of("target/protoc/protoc").toAbsolutePath().toString(),
        "-I" + src, "-I" + dir.resolve("wkt"), "--include_imports", "--descriptor_set_out=" + dir.resolve("descriptors.binpb")));
    cmd.addAll(files.keySet());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("protoc failed: " + out);
    }
    String lazy = String.join(", ", lazyFields.stream().map(f -> '"' + f + '"').toList());
    Path manifest = dir.resolve("dataset.json");
    Files.writeString(manifest, "{\"id\": \"" + id + "\", \"message\": \"" + message + "\", \"descriptorSet\": "
        + "\"descriptors.binpb\", \"fieldNames\": \"" + fieldNames + "\", \"lazyFields\": [" + lazy + "], "
        + "\"fingerprint\": \"\"}\n");
    return manifest;
  }

  /** The message {@code name} of the descriptor set beside {@code manifest}, for building records. */
  public static Descriptor message(Path manifest, String name) throws Exception {
    byte[] set = Files.readAllBytes(manifest.resolveSibling("descriptors.binpb"));
    for (FileDescriptor f : DescriptorSets.build(FileDescriptorSet.parseFrom(set))) {
      for (Descriptor m : f.getMessageTypes()) {
        if (m.getFullName().equals(name)) {
          return m;
        }
      }
    }
    throw new AssertionError(name + " is not in the set");
  }

  /**
   * A message of {@code d} from field names and values: a List for a repeated field, a Map for a
   * map, an enum value's name, byte[] for bytes, a message for a message.
   */
  public static DynamicMessage msg(Descriptor d, Object... kv) {
    DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
    for (int i = 0; i < kv.length; i += 2) {
      FieldDescriptor f = d.findFieldByName((String) kv[i]);
      if (f == null) {
        throw new AssertionError(d.getFullName() + " has no field " + kv[i]);
      }
      Object v = kv[i + 1];
      if (f.isMapField()) {
        Descriptor entry = f.getMessageType();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          b.addRepeatedField(f, msg(entry, "key", e.getKey(), "value", e.getValue()));
        }
      } else if (f.isRepeated()) {
        for (Object e : (List<?>) v) {
          b.addRepeatedField(f, value(f, e));
        }
      } else {
        b.setField(f, value(f, v));
      }
    }
    return b.build();
  }

  private static Object value(FieldDescriptor f, Object v) {
    if (f.getJavaType() == FieldDescriptor.JavaType.ENUM && v instanceof String name) {
      return f.getEnumType().findValueByName(name);
    }
    return v instanceof byte[] b ? ByteString.copyFrom(b) : v;
  }

  /** The canonical blob of {@code records}: each one field 1, length-delimited (proto/README.md). */
  public static byte[] blob(List<? extends Message> records) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    for (Message r : records) {
      c.writeMessage(1, r);
    }
    c.flush();
    return out.toByteArray();
  }
}
