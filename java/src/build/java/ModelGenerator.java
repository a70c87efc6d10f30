import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.ExtensionRegistry;
import com.google.protobuf.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes the Java worker's native model from the proto descriptors, in the build's
 * generate-sources phase (pom.xml runs it as a single-file program on protoc's descriptor set):
 * for every message carrying the {@code (codecbench.v1.dataset)} option, and every message and
 * enum its fields reach, a Java record (or enum) whose components are the fields in field-number
 * order (the wire order), each annotated with its proto JSON name, with typed converters to and
 * from protobuf-java's generated class; and {@code dev.codecbench.worker.model.Models}, the
 * files and the per-record bindings the dataset registry reads. Adding a record message with the
 * option needs no Java source edit.
 *
 * <p>Usage: {@code java -cp <protobuf-java> ModelGenerator.java DESCRIPTOR_SET OUT_DIR BINDINGS_CLASS}
 */
public final class ModelGenerator {
  private static final String MODEL_PACKAGE = "dev.codecbench.worker.model";
  private static final String OPTION = "codecbench.v1.dataset";
  private static final Set<String> RESERVED = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
      "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
      "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int", "interface", "long",
      "native", "new", "package", "private", "protected", "public", "return", "short", "static", "strictfp",
      "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try", "void", "volatile", "while",
      "true", "false", "null", "record", "var", "yield", "sealed", "permits",
      // A record component may not be named as one of Object's or the model's own methods.
      "hashCode", "toString", "getClass", "clone", "finalize", "notify", "notifyAll", "wait", "toProto");

  /** A dataset's record and what the generator needs of its option. */
  private record Record(Descriptor message, boolean bareList) {}

  private final List<FileDescriptor> files;
  /** The bindings class: dev.codecbench.worker.model.Models for the worker's own schemas. */
  private final String index;
  private final List<Record> records = new ArrayList<>();
  /** Every message and enum the records reach (map entries excluded: they are Maps). */
  private final Set<String> reached = new LinkedHashSet<>();

  private ModelGenerator(List<FileDescriptor> files, String index) {
    this.files = files;
    this.index = index;
    for (FileDescriptor f : files) {
      for (Descriptor m : f.getMessageTypes()) {
        findRecords(m);
      }
    }
    if (records.isEmpty()) {
      throw new IllegalStateException("no message carries the (" + OPTION + ") option");
    }
    Deque<GenericDescriptor> todo = new ArrayDeque<>();
    for (Record r : records) {
      // A bare-list record is modelled as a List of its one field's values: it needs no class.
      if (!r.bareList()) {
        todo.add(r.message());
        continue;
      }
      FieldDescriptor cells = r.message().getFields().get(0);
      if (cells.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        todo.add(cells.getMessageType());
      } else if (cells.getJavaType() == FieldDescriptor.JavaType.ENUM) {
        todo.add(cells.getEnumType());
      }
    }
    while (!todo.isEmpty()) {
      GenericDescriptor t = todo.pop();
      if (!reached.add(t.getFullName()) || !(t instanceof Descriptor m)) {
        continue;
      }
      for (FieldDescriptor f : m.getFields()) {
        // A map is a Map of its entry's key and value: the entry message gets no model of its own.
        FieldDescriptor value = f.isMapField() ? f.getMessageType().findFieldByNumber(2) : f;
        switch (value.getJavaType()) {
          case MESSAGE -> todo.push(value.getMessageType());
          case ENUM -> todo.push(value.getEnumType());
          default -> { }
        }
      }
    }
  }

  private void findRecords(Descriptor m) {
    for (Map.Entry<FieldDescriptor, Object> o : m.getOptions().getAllFields().entrySet()) {
      if (o.getKey().isExtension() && o.getKey().getFullName().equals(OPTION)) {
        Message options = (Message) o.getValue();
        boolean bare = Boolean.TRUE.equals(options.getField(options.getDescriptorForType().findFieldByName("bare_list")));
        if (bare && (m.getFields().size() != 1 || !m.getFields().get(0).isRepeated()
            || m.getFields().get(0).isMapField())) {
          throw new IllegalStateException(m.getFullName() + " is a bare_list dataset, so it must be one repeated field");
        }
        records.add(new Record(m, bare));
      }
    }
    m.getNestedTypes().forEach(this::findRecords);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java ModelGenerator.java DESCRIPTOR_SET OUT_DIR BINDINGS_CLASS");
      System.exit(2);
    }
    Path out = Path.of(args[1]);
    ModelGenerator g = new ModelGenerator(load(Files.readAllBytes(Path.of(args[0]))), args[2]);
    Map<Path, String> sources = g.sources();
    // The old output goes: a model of a message removed from proto/ must not stay.
    if (Files.exists(out)) {
      try (var old = Files.walk(out)) {
        for (Path p : old.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    for (Map.Entry<Path, String> s : sources.entrySet()) {
      Path p = out.resolve(s.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, s.getValue());
    }
    System.out.println("ModelGenerator: " + g.records.size() + " datasets, " + sources.size() + " files in " + out);
  }

  /**
   * The files of a descriptor set, built in order, with the {@code (dataset)} option readable: the
   * set is parsed once to find the extension, then again with it registered.
   */
  private static List<FileDescriptor> load(byte[] set) throws Exception {
    List<FileDescriptor> plain = build(FileDescriptorSet.parseFrom(set));
    ExtensionRegistry registry = ExtensionRegistry.newInstance();
    for (FileDescriptor f : plain) {
      for (FieldDescriptor x : f.getExtensions()) {
        if (x.getFullName().equals(OPTION)) {
          registry.add(x, DynamicMessage.getDefaultInstance(x.getMessageType()));
        }
      }
    }
    return build(FileDescriptorSet.parseFrom(set, registry));
  }

  private static List<FileDescriptor> build(FileDescriptorSet set) throws Exception {
    Map<String, FileDescriptor> built = new LinkedHashMap<>();
    // The options messages must be protobuf-java's own, so that the registry's extension (whose
    // containing type is MessageOptions) is found while MessageOptions is parsed.
    FileDescriptor descriptorProto = com.google.protobuf.DescriptorProtos.getDescriptor();
    built.put(descriptorProto.getName(), descriptorProto);
    for (FileDescriptorProto p : set.getFileList()) { // protoc writes a file after its imports
      if (built.containsKey(p.getName())) {
        continue;
      }
      FileDescriptor[] deps = p.getDependencyList().stream().map(built::get).toArray(FileDescriptor[]::new);
      built.put(p.getName(), FileDescriptor.buildFrom(p, deps));
    }
    return List.copyOf(built.values());
  }

  // -----------------------------------------------------------------------------------------------
  // Names

  /** protoc's UnderscoresToCamelCase (java/names): a letter after '_' or a digit is capitalised. */
  private static String protocCamel(String in, boolean capNext) {
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
  private static String component(FieldDescriptor f) {
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

  /** Field names protoc suffixes with '_' in accessors, as they would clash with inherited methods. */
  private static final Set<String> FORBIDDEN = Set.of("class", "defaultinstancefortype", "parserfortype",
      "serializedsize", "allfields", "descriptorfortype", "initializationerrorstring", "unknownfields", "cachedsize");

  /** The part of protobuf-java's accessor names after get/set/add/has: {@code getFooBarList}. */
  private static String accessor(FieldDescriptor f) {
    String name = protocCamel(f.getName(), true);
    return FORBIDDEN.contains(name.toLowerCase(java.util.Locale.ROOT)) ? name + "_" : name;
  }

  /** protobuf-java's outer class of a file (java_outer_classname, or the file name, +OuterClass on a clash). */
  private static String outerClass(FileDescriptor file) {
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

  /** The type's path below its file: Outer.Inner. */
  private static String nestedPath(GenericDescriptor t) {
    String pkg = t.getFile().getPackage();
    return pkg.isEmpty() ? t.getFullName() : t.getFullName().substring(pkg.length() + 1);
  }

  /** protobuf-java's generated class of a message or enum. */
  private static String protoClass(GenericDescriptor t) {
    FileDescriptor file = t.getFile();
    String pkg = file.getOptions().hasJavaPackage() ? file.getOptions().getJavaPackage() : file.getPackage();
    String prefix = pkg.isEmpty() ? "" : pkg + ".";
    return file.getOptions().getJavaMultipleFiles()
        ? prefix + nestedPath(t)
        : prefix + outerClass(file) + "." + nestedPath(t);
  }

  private static String modelPackage(GenericDescriptor t) {
    String pkg = t.getFile().getPackage();
    return pkg.isEmpty() ? MODEL_PACKAGE : MODEL_PACKAGE + "." + pkg;
  }

  /** The model class of a message or enum. */
  private static String modelClass(GenericDescriptor t) {
    return modelPackage(t) + "." + nestedPath(t);
  }

  // -----------------------------------------------------------------------------------------------
  // Types and conversions

  /** The model's Java type of one value of the field (a list's element, a map's value). */
  private static String valueType(FieldDescriptor f, boolean boxed) {
    return switch (f.getJavaType()) {
      case INT -> boxed ? "Integer" : "int";
      case LONG -> boxed ? "Long" : "long";
      case FLOAT -> boxed ? "Float" : "float";
      case DOUBLE -> boxed ? "Double" : "double";
      case BOOLEAN -> boxed ? "Boolean" : "boolean";
      case STRING -> "String";
      case BYTE_STRING -> "byte[]";
      case ENUM -> modelClass(f.getEnumType());
      case MESSAGE -> modelClass(f.getMessageType());
    };
  }

  /** A field with presence in the model: null when unset (proto3 optional, a member of a oneof). */
  private static boolean nullable(FieldDescriptor f) {
    return !f.isRepeated() && f.getRealContainingOneof() != null || f.toProto().getProto3Optional();
  }

  private static String fieldType(FieldDescriptor f) {
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
  private static String toModel(FieldDescriptor f, String v) {
    return switch (f.getJavaType()) {
      case MESSAGE, ENUM -> valueType(f, false) + ".fromProto(" + v + ")";
      case BYTE_STRING -> v + ".toByteArray()";
      default -> v;
    };
  }

  /** One model value ({@code v}) to its protobuf value. */
  private static String toProtoValue(FieldDescriptor f, String v) {
    return switch (f.getJavaType()) {
      case MESSAGE, ENUM -> v + ".toProto()";
      case BYTE_STRING -> "com.google.protobuf.ByteString.copyFrom(" + v + ")";
      default -> v;
    };
  }

  /** Whether a value needs converting (a List or Map of it cannot be taken as it is). */
  private static boolean converted(FieldDescriptor f) {
    return switch (f.getJavaType()) {
      case MESSAGE, ENUM, BYTE_STRING -> true;
      default -> false;
    };
  }

  /** The expression reading field {@code f} of protobuf message {@code p} into the model. */
  private static String read(FieldDescriptor f, String p) {
    String a = accessor(f);
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

  /** The statements writing model value {@code v} of field {@code f} into builder {@code b}. */
  private static String write(FieldDescriptor f, String v) {
    String a = accessor(f);
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

  // -----------------------------------------------------------------------------------------------
  // Sources

  private Map<Path, String> sources() {
    Map<Path, String> out = new LinkedHashMap<>();
    for (FileDescriptor file : files) {
      List<GenericDescriptor> tops = new ArrayList<>(file.getMessageTypes());
      tops.addAll(file.getEnumTypes());
      for (GenericDescriptor t : tops) {
        String body = type(t, "");
        if (body != null) {
          String pkg = modelPackage(t);
          String header = "// Generated by java/src/build/java/ModelGenerator.java from " + file.getName()
              + ". Do not edit.\npackage " + pkg + ";\n\n";
          out.put(Path.of(pkg.replace('.', '/'), t.getName() + ".java"), header + body);
        }
      }
    }
    out.put(Path.of(index.replace('.', '/') + ".java"), models());
    return out;
  }

  /** A reached type's source, a holder for reached types nested in an unreached one, or null. */
  private String type(GenericDescriptor t, String indent) {
    if (t instanceof EnumDescriptor e) {
      return reached.contains(e.getFullName()) ? enumType(e, indent) : null;
    }
    Descriptor m = (Descriptor) t;
    StringBuilder nested = new StringBuilder();
    List<GenericDescriptor> inner = new ArrayList<>(m.getNestedTypes());
    inner.addAll(m.getEnumTypes());
    for (GenericDescriptor n : inner) {
      String s = type(n, indent + "  ");
      if (s != null) {
        nested.append('\n').append(s);
      }
    }
    if (reached.contains(m.getFullName())) {
      return recordType(m, indent, nested.toString());
    }
    if (nested.isEmpty()) {
      return null;
    }
    return indent + "public static final class " + m.getName() + " {\n" + indent + "  private " + m.getName()
        + "() {}\n" + nested + indent + "}\n";
  }

  private String enumType(EnumDescriptor e, String indent) {
    String proto = protoClass(e);
    StringBuilder b = new StringBuilder();
    b.append(indent).append("/** ").append(e.getFullName()).append(", written by value name. */\n");
    b.append(indent).append("public enum ").append(e.getName()).append(" {\n");
    b.append(e.getValues().stream().map(EnumValueDescriptor::getName).distinct()
        .map(v -> indent + "  " + v).collect(Collectors.joining(",\n"))).append(";\n\n");
    b.append(indent).append("  public static ").append(e.getName()).append(" fromProto(").append(proto)
        .append(" p) {\n").append(indent).append("    return valueOf(p.name());\n").append(indent).append("  }\n\n");
    b.append(indent).append("  public ").append(proto).append(" toProto() {\n").append(indent)
        .append("    return ").append(proto).append(".valueOf(name());\n").append(indent).append("  }\n");
    return b.append(indent).append("}\n").toString();
  }

  private String recordType(Descriptor m, String indent, String nested) {
    List<FieldDescriptor> fields = new ArrayList<>(m.getFields());
    fields.sort((x, y) -> Integer.compare(x.getNumber(), y.getNumber()));
    String proto = protoClass(m);
    StringBuilder b = new StringBuilder();
    b.append(indent).append("/** ").append(m.getFullName()).append(": components in field-number order (the wire order). */\n");
    b.append(indent).append("@com.fasterxml.jackson.annotation.JsonPropertyOrder({")
        .append(fields.stream().map(f -> '"' + f.getJsonName() + '"').collect(Collectors.joining(", ")))
        .append("})\n");
    b.append(indent).append("public record ").append(m.getName()).append("(");
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      b.append(i == 0 ? "\n" : ",\n").append(indent).append("    ");
      // A field with presence is left out when unset and reads absent as null; every other one is
      // always written, so the Jackson codecs require it and refuse an explicit null.
      if (nullable(f)) {
        b.append("@com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) ")
            .append("@com.fasterxml.jackson.annotation.JsonProperty(\"").append(f.getJsonName()).append("\") ");
      } else {
        b.append("@com.fasterxml.jackson.annotation.JsonProperty(value = \"").append(f.getJsonName())
            .append("\", required = true) ")
            .append("@com.fasterxml.jackson.annotation.JsonSetter(nulls = com.fasterxml.jackson.annotation.Nulls.FAIL) ");
      }
      b.append(fieldType(f)).append(' ').append(component(f));
    }
    b.append(") {\n");
    b.append(nested);
    // fromProto: one expression per component, in order.
    b.append('\n').append(indent).append("  public static ").append(m.getName()).append(" fromProto(").append(proto)
        .append(" p$) {\n").append(indent).append("    return new ").append(m.getName()).append("(");
    for (int i = 0; i < fields.size(); i++) {
      b.append(i == 0 ? "\n" : ",\n").append(indent).append("        ").append(read(fields.get(i), "p$"));
    }
    b.append(");\n").append(indent).append("  }\n\n");
    b.append(indent).append("  public ").append(proto).append(" toProto() {\n").append(indent).append("    ")
        .append(proto).append(".Builder b$ = ").append(proto).append(".newBuilder();\n");
    for (FieldDescriptor f : fields) {
      b.append(write(f, component(f)).indent(indent.length()).stripTrailing()).append('\n');
    }
    b.append(indent).append("    return b$.build();\n").append(indent).append("  }\n");
    if (fields.stream().anyMatch(f -> f.isMapField() && converted(f.getMessageType().findFieldByNumber(2)))) {
      b.append('\n').append(indent).append("""
            private static <K, P, V> java.util.Map<K, V> mapOf(java.util.Map<K, P> in, java.util.function.Function<P, V> f) {
              java.util.Map<K, V> out = new java.util.LinkedHashMap<>();
              in.forEach((k, v) -> out.put(k, f.apply(v)));
              return java.util.Collections.unmodifiableMap(out);
            }
          """.indent(indent.length()).stripTrailing()).append('\n');
    }
    return b.append(indent).append("}\n").toString();
  }

  /**
   * The list message carrying a record's records (proto/README.md): the message of the record's
   * file that is {@code repeated <Record> records = 1;}.
   */
  private static Descriptor listMessage(Descriptor record) {
    List<Descriptor> found = new ArrayList<>();
    Deque<Descriptor> todo = new ArrayDeque<>(record.getFile().getMessageTypes());
    while (!todo.isEmpty()) {
      Descriptor m = todo.pop();
      todo.addAll(m.getNestedTypes());
      List<FieldDescriptor> fs = m.getFields();
      if (fs.size() == 1 && fs.get(0).getName().equals("records") && fs.get(0).getNumber() == 1
          && fs.get(0).isRepeated() && !fs.get(0).isMapField()
          && fs.get(0).getJavaType() == FieldDescriptor.JavaType.MESSAGE && fs.get(0).getMessageType() == record) {
        found.add(m);
      }
    }
    if (found.size() != 1) {
      throw new IllegalStateException("dataset record " + record.getFullName() + " needs exactly one list message "
          + "in " + record.getFile().getName() + " (`repeated " + record.getName() + " records = 1;`); found "
          + found.size());
    }
    return found.get(0);
  }

  private String models() {
    StringBuilder b = new StringBuilder();
    b.append("// Generated by java/src/build/java/ModelGenerator.java. Do not edit.\n");
    String simpleName = index.substring(index.lastIndexOf('.') + 1);
    b.append("package ").append(index, 0, index.lastIndexOf('.')).append(";\n\n");
    b.append("import com.fasterxml.jackson.databind.type.TypeFactory;\n");
    b.append("import com.google.protobuf.Descriptors.FileDescriptor;\n");
    b.append("import dev.codecbench.worker.dataset.Binding;\n");
    b.append("import java.util.List;\n\n");
    b.append("/** The proto files holding dataset records, and each record's binding to its generated model. */\n");
    b.append("public final class ").append(simpleName).append(" {\n");
    b.append("  private static final TypeFactory TYPES = TypeFactory.defaultInstance();\n\n");
    Set<FileDescriptor> recordFiles = new LinkedHashSet<>();
    records.forEach(r -> recordFiles.add(r.message().getFile()));
    b.append("  public static final List<FileDescriptor> FILES = List.of(")
        .append(recordFiles.stream().map(ModelGenerator::fileDescriptor).collect(Collectors.joining(", ")))
        .append(");\n\n");
    b.append("  public static final List<Binding<?, ?, ?>> BINDINGS = List.of(");
    for (int i = 0; i < records.size(); i++) {
      b.append(i == 0 ? "\n" : ",\n").append(binding(records.get(i)));
    }
    b.append(");\n\n  private ").append(simpleName).append("() {}\n}\n");
    return b.toString();
  }

  /** An expression for a file's descriptor (with java_multiple_files, through one of its messages). */
  private static String fileDescriptor(FileDescriptor f) {
    if (f.getOptions().getJavaMultipleFiles()) {
      return protoClass(f.getMessageTypes().get(0)) + ".getDescriptor().getFile()";
    }
    String pkg = f.getOptions().hasJavaPackage() ? f.getOptions().getJavaPackage() : f.getPackage();
    return (pkg.isEmpty() ? "" : pkg + ".") + outerClass(f) + ".getDescriptor()";
  }

  private String binding(Record r) {
    Descriptor m = r.message();
    String proto = protoClass(m);
    Descriptor list = listMessage(m);
    String listClass = protoClass(list);
    String items = accessor(list.getFields().get(0));
    String type;
    String toModel;
    String toProto;
    if (r.bareList()) {
      FieldDescriptor cells = m.getFields().get(0);
      String element = valueType(cells, true);
      type = "TYPES.constructCollectionType(List.class, " + element + ".class)";
      toModel = "(" + proto + " p) -> " + read(cells, "p");
      toProto = converted(cells)
          ? "(List<" + element + "> l) -> { " + proto + ".Builder b = " + proto + ".newBuilder(); for (" + element + " e : l) { b.add"
              + accessor(cells) + "(" + toProtoValue(cells, "e") + "); } return b.build(); }"
          : "(List<" + element + "> l) -> " + proto + ".newBuilder().addAll" + accessor(cells) + "(l).build()";
    } else {
      String model = modelClass(m);
      type = "TYPES.constructType(" + model + ".class)";
      toModel = "(" + proto + " p) -> " + model + ".fromProto(p)";
      toProto = "(" + model + " x) -> x.toProto()";
    }
    return "      // " + m.getFullName() + (r.bareList() ? " (a bare list)" : "") + "\n"
        + "      new Binding<>(" + proto + ".getDescriptor(), " + type + ",\n"
        + "          " + listClass + ".parser(), " + listClass + "::get" + items + "List,\n"
        + "          (List<" + proto + "> l) -> " + listClass + ".newBuilder().addAll" + items + "(l).build(),\n"
        + "          " + toModel + ",\n"
        + "          " + toProto + ")";
  }
}
