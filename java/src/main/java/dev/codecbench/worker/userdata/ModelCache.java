package dev.codecbench.worker.userdata;

import dev.codecbench.worker.dataset.Binding;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.modelgen.ModelGenerator;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The compiled models of a user's schema, cached in {@code <manifest folder>/java/<key>/}: the
 * classes protoc generates for its files and the records and bindings ModelGenerator writes,
 * compiled together. The key is a hash of everything they are made from: the descriptor set's
 * bytes, the record message, the field names and the worker's own classes (which fix protoc's
 * and the generator's versions). A build is published by renaming a finished directory into
 * place, so a cache directory is always whole, and two processes building at once both end up
 * with one of the two.
 */
final class ModelCache {
  static final String BINDINGS_CLASS = "dev.codecbench.user.UserModels";
  private static final String MODEL_ROOT = "dev.codecbench.user.model";
  /** Changes when a cache directory's layout does. */
  private static final String FORMAT = "codecbench java user models 1";

  private ModelCache() {}

  static String key(byte[] set, Manifest m) throws UserDataException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    sha.update((FORMAT + "\n" + m.message() + "\n" + m.fieldNames() + "\n" + WorkerCode.hash() + "\n")
        .getBytes(StandardCharsets.UTF_8));
    sha.update(set);
    return HexFormat.of().formatHex(sha.digest(), 0, 8);
  }

  static Path dir(Manifest m, String key) {
    return m.folder().resolve("java").resolve(key);
  }

  /** Generates and compiles the models of {@code set} into {@code dir} (absent before). */
  static void build(Manifest m, SchemaSet set, Path dir) throws UserDataException {
    Path parent = dir.getParent();
    Path tmp;
    try {
      Files.createDirectories(parent);
      tmp = Files.createTempDirectory(parent, ".building-");
    } catch (IOException e) {
      throw new UserDataException("cannot write the model cache in " + parent + ": " + e);
    }
    try {
      Path descriptors = tmp.resolve("descriptors.binpb");
      Path sources = tmp.resolve("src");
      Files.write(descriptors, set.prepared.toByteArray());
      Files.createDirectories(sources);
      Protoc.javaOut(Protoc.locate(), descriptors, set.toGenerate, sources);
      ModelGenerator generator = new ModelGenerator(set.files, List.of(new ModelGenerator.Record(set.record, false,
          set.list)), MODEL_ROOT, BINDINGS_CLASS, m.fieldNames().equals(Dataset.PROTO_NAMES));
      ModelGenerator.write(generator.sources(), sources);
      Javac.compile(sources, tmp.resolve("classes"));
      Files.writeString(tmp.resolve("built-from.txt"), "manifest " + m.file() + "\nmessage " + m.message()
          + "\nfieldNames " + m.fieldNames() + "\nworker " + WorkerCode.hash() + "\nprotoc " + Protoc.expectedVersion()
          + "\n");
      publish(tmp, dir);
    } catch (IOException e) {
      throw new UserDataException("cannot write the model cache in " + parent + ": " + e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  /** Renames the finished build into place; another process's finished build is as good. */
  private static void publish(Path tmp, Path dir) throws IOException {
    try {
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  /** The binding of the record to the cached models, through a class loader of their own. */
  static Binding<?, ?, ?> load(Path dir) throws UserDataException {
    Path classes = dir.resolve("classes");
    try {
      ClassLoader loader = new CacheLoader(classes.toUri().toURL(), ModelCache.class.getClassLoader());
      Class<?> bindings = Class.forName(BINDINGS_CLASS, true, loader);
      List<?> all = (List<?>) bindings.getField("BINDINGS").get(null);
      return (Binding<?, ?, ?>) all.get(0);
    } catch (ReflectiveOperationException | MalformedURLException | LinkageError | RuntimeException e) {
      Throwable why = e instanceof ExceptionInInitializerError x && x.getCause() != null ? x.getCause() : e;
      throw new UserDataException("the cached models in " + dir + " do not load (" + why + "); delete the directory "
          + "to build them again", e);
    }
  }

  /**
   * Loads the cache's own classes first: a user's file may generate classes named like one in
   * the worker (a copy of a file the worker holds too), and the models must get the user's.
   */
  private static final class CacheLoader extends URLClassLoader {
    static {
      registerAsParallelCapable();
    }

    CacheLoader(URL classes, ClassLoader parent) {
      super(new URL[] {classes}, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null && findResource(name.replace('.', '/') + ".class") != null) {
          c = findClass(name);
        }
        if (c == null) {
          return super.loadClass(name, resolve);
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }
  }

  private static void deleteQuietly(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover build directory is harmless: it is never a cache entry.
    }
  }
}
