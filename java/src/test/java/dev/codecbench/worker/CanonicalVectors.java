package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.codec.Catalogue;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The language-neutral golden vectors in ../codecs/vectors: the canonical records of each dataset
 * ({@code <dataset>.pb}) and each language's payload of them per format ({@code
 * <dataset>.<language>.<ext>}, the format's catalogue fileExtension; language rust, java, browser
 * or go).
 */
public final class CanonicalVectors {
  public static final Path DIR = Path.of("..", "codecs", "vectors");

  /**
   * The lazy fields control sends for each dataset (proto/README.md, "Decode modes"): those its
   * record message's option declares.
   */
  public static final Map<String, List<String>> LAZY_FIELDS =
      Dataset.all().stream().collect(Collectors.toUnmodifiableMap(Dataset::id, Dataset::lazyFields));

  private CanonicalVectors() {}

  /** The canonical records' protobuf bytes, as control ships them. */
  public static byte[] pb(Dataset<?> dataset) {
    return read(dataset.id() + ".pb");
  }

  /** The Rust worker's payload of the canonical records. */
  public static byte[] rust(Dataset<?> dataset, String codec) {
    return payload(dataset, codec, "rust");
  }

  /** A language's payload of the codec's format (vectors are per format: json/gson reads json's). */
  public static byte[] payload(Dataset<?> dataset, String codec, String language) {
    return read(Vectors.fileName(dataset, codec, language));
  }

  /** The languages that have a vector of this dataset and codec's format (rust always, others when present). */
  public static List<String> languages(Dataset<?> dataset, String codec) {
    String ext = "." + Catalogue.fileExtension(Codec.formatOf(codec));
    String prefix = dataset.id() + ".";
    try (Stream<Path> files = Files.list(DIR)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(prefix) && n.endsWith(ext) && n.split("\\.").length == 3)
          .map(n -> n.substring(prefix.length(), n.length() - ext.length())).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] read(String name) {
    Path p = DIR.resolve(name);
    assertTrue(Files.isRegularFile(p), "missing test vector " + p.toAbsolutePath());
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <R> Canonical<R> canonical(Dataset<R> dataset) {
    try {
      return dataset.parseCanonical(pb(dataset));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
