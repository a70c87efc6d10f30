package dev.codecbench.worker.userdata;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.codecbench.worker.modelgen.DescriptorSets;
import dev.codecbench.worker.modelgen.Names;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A user's descriptor set made ready for protoc and the model generator: the record message
 * found, a list message added ({@code repeated <record> records = 1;} in a file of its own: the
 * canonical blob's and the protobuf payload's framing, proto/README.md), and the files Java
 * cannot name given a package. Nothing here changes a message, a field or a name on the wire.
 */
final class SchemaSet {
  static final String LIST_FILE = "codecbench/userdata/record_list.proto";
  static final String LIST_MESSAGE = "RecordList";
  private static final String LIST_PACKAGE = "codecbench.userdata";
  private static final String LIST_JAVA_PACKAGE = "dev.codecbench.user.list";
  /**
   * The Java package of a file with neither package nor java_package: Java cannot import a class
   * of the default package, so any Java application of such a file gives it one.
   */
  static final String NO_PACKAGE_JAVA = "dev.codecbench.user.nopackage";

  /** The set as protoc and the generator read it (java_package added, list file appended). */
  final FileDescriptorSet prepared;
  final List<FileDescriptor> files;
  final Descriptor record;
  final Descriptor list;
  /** The files protoc writes Java for: all but those whose classes protobuf-java has (google/protobuf/*). */
  final List<String> toGenerate;

  private SchemaSet(FileDescriptorSet prepared, List<FileDescriptor> files, Descriptor record, Descriptor list,
      List<String> toGenerate) {
    this.prepared = prepared;
    this.files = files;
    this.record = record;
    this.list = list;
    this.toGenerate = toGenerate;
  }

  /** {@code where} names the set in messages (the manifest and the file). */
  static SchemaSet of(byte[] bytes, String message, String where) throws UserDataException {
    FileDescriptorSet set;
    try {
      set = FileDescriptorSet.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new UserDataException(where + " is not a FileDescriptorSet: " + e.getMessage());
    }
    if (set.getFileCount() == 0) {
      throw new UserDataException(where + " holds no file");
    }
    FileDescriptorSet.Builder prepared = FileDescriptorSet.newBuilder();
    for (FileDescriptorProto f : set.getFileList()) {
      if (f.getName().equals(LIST_FILE)) {
        throw new UserDataException(where + ": a file is named " + LIST_FILE + ", which the worker's own list file is");
      }
      boolean javaCannotName = f.getPackage().isEmpty() && !f.getOptions().hasJavaPackage();
      prepared.addFile(javaCannotName
          ? f.toBuilder().setOptions(f.getOptions().toBuilder().setJavaPackage(NO_PACKAGE_JAVA)).build() : f);
    }
    Descriptor record = find(build(prepared.build(), where), message, where);
    prepared.addFile(listFile(record));
    List<FileDescriptor> files = build(prepared.build(), where);
    record = find(files, message, where);
    Descriptor list = files.get(files.size() - 1).findMessageTypeByName(LIST_MESSAGE);
    String loop = selfContaining(record);
    if (loop != null) {
      throw new UserDataException(where + ": " + loop);
    }
    List<String> generate = new ArrayList<>();
    for (FileDescriptor f : files) {
      if (!providedByProtobufJava(f)) {
        generate.add(f.getName());
      }
    }
    return new SchemaSet(prepared.build(), files, record, list, List.copyOf(generate));
  }

  private static List<FileDescriptor> build(FileDescriptorSet set, String where) throws UserDataException {
    try {
      return DescriptorSets.build(set);
    } catch (DescriptorSets.Invalid e) {
      throw new UserDataException(where + " does not build: " + e.getMessage());
    }
  }

  /** The record message, or a message listing the ones the set holds. */
  private static Descriptor find(List<FileDescriptor> files, String message, String where) throws UserDataException {
    TreeSet<String> all = new TreeSet<>();
    Deque<Descriptor> todo = new ArrayDeque<>();
    for (FileDescriptor f : files) {
      if (!f.getName().startsWith("google/protobuf/") && !f.getName().equals(LIST_FILE)) {
        todo.addAll(f.getMessageTypes());
      }
    }
    while (!todo.isEmpty()) {
      Descriptor m = todo.pop();
      if (m.getFullName().equals(message)) {
        return m;
      }
      if (!m.getOptions().getMapEntry()) {
        all.add(m.getFullName());
      }
      todo.addAll(m.getNestedTypes());
    }
    List<String> shown = all.stream().limit(30).toList();
    throw new UserDataException("message " + message + " is not in " + where + " (its messages: "
        + (all.isEmpty() ? "none" : String.join(", ", shown) + (all.size() > shown.size() ? ", ..." : "")) + ")");
  }

  /** {@code message RecordList { repeated <record> records = 1; }}, importing the record's file. */
  private static FileDescriptorProto listFile(Descriptor record) {
    return FileDescriptorProto.newBuilder()
        .setName(LIST_FILE)
        .setPackage(LIST_PACKAGE)
        .setSyntax("proto3")
        .addDependency(record.getFile().getName())
        .setOptions(FileOptions.newBuilder().setJavaPackage(LIST_JAVA_PACKAGE).setJavaOuterClassname("UserRecordList"))
        .addMessageType(DescriptorProto.newBuilder().setName(LIST_MESSAGE)
            .addField(FieldDescriptorProto.newBuilder().setName("records").setJsonName("records").setNumber(1)
                .setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).setType(FieldDescriptorProto.Type.TYPE_MESSAGE)
                .setTypeName("." + record.getFullName())))
        .build();
  }

  /**
   * Why the model cannot hold {@code record}: a message that contains itself through singular
   * message fields (the model holds an unset one as its default record, so it would never end);
   * null when it can. Through a repeated, map, optional or oneof field it may.
   */
  private static String selfContaining(Descriptor record) {
    return walk(record, new ArrayDeque<>(), new HashSet<>());
  }

  /** {@code done}: messages already walked without finding a loop. */
  private static String walk(Descriptor m, Deque<FieldDescriptor> path, Set<String> done) {
    if (done.contains(m.getFullName())) {
      return null;
    }
    for (FieldDescriptor f : m.getFields()) {
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE || f.isRepeated() || f.toProto().getProto3Optional()
          || f.getRealContainingOneof() != null) {
        continue;
      }
      Descriptor to = f.getMessageType();
      boolean loops = to.getFullName().equals(m.getFullName())
          || path.stream().anyMatch(p -> p.getContainingType().getFullName().equals(to.getFullName()));
      path.addLast(f);
      if (loops) {
        return "message " + to.getFullName() + " contains itself through "
            + String.join(" -> ", path.stream().map(FieldDescriptor::getFullName).toList())
            + "; the Java model holds an unset message as its default record, so it cannot hold this";
      }
      String deeper = walk(to, path, done);
      if (deeper != null) {
        return deeper;
      }
      path.removeLast();
    }
    done.add(m.getFullName());
    return null;
  }

  /** A well-known file whose classes protobuf-java already has (the worker uses those). */
  private static boolean providedByProtobufJava(FileDescriptor f) {
    if (!f.getName().startsWith("google/protobuf/")) {
      return false;
    }
    try {
      Class.forName(Names.fileClass(f), false, SchemaSet.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
