package dev.codecbench.worker.modelgen;

import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.ExtensionRegistry;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The files of a FileDescriptorSet as protobuf-java descriptors, built in dependency order. */
public final class DescriptorSets {
  /** The option that makes a message a dataset's record (dataset_options.proto). */
  static final String OPTION = "codecbench.v1.dataset";

  private DescriptorSets() {}

  /** A set that does not build: a missing import, a type that is not defined, ... */
  public static final class Invalid extends Exception {
    Invalid(String message) {
      super(message);
    }
  }

  /**
   * The files of a descriptor set, with the {@code (dataset)} option readable: the set is parsed
   * once to find the extension, then again with it registered.
   */
  public static List<FileDescriptor> load(byte[] set) throws Invalid {
    try {
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
    } catch (InvalidProtocolBufferException e) {
      throw new Invalid("not a FileDescriptorSet: " + e.getMessage());
    }
  }

  /**
   * Every file of the set, each after its imports (whatever order the set lists them in). The
   * options messages are protobuf-java's own, so that a registered extension (whose containing
   * type is MessageOptions) is found while MessageOptions is parsed.
   */
  public static List<FileDescriptor> build(FileDescriptorSet set) throws Invalid {
    Map<String, FileDescriptorProto> byName = new LinkedHashMap<>();
    for (FileDescriptorProto p : set.getFileList()) {
      byName.putIfAbsent(p.getName(), p);
    }
    Map<String, FileDescriptor> built = new LinkedHashMap<>();
    FileDescriptor descriptorProto = DescriptorProtos.getDescriptor();
    built.put(descriptorProto.getName(), descriptorProto);
    for (String name : byName.keySet()) {
      buildOne(name, byName, built, new HashSet<>());
    }
    List<FileDescriptor> out = new ArrayList<>();
    for (String name : byName.keySet()) {
      out.add(built.get(name));
    }
    return out;
  }

  private static FileDescriptor buildOne(String name, Map<String, FileDescriptorProto> byName,
      Map<String, FileDescriptor> built, Set<String> inProgress) throws Invalid {
    FileDescriptor done = built.get(name);
    if (done != null) {
      return done;
    }
    FileDescriptorProto p = byName.get(name);
    if (p == null) {
      throw new Invalid("it imports " + name + ", which the set does not hold (protoc --include_imports writes it)");
    }
    if (!inProgress.add(name)) {
      throw new Invalid(name + " imports itself (through its imports)");
    }
    List<FileDescriptor> deps = new ArrayList<>();
    for (String dep : p.getDependencyList()) {
      deps.add(buildOne(dep, byName, built, inProgress));
    }
    try {
      FileDescriptor f = FileDescriptor.buildFrom(p, deps.toArray(FileDescriptor[]::new));
      built.put(name, f);
      return f;
    } catch (DescriptorValidationException e) {
      throw new Invalid(name + ": " + e.getMessage());
    }
  }
}
