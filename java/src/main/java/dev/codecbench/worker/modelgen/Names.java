package dev.codecbench.worker.modelgen;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import java.util.Locale;
import java.util.Set;

/**
 * The names protoc's Java generator gives a file's classes and a field's accessors (the model
 * calls them), and a field's record component. Only protobuf-java and the JDK are used here: the
 * build compiles this package on its own to run it (pom.xml, generate-sources).
 */
public final class Names {
  private static final Set<String> RESERVED = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
      "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
      "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int", "interface", "long",
      "native", "new", "package", "private", "protected", "public", "return", "short", "static", "strictfp",
      "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try", "void", "volatile", "while",
      "true", "false", "null", "record", "var", "yield", "sealed", "permits",
      // A record component may not be named as one of Object's or the model's own methods.
      "hashCode", "toString", "getClass", "clone", "finalize", "notify", "notifyAll", "wait", "toProto");

  /** Field names protoc suffixes with '_' in accessors, as they would clash with inherited methods. */
  private static final Set<String> FORBIDDEN = Set.of("class", "defaultinstancefortype", "parserfortype",
      "serializedsize", "allfields", "descriptorfortype", "initializationerrorstring", "unknownfields", "cachedsize");

  private Names() {}

  /** protoc's UnderscoresToCamelCase (java/names): a letter after '_' or a digit is capitalised. */
  static String protocCamel(String in, boolean capNext) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < in.length(); i++) {
      char c = in.charAt(i);
      if (c >= 'a' && c <= 'z') {
        b.append(capNext ? Character.toUpperCase(c) : c);
        capNext = false;
      } else if (c >= 'A' && c <= 'Z') {
        b.append(i == 0 && !capNext ? Character.toLowerCase(c) : c);
        capNext = false;
      } else if (c >= '0' && c <= '9') {
        b.append(c);
        capNext = true;
      } else {
        capNext = true;
      }
    }
    return b.toString();
  }

  /** A field's record component: snake_case to lowerCamelCase (as ProtoRecords checks it). */
  static String component(FieldDescriptor f) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char c : f.getName().toCharArray()) {
      if (c == '_') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(c) : c);
        up = false;
      }
    }
    String name = b.toString();
    return RESERVED.contains(name) ? name + "_" : name;
  }

  /** The part of protobuf-java's accessor names after get/set/add/has: {@code getFooBarList}. */
  static String accessor(FieldDescriptor f) {
    String name = protocCamel(f.getName(), true);
    return FORBIDDEN.contains(name.toLowerCase(Locale.ROOT)) ? name + "_" : name;
  }

  /** protobuf-java's outer class of a file (java_outer_classname, or the file name, +OuterClass on a clash). */
  static String outerClass(FileDescriptor file) {
    if (file.getOptions().hasJavaOuterClassname()) {
      return file.getOptions().getJavaOuterClassname();
    }
    String base = file.getName().substring(file.getName().lastIndexOf('/') + 1).replaceFirst("\\.proto$", "");
    String name = protocCamel(base, true);
    boolean clash = file.getServices().stream().anyMatch(s -> s.getName().equals(name))
        || file.getEnumTypes().stream().anyMatch(e -> e.getName().equals(name))
        || file.getMessageTypes().stream().anyMatch(m -> clashes(m, name));
    return clash ? name + "OuterClass" : name;
  }

  private static boolean clashes(Descriptor m, String name) {
    return m.getName().equals(name) || m.getEnumTypes().stream().anyMatch(e -> e.getName().equals(name))
        || m.getNestedTypes().stream().anyMatch(n -> clashes(n, name));
  }

  /** The Java package of a file's generated classes: java_package, else the proto package. */
  public static String javaPackage(FileDescriptor file) {
    return file.getOptions().hasJavaPackage() ? file.getOptions().getJavaPackage() : file.getPackage();
  }

  /** The fully qualified outer class of a file, whose getDescriptor() is the file's descriptor. */
  public static String fileClass(FileDescriptor file) {
    String pkg = javaPackage(file);
    return (pkg.isEmpty() ? "" : pkg + ".") + outerClass(file);
  }

  /** The type's path below its file: Outer.Inner. */
  static String nestedPath(GenericDescriptor t) {
    String pkg = t.getFile().getPackage();
    return pkg.isEmpty() ? t.getFullName() : t.getFullName().substring(pkg.length() + 1);
  }

  /** protobuf-java's generated class of a message or enum. */
  public static String protoClass(GenericDescriptor t) {
    FileDescriptor file = t.getFile();
    String pkg = javaPackage(file);
    String prefix = pkg.isEmpty() ? "" : pkg + ".";
    return file.getOptions().getJavaMultipleFiles()
        ? prefix + nestedPath(t)
        : prefix + outerClass(file) + "." + nestedPath(t);
  }
}
