package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The language-neutral test vectors in ../codecs/canonical: the canonical records (.pb) and the
 * Rust worker's payloads of them (.json, .bson).
 */
public final class CanonicalVectors {
  public static final Path DIR = Path.of("..", "codecs", "canonical");

  /** The lazy field control sends for each dataset (proto/README.md, "Decode modes"). */
  public static final Map<String, String> LAZY_FIELD =
      Map.of("dummy", "guid", "numeric", "_id", "owners", "name", "docs", "name", "beers", "name",
          "matrix", "0");

  private CanonicalVectors() {}

  public static byte[] read(Dataset<?> dataset, String extension) {
    Path p = DIR.resolve(dataset.id() + "." + extension);
    assertTrue(Files.isRegularFile(p), "missing test vector " + p.toAbsolutePath());
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <R> Canonical<R> canonical(Dataset<R> dataset) {
    try {
      return dataset.parseCanonical(read(dataset, "pb"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
