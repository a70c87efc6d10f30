package dev.codecbench.worker.userdata;

import dev.codecbench.worker.dataset.Binding;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A user's dataset given at start-up ({@code --user-dataset dataset.json}, proto/README.md): its
 * typed models are built from its descriptor set as an application's would be (protoc's Java
 * classes and the model records and bindings ModelGenerator writes, compiled with javac) and
 * cached beside the manifest ({@link ModelCache}); then the dataset is registered like a
 * built-in. {@code build-user-datasets} only builds the caches.
 */
public final class UserDatasets {
  /**
   * What loading a manifest did: the dataset (null when only built), the fingerprint computed
   * from the loaded classes' descriptors, whether the models came from the cache, and how long
   * it took.
   */
  public record Loaded(Dataset<?> dataset, Manifest manifest, String fingerprint, boolean cached, double seconds) {
    /** "java: orders (acme.shop.v1.Order): models generated and compiled in 12.4 s", or "...: cached". */
    public String line() {
      return "java: " + manifest.id() + " (" + manifest.message() + "): "
          + (cached ? "cached" : String.format(Locale.ROOT, "models generated and compiled in %.1f s", seconds));
    }

    /** A warning when the harness's fingerprint is not the one computed here (control compares its own). */
    public Optional<String> fingerprintWarning() {
      return manifest.fingerprint().isEmpty() || manifest.fingerprint().equals(fingerprint) ? Optional.empty()
          : Optional.of(manifest.file() + ": the manifest's fingerprint is " + manifest.fingerprint()
              + ", the Java worker computes " + fingerprint + " from the descriptor set");
    }
  }

  /** Registered datasets by id: their manifest (a forked trial loads it again) and cache key. */
  private record Registered(Loaded loaded, String key) {}

  private static final Map<String, Registered> REGISTERED = new ConcurrentHashMap<>();

  private UserDatasets() {}

  /** Builds (or finds cached) and loads the models of a manifest's dataset, without registering it. */
  public static Loaded build(Path manifestPath) throws UserDataException {
    return prepare(manifestPath, false).loaded();
  }

  /** Builds or finds the models, then registers the dataset (once per id: loading it again returns it). */
  public static Loaded load(Path manifestPath) throws UserDataException {
    return prepare(manifestPath, true).loaded();
  }

  /** The manifest a registered user dataset came from (a forked trial loads it from the cache). */
  public static Optional<Path> manifestOf(String datasetId) {
    Registered r = REGISTERED.get(datasetId);
    return r == null ? Optional.empty() : Optional.of(r.loaded().manifest().file());
  }

  /**
   * The JVM flag handing a trial's child JVM (same classes) the hash of the worker's classes, part
   * of the cache key, so that it finds the cache without reading the jar again.
   */
  public static String childJvmFlag() throws UserDataException {
    return "-D" + WorkerCode.HASH_PROPERTY + "=" + WorkerCode.hash();
  }

  private static synchronized Registered prepare(Path manifestPath, boolean register) throws UserDataException {
    long start = System.nanoTime();
    Manifest m = Manifest.read(manifestPath);
    String where = m.file() + ": descriptorSet " + m.descriptorSet();
    byte[] set;
    try {
      set = Files.readAllBytes(m.descriptorSet());
    } catch (NoSuchFileException e) {
      throw new UserDataException(where + ": no such file");
    } catch (IOException e) {
      throw new UserDataException(where + ": cannot read it: " + e);
    }
    String key = ModelCache.key(set, m);
    Registered twin = REGISTERED.get(m.id());
    if (twin != null && register) {
      if (twin.key().equals(key) && twin.loaded().manifest().equals(m)) {
        return twin;
      }
      throw new UserDataException(m.file() + ": dataset id '" + m.id() + "' is already carried, from "
          + twin.loaded().manifest().file());
    }
    if (register && Dataset.byId(m.id()).isPresent()) {
      throw new UserDataException(m.file() + ": dataset id '" + m.id() + "' is a built-in's; give yours another");
    }
    Path dir = ModelCache.dir(m, key);
    boolean cached = Files.isDirectory(dir);
    if (!cached) {
      ModelCache.build(m, SchemaSet.of(set, m.message(), where), dir);
    }
    Binding<?, ?, ?> binding = ModelCache.load(dir);
    // Computed by the model generator from the descriptors: a trial's JVM builds none (Schema says why).
    String fingerprint = binding.fingerprint();
    Dataset<?> dataset = null;
    if (register) {
      Dataset.Options options = new Dataset.Options(m.id(),
          "a user's dataset: " + m.message() + " (" + m.file() + ")", m.lazyFields(), false);
      try {
        dataset = Dataset.register(options, binding, m.fieldNames());
      } catch (IllegalStateException | IllegalArgumentException e) {
        throw new UserDataException(m.file() + ": " + e.getMessage());
      }
    }
    Registered r = new Registered(new Loaded(dataset, m, fingerprint, cached, (System.nanoTime() - start) / 1e9), key);
    if (register) {
      REGISTERED.put(m.id(), r);
    }
    return r;
  }

  /**
   * {@code build-user-datasets MANIFEST...}: builds each manifest's cache and prints one line per
   * dataset; exit 0, or 2 with one message on stderr.
   */
  public static int main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: java -jar codecbench-java-worker.jar build-user-datasets DATASET_JSON...");
      return 2;
    }
    for (int i = 1; i < args.length; i++) {
      try {
        Loaded l = build(Path.of(args[i]));
        System.out.println(l.line());
        l.fingerprintWarning().ifPresent(w -> System.err.println("java: warning: " + w));
      } catch (UserDataException e) {
        System.err.println("java: " + e.getMessage());
        return 2;
      } catch (RuntimeException | LinkageError e) {
        System.err.println("java: " + args[i] + ": building the models failed: " + e);
        return 2;
      }
    }
    return 0;
  }
}
