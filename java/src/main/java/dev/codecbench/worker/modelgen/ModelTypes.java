package dev.codecbench.worker.modelgen;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;

/**
 * The model's Java types and the expressions converting between the model and protobuf-java's
 * generated classes. Model classes live below {@code root}, one package per proto package (the
 * root itself for a file without one). Every java.lang type is written fully qualified: a
 * user's message may be called String.
 */
final class ModelTypes {
  private final String root;

  ModelTypes(String root) {
    this.root = root;
  }

  String modelPackage(GenericDescriptor t) {
    String pkg = t.getFile().getPackage();
    return pkg.isEmpty() ? root : root + "." + pkg;
  }

  /** The model class of a message or enum. */
  String modelClass(GenericDescriptor t) {
    return modelPackage(t) + "." + Names.nestedPath(t);
  }

  /** The model's Java type of one value of the field (a list's element, a map's value). */
  String valueType(FieldDescriptor f, boolean boxed) {
    return switch (f.getJavaType()) {
      case INT -> boxed ? "java.lang.Integer" : "int";
      case LONG -> boxed ? "java.lang.Long" : "long";
      case FLOAT -> boxed ? "java.lang.Float" : "float";
      case DOUBLE -> boxed ? "java.lang.Double" : "double";
      case BOOLEAN -> boxed ? "java.lang.Boolean" : "boolean";
      case STRING -> "java.lang.String";
      case BYTE_STRING -> "byte[]";
      case ENUM -> modelClass(f.getEnumType());
      case MESSAGE -> modelClass(f.getMessageType());
    };
  }

  /** A field with presence in the model: null when unset (proto3 optional, a member of a oneof). */
  static boolean nullable(FieldDescriptor f) {
    return !f.isRepeated() && f.getRealContainingOneof() != null || f.toProto().getProto3Optional();
  }

  String fieldType(FieldDescriptor f) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      return "java.util.Map<" + valueType(entry.findFieldByNumber(1), true) + ", "
          + valueType(entry.findFieldByNumber(2), true) + ">";
    }
    if (f.isRepeated()) {
      return "java.util.List<" + valueType(f, true) + ">";
    }
    return valueType(f, nullable(f));
  }

  /** One protobuf value ({@code v}) to its model value. */
  String toModel(FieldDescriptor f, String v) {
    return switch (f.getJavaType()) {
      case MESSAGE, ENUM -> valueType(f, false) + ".fromProto(" + v + ")";
      case BYTE_STRING -> v + ".toByteArray()";
      default -> v;
    };
  }

  /** One model value ({@code v}) to its protobuf value. */
  static String toProtoValue(FieldDescriptor f, String v) {
    return switch (f.getJavaType()) {
      case MESSAGE, ENUM -> v + ".toProto()";
      case BYTE_STRING -> "com.google.protobuf.ByteString.copyFrom(" + v + ")";
      default -> v;
    };
  }

  /** Whether a value needs converting (a List or Map of it cannot be taken as it is). */
  static boolean converted(FieldDescriptor f) {
    return switch (f.getJavaType()) {
      case MESSAGE, ENUM, BYTE_STRING -> true;
      default -> false;
    };
  }

  /** The expression reading field {@code f} of protobuf message {@code p} into the model. */
  String read(FieldDescriptor f, String p) {
    String a = Names.accessor(f);
    if (f.isMapField()) {
      FieldDescriptor value = f.getMessageType().findFieldByNumber(2);
      return converted(value)
          ? "mapOf(" + p + ".get" + a + "Map(), v$ -> " + toModel(value, "v$") + ")"
          : "java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(" + p + ".get" + a + "Map()))";
    }
    if (f.isRepeated()) {
      return converted(f)
          ? p + ".get" + a + "List().stream().map(v$ -> " + toModel(f, "v$") + ").toList()"
          : "java.util.List.copyOf(" + p + ".get" + a + "List())";
    }
    String get = toModel(f, p + ".get" + a + "()");
    return nullable(f) ? p + ".has" + a + "() ? " + get + " : null" : get;
  }

  /** The statements writing model value {@code v} of field {@code f} into builder {@code b$}. */
  String write(FieldDescriptor f, String v) {
    String a = Names.accessor(f);
    if (f.isMapField()) {
      FieldDescriptor value = f.getMessageType().findFieldByNumber(2);
      return converted(value)
          ? "    " + v + ".forEach((k$, e$) -> b$.put" + a + "(k$, " + toProtoValue(value, "e$") + "));\n"
          : "    b$.putAll" + a + "(" + v + ");\n";
    }
    if (f.isRepeated()) {
      return converted(f)
          ? "    for (" + valueType(f, true) + " e$ : " + v + ") {\n      b$.add" + a + "(" + toProtoValue(f, "e$")
              + ");\n    }\n"
          : "    b$.addAll" + a + "(" + v + ");\n";
    }
    String set = "b$.set" + a + "(" + toProtoValue(f, v) + ");\n";
    return nullable(f) ? "    if (" + v + " != null) {\n      " + set + "    }\n" : "    " + set;
  }
}
