package dev.codecbench.worker.codec;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * codecs/catalogue.yaml, the one place a codec's descriptive facts live (its format's media type,
 * each language's library and decode modes), copied into the jar at build time (pom.xml) and read
 * the first time a codec's metadata is asked for: the worker announces it on attach, and a trial
 * checks its task's mode against it. Strict: a key this record does not know is an error, so a
 * typo in the catalogue fails the build's tests rather than being ignored.
 */
public final class Catalogue {
  /** This worker's language in the catalogue's {@code implementations}. */
  public static final String LANGUAGE = "java";
  static final String RESOURCE = "/codecbench/catalogue.yaml";

  /**
   * One language's implementation of a codec. {@code package} names the package a build reads
   * the library's version from where it is not the library's name (Rust's project-owned ubjson);
   * Java keys its versions by the library's name (codecbench-versions.properties).
   */
  public record Implementation(
      String library,
      @JsonProperty("package") String packageName,
      String version,
      List<String> modes,
      String notes) {
    public Implementation {
      modes = List.copyOf(modes);
    }
  }

  /**
   * One codec: a format, or another library of one ({@code json/gson}). {@code fileExtension} is
   * a format's golden-vector extension ({@code <dataset>.<language>.<ext>}); another library of a
   * format has none (vectors are per format).
   */
  public record Entry(
      String id,
      String mediaType,
      String spec,
      boolean deterministic,
      String fileExtension,
      Map<String, Implementation> implementations) {}

  private record File(@JsonProperty(required = true) List<Entry> codecs) {}

  /** Loaded on first use (the holder idiom): a process that never asks never parses it. */
  private static final class Loaded {
    static final Map<String, Entry> BY_ID = load();
  }

  private Catalogue() {}

  private static Map<String, Entry> load() {
    try (InputStream in = Catalogue.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the jar (pom.xml copies codecs/catalogue.yaml)");
      }
      return parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException("codecs/catalogue.yaml: " + e.getMessage(), e);
    }
  }

  /** Parses a catalogue; the entries by id, in the file's order. */
  static Map<String, Entry> parse(InputStream in) throws IOException {
    YAMLMapper yaml = YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    Map<String, Entry> out = new LinkedHashMap<>();
    for (Entry e : yaml.readValue(in, File.class).codecs()) {
      if (e.id() == null || e.mediaType() == null || e.implementations() == null) {
        throw new IOException("an entry lacks id, mediaType or implementations: " + e);
      }
      if (out.put(e.id(), e) != null) {
        throw new IOException("codec " + e.id() + " is listed twice");
      }
    }
    return out;
  }

  /** Every entry, in the catalogue's order. */
  public static Map<String, Entry> entries() {
    return Loaded.BY_ID;
  }

  public static Entry entry(String id) {
    Entry e = Loaded.BY_ID.get(id);
    if (e == null) {
      throw new IllegalStateException("codec " + id + " is not in codecs/catalogue.yaml");
    }
    return e;
  }

  /** The golden-vector file extension of {@code format}; an error naming it when it has none. */
  public static String fileExtension(String format) {
    String ext = entry(format).fileExtension();
    if (ext == null) {
      throw new IllegalStateException("codecs/catalogue.yaml gives format " + format + " no fileExtension");
    }
    return ext;
  }

  /** Java's implementation of codec {@code id}; an error naming it when the catalogue has none. */
  public static Implementation java(String id) {
    Implementation i = entry(id).implementations().get(LANGUAGE);
    if (i == null) {
      throw new IllegalStateException("codecs/catalogue.yaml lists no java implementation of " + id);
    }
    return i;
  }
}
