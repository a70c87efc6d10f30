package dev.codecbench.worker;

import dev.codecbench.worker.codec.Catalogue;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecException;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Java's golden vectors ({@code codecs/vectors/}): for every dataset, the canonical records of
 * {@code <dataset>.pb} (written by the Rust worker; Java never generates data) encoded by every
 * Java reference codec into {@code <dataset>.java.<ext>}, the format's catalogue
 * {@code fileExtension} (tools read {@code owners.java.json} as JSON).
 *
 * <pre>java -jar java/target/codecbench-java-worker.jar vectors codecs/vectors</pre>
 */
public final class Vectors {
  public static final String LANGUAGE = "java";

  private Vectors() {}

  /** File name to bytes of every Java vector, from the canonical records in {@code dir}. */
  public static Map<String, byte[]> all(Path dir, CodecRegistry codecs) throws IOException, CodecException {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (Dataset<?> d : Dataset.all()) {
      Records<?> records = canonical(d, dir);
      for (Codec c : codecs.all()) {
        // Vectors are per format, written by its reference implementation (the id is the format).
        if (!c.id().equals(Codec.formatOf(c.id()))) {
          continue;
        }
        out.put(fileName(d, c.id(), LANGUAGE), encode(c, d, records));
      }
    }
    return out;
  }

  /** A vector's file name: {@code <dataset>.<language>.<ext>} of the codec's format. */
  public static String fileName(Dataset<?> dataset, String codec, String language) {
    return dataset.id() + "." + language + "." + Catalogue.fileExtension(Codec.formatOf(codec));
  }

  private static <R> Records<R> canonical(Dataset<R> dataset, Path dir) throws IOException {
    Path pb = dir.resolve(dataset.id() + ".pb");
    return dataset.parseCanonical(Files.readAllBytes(pb)).model();
  }

  @SuppressWarnings("unchecked")
  private static <R> byte[] encode(Codec codec, Dataset<R> dataset, Records<?> records) throws CodecException {
    return codec.encode(dataset, (Records<R>) records);
  }

  static int main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: java -jar codecbench-java-worker.jar vectors DIR   (DIR holds <dataset>.pb)");
      return 2;
    }
    Path dir = Path.of(args[1]);
    try {
      Map<String, byte[]> files = all(dir, new CodecRegistry());
      for (var f : files.entrySet()) {
        Files.write(dir.resolve(f.getKey()), f.getValue());
      }
      System.out.println("wrote " + files.size() + " vectors to " + dir);
      return 0;
    } catch (IOException | CodecException e) {
      System.err.println("codecbench-java-worker vectors: " + e);
      return 1;
    }
  }
}
