package dev.codecbench.worker.modelgen;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import com.google.protobuf.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Writes the Java worker's native model from proto descriptors: for every dataset record, and
 * every message and enum its fields reach, a Java record (or enum) whose components are the
 * fields in field-number order (the wire order), each annotated with its wire name (json_name, or
 * the .proto name), with typed converters to and from protobuf-java's generated class; and a
 * bindings class ({@code FILES}, {@code BINDINGS}) the dataset registry reads.
 *
 * <p>The build runs it on the descriptors of proto/ (the built-ins, found by their
 * {@code (codecbench.v1.dataset)} option; {@link #main}); the worker runs it at start-up on a
 * user's descriptor set (dev.codecbench.worker.userdata).
 *
 * <p>Usage: {@code java -cp <protobuf-java>:<these classes> dev.codecbench.worker.modelgen.ModelGenerator
 * DESCRIPTOR_SET OUT_DIR BINDINGS_CLASS}
 */
public final class ModelGenerator {
  /** The model package of the built-ins. */
  public static final String BUILT_IN_ROOT = "dev.codecbench.worker.model";

  /**
   * A dataset's record: its message, whether it is a bare list on the wire, and the list message
   * ({@code repeated <record> records = 1;}) that carries records in protobuf.
   */
  public record Record(Descriptor message, boolean bareList, Descriptor list, Option option) {
    /** A user's record: its manifest gives its options. */
    public Record(Descriptor message, boolean bareList, Descriptor list) {
      this(message, bareList, list, null);
    }
  }

  /** A built-in record's {@code (codecbench.v1.dataset)} option, written into its binding. */
  public record Option(String id, String description, List<String> lazyFields, boolean bareList) {}

  private final List<FileDescriptor> files;
  private final List<Record> records;
  private final ModelTypes types;
  /** The bindings class, e.g. dev.codecbench.worker.model.Models. */
  private final String index;
  private final Function<FieldDescriptor, String> wireName;
  /** Every message and enum the records reach (map entries excluded: they are Maps). */
  private final Set<String> reached = new LinkedHashSet<>();

  /**
   * @param files every file whose types may be reached (in any order)
   * @param modelRoot the package below which model classes go, one package per proto package
   * @param protoNames wire names are the .proto field names rather than their json_name
   */
  public ModelGenerator(List<FileDescriptor> files, List<Record> records, String modelRoot, String index,
      boolean protoNames) {
    if (records.isEmpty()) {
      throw new IllegalStateException("no message carries the (" + DescriptorSets.OPTION + ") option");
    }
    this.files = files;
    this.records = records;
    this.types = new ModelTypes(modelRoot);
    this.index = index;
    this.wireName = protoNames ? FieldDescriptor::getName : FieldDescriptor::getJsonName;
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

  /** Every message of {@code files} carrying the {@code (dataset)} option, with its list message. */
  public static List<Record> optionRecords(List<FileDescriptor> files) {
    List<Record> out = new ArrayList<>();
    for (FileDescriptor f : files) {
      for (Descriptor m : f.getMessageTypes()) {
        findRecords(m, out);
      }
    }
    return out;
  }

  private static void findRecords(Descriptor m, List<Record> out) {
    for (Map.Entry<FieldDescriptor, Object> o : m.getOptions().getAllFields().entrySet()) {
      if (o.getKey().isExtension() && o.getKey().getFullName().equals(DescriptorSets.OPTION)) {
        Message options = (Message) o.getValue();
        Descriptor od = options.getDescriptorForType();
        boolean bare = Boolean.TRUE.equals(options.getField(od.findFieldByName("bare_list")));
        @SuppressWarnings("unchecked")
        List<String> lazy = List.copyOf((List<String>) options.getField(od.findFieldByName("lazy_fields")));
        Option option = new Option((String) options.getField(od.findFieldByName("id")),
            (String) options.getField(od.findFieldByName("description")), lazy, bare);
        if (bare && (m.getFields().size() != 1 || !m.getFields().get(0).isRepeated()
            || m.getFields().get(0).isMapField())) {
          throw new IllegalStateException(m.getFullName() + " is a bare_list dataset, so it must be one repeated field");
        }
        out.add(new Record(m, bare, Bindings.listMessage(m), option));
      }
    }
    m.getNestedTypes().forEach(n -> findRecords(n, out));
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ModelGenerator DESCRIPTOR_SET OUT_DIR BINDINGS_CLASS");
      System.exit(2);
    }
    Path out = Path.of(args[1]);
    List<FileDescriptor> files = DescriptorSets.load(Files.readAllBytes(Path.of(args[0])));
    ModelGenerator g = new ModelGenerator(files, optionRecords(files), BUILT_IN_ROOT, args[2], false);
    Map<Path, String> sources = g.sources();
    // The old output goes: a model of a message removed from proto/ must not stay.
    if (Files.exists(out)) {
      try (var old = Files.walk(out)) {
        for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    write(sources, out);
    System.out.println("ModelGenerator: " + g.records.size() + " datasets, " + sources.size() + " files in " + out);
  }

  /** Writes {@code sources} (paths relative to {@code out}). */
  public static void write(Map<Path, String> sources, Path out) throws java.io.IOException {
    for (Map.Entry<Path, String> s : sources.entrySet()) {
      Path p = out.resolve(s.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, s.getValue());
    }
  }

  /** Every source file, by its path below the source root. */
  public Map<Path, String> sources() {
    Map<Path, String> out = new LinkedHashMap<>();
    for (FileDescriptor file : files) {
      List<GenericDescriptor> tops = new ArrayList<>(file.getMessageTypes());
      tops.addAll(file.getEnumTypes());
      for (GenericDescriptor t : tops) {
        String body = type(t, "");
        if (body != null) {
          String pkg = types.modelPackage(t);
          String header = "// Generated by dev.codecbench.worker.modelgen.ModelGenerator from " + file.getName()
              + ". Do not edit.\npackage " + pkg + ";\n\n";
          out.put(Path.of(pkg.replace('.', '/'), t.getName() + ".java"), header + body);
        }
      }
    }
    out.put(Path.of(index.replace('.', '/') + ".java"), new Bindings(types, records, index).source());
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
    String proto = Names.protoClass(e);
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
    String proto = Names.protoClass(m);
    StringBuilder b = new StringBuilder();
    b.append(indent).append("/** ").append(m.getFullName()).append(": components in field-number order (the wire order). */\n");
    b.append(indent).append("@com.fasterxml.jackson.annotation.JsonPropertyOrder({")
        .append(fields.stream().map(f -> '"' + wireName.apply(f) + '"').collect(Collectors.joining(", ")))
        .append("})\n");
    b.append(Payloads.classAnnotations(m, indent));
    b.append(indent).append("public record ").append(m.getName()).append("(");
    for (int i = 0; i < fields.size(); i++) {
      FieldDescriptor f = fields.get(i);
      b.append(i == 0 ? "\n" : ",\n").append(indent).append("    ");
      // A field with presence is left out when unset and reads absent as null; every other one is
      // always written, so the Jackson codecs require it and refuse an explicit null.
      if (ModelTypes.nullable(f)) {
        b.append("@com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) ")
            .append("@com.fasterxml.jackson.annotation.JsonProperty(\"").append(wireName.apply(f)).append("\") ");
      } else {
        b.append("@com.fasterxml.jackson.annotation.JsonProperty(value = \"").append(wireName.apply(f))
            .append("\", required = true) ")
            .append("@com.fasterxml.jackson.annotation.JsonSetter(nulls = com.fasterxml.jackson.annotation.Nulls.FAIL")
            // A map's value is never null either (protobuf has no null).
            .append(f.isMapField() ? ", contentNulls = com.fasterxml.jackson.annotation.Nulls.FAIL) " : ") ");
      }
      b.append(Payloads.annotations(f)).append(types.fieldType(f)).append(' ').append(Names.component(f));
    }
    b.append(") {\n");
    b.append(Payloads.compactConstructor(m, indent));
    b.append(nested);
    // fromProto: one expression per component, in order.
    b.append('\n').append(indent).append("  public static ").append(m.getName()).append(" fromProto(").append(proto)
        .append(" p$) {\n").append(indent).append("    return new ").append(m.getName()).append("(");
    for (int i = 0; i < fields.size(); i++) {
      b.append(i == 0 ? "\n" : ",\n").append(indent).append("        ").append(types.read(fields.get(i), "p$"));
    }
    b.append(");\n").append(indent).append("  }\n\n");
    b.append(indent).append("  public ").append(proto).append(" toProto() {\n").append(indent).append("    ")
        .append(proto).append(".Builder b$ = ").append(proto).append(".newBuilder();\n");
    for (FieldDescriptor f : fields) {
      b.append(types.write(f, Names.component(f)).indent(indent.length()).stripTrailing()).append('\n');
    }
    b.append(indent).append("    return b$.build();\n").append(indent).append("  }\n");
    if (fields.stream().anyMatch(f -> f.isMapField() && ModelTypes.converted(f.getMessageType().findFieldByNumber(2)))) {
      b.append('\n').append(indent).append("""
            private static <K, P, V> java.util.Map<K, V> mapOf(java.util.Map<K, P> in, java.util.function.Function<P, V> f) {
              java.util.Map<K, V> out = new java.util.LinkedHashMap<>();
              in.forEach((k, v) -> out.put(k, f.apply(v)));
              return java.util.Collections.unmodifiableMap(out);
            }
          """.indent(indent.length()).stripTrailing()).append('\n');
    }
    b.append(Payloads.timestampJson(m, indent));
    return b.append(indent).append("}\n").toString();
  }
}
