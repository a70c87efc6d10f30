package dev.codecbench.worker.modelgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumOptions;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint's text on a schema with every kind of line proto/README.md specifies: an enum
 * with an alias (values in number, then name order), a proto3 optional (a synthetic oneof, which is
 * not named), a real oneof, a map (its entry message), a nested type, fields out of number order.
 * The expected fingerprint is what harness/codecbench/datasets.py computes for the same schema.
 */
class SchemaFingerprintTest {
  private static final String TEXT = """
      enum t.v1.Kind
      0 KIND_A
      1 KIND_B
      1 KIND_C
      message t.v1.Rec
      1 opt opt 3 0  1\s
      2 a_b aB 9 0  0\s
      3 k k 14 0 t.v1.Kind 0 choice
      4 s s 11 0 t.v1.Sub 0 choice
      5 m m 11 1 t.v1.Rec.MEntry 0\s
      6 subs subs 11 1 t.v1.Sub 0\s
      message t.v1.Rec.MEntry
      1 key key 9 0  0\s
      2 value value 11 0 t.v1.Sub 0\s
      message t.v1.Sub
      1 x x 5 0  0\s
      """;

  @Test
  void textAndFingerprintOfEveryKindOfLine() throws Exception {
    Descriptor rec = schema().findMessageTypeByName("Rec");
    assertEquals(TEXT, SchemaFingerprint.text(rec));
    assertEquals("93349491bbbb344e", SchemaFingerprint.of(rec));
  }

  @Test
  void aNestedRecordReachesItsOwnTypesOnly() throws Exception {
    Descriptor sub = schema().findMessageTypeByName("Sub");
    assertEquals("message t.v1.Sub\n1 x x 5 0  0 \n", SchemaFingerprint.text(sub));
  }

  private static FieldDescriptorProto.Builder field(String name, int number, Type type) {
    return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
        .setLabel(Label.LABEL_OPTIONAL);
  }

  private static FileDescriptor schema() throws Exception {
    FileDescriptorProto file = FileDescriptorProto.newBuilder()
        .setName("t/v1/t.proto").setPackage("t.v1").setSyntax("proto3")
        .addEnumType(EnumDescriptorProto.newBuilder().setName("Kind")
            .setOptions(EnumOptions.newBuilder().setAllowAlias(true))
            .addValue(EnumValueDescriptorProto.newBuilder().setName("KIND_A").setNumber(0))
            .addValue(EnumValueDescriptorProto.newBuilder().setName("KIND_C").setNumber(1))
            .addValue(EnumValueDescriptorProto.newBuilder().setName("KIND_B").setNumber(1)))
        .addMessageType(DescriptorProto.newBuilder().setName("Sub").addField(field("x", 1, Type.TYPE_INT32)))
        .addMessageType(DescriptorProto.newBuilder().setName("Rec")
            .addOneofDecl(OneofDescriptorProto.newBuilder().setName("choice"))
            .addOneofDecl(OneofDescriptorProto.newBuilder().setName("_opt"))
            .addField(field("a_b", 2, Type.TYPE_STRING))
            .addField(field("opt", 1, Type.TYPE_INT64).setOneofIndex(1).setProto3Optional(true))
            .addField(field("k", 3, Type.TYPE_ENUM).setTypeName(".t.v1.Kind").setOneofIndex(0))
            .addField(field("s", 4, Type.TYPE_MESSAGE).setTypeName(".t.v1.Sub").setOneofIndex(0))
            .addField(field("m", 5, Type.TYPE_MESSAGE).setTypeName(".t.v1.Rec.MEntry").setLabel(Label.LABEL_REPEATED))
            .addField(field("subs", 6, Type.TYPE_MESSAGE).setTypeName(".t.v1.Sub").setLabel(Label.LABEL_REPEATED))
            .addNestedType(DescriptorProto.newBuilder().setName("MEntry")
                .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                .addField(field("key", 1, Type.TYPE_STRING))
                .addField(field("value", 2, Type.TYPE_MESSAGE).setTypeName(".t.v1.Sub"))))
        .build();
    return FileDescriptor.buildFrom(file, new FileDescriptor[0]);
  }
}
