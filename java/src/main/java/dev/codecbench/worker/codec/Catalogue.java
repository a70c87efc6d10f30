package dev.codecbench.worker.codec;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.codecbench.worker.LibraryVersions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * codecs/catalogue.yaml, the one place a codec's descriptive facts live (its format's media type,
 * each language's library, decode modes, notes and timed regions), copied into the jar at build
 * time (pom.xml) and read the first time a codec's metadata is asked for: the worker announces it
 * on attach, and the attached worker checks a task's mode against it (a trial's child JVM never
 * reads it: TrialChildInitTest). Strict: a key these records do not know, timed regions out of
 * order or a {@code {version:NAME}} with no recorded version is an error naming the codec, so a
 * typo in the catalogue fails the build's tests rather than being ignored.
 */
public final class Catalogue {
  /** This worker's language in the catalogue's {@code implementations}. */
  public static final String LANGUAGE = "java";
  static final String RESOURCE = "/codecbench/catalogue.yaml";

  /**
   * One language's implementation of a codec. {@code package} names the package a build reads
   * the library's version from where it is not the library's name (Rust's project-owned ubjson);
   * Java keys its versions by the library's name (codecbench-versions.properties). {@code notes}
   * and {@code timedRegions} are what the worker announces (CodecInfo); Java's have their
   * {@code {version:NAME}} replaced, other languages' are kept as written.
   */
  public record Implementation(
      String library,
      @JsonProperty("package") String packageName,
      String version,
      List<String> modes,
      String notes,
      List<Region> timedRegions) {
    public Implementation {
      modes = List.copyOf(modes);
      notes = notes == null ? "" : notes;
      timedRegions = timedRegions == null ? null : List.copyOf(timedRegions);
    }
  }

  /** What one timed operation contains (results.proto TimedRegion's vocabulary). */
  public record Region(String operation, List<String> contains, String note) {
    public Region {
      contains = contains == null ? List.of() : List.copyOf(contains);
      note = note == null ? "" : note;
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

  private static final Pattern VERSION = Pattern.compile("\\{version:([^}]*)}");

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

  /** Parses a catalogue, Java's {@code {version:NAME}} from this build's versions. */
  static Map<String, Entry> parse(InputStream in) throws IOException {
    return parse(in, LibraryVersions::find);
  }

  /**
   * Parses a catalogue; the entries by id, in the file's order. {@code versions} gives a library's
   * version, or null where it has none.
   */
  static Map<String, Entry> parse(InputStream in, Function<String, String> versions) throws IOException {
    YAMLMapper yaml = YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    byte[] text = in.readAllBytes();
    List<Entry> entries;
    try {
      entries = yaml.readValue(text, File.class).codecs();
    } catch (JsonMappingException e) {
      throw new IOException(where(yaml, text, e) + e.getOriginalMessage(), e);
    }
    Map<String, Entry> out = new LinkedHashMap<>();
    for (Entry e : entries) {
      if (e.id() == null || e.mediaType() == null || e.implementations() == null) {
        throw new IOException("an entry lacks id, mediaType or implementations: " + e);
      }
      Map<String, Implementation> impls = new LinkedHashMap<>(e.implementations());
      for (Map.Entry<String, Implementation> i : impls.entrySet()) {
        checkRegions(e.id() + " / " + i.getKey(), i.getValue(), i.getKey().equals(LANGUAGE));
      }
      Implementation java = impls.get(LANGUAGE);
      if (java != null) {
        impls.put(LANGUAGE, withVersions(e.id(), java, versions));
      }
      e = new Entry(e.id(), e.mediaType(), e.spec(), e.deterministic(), e.fileExtension(), impls);
      if (out.put(e.id(), e) != null) {
        throw new IOException("codec " + e.id() + " is listed twice");
      }
    }
    return out;
  }

  /**
   * The operations an implementation's timed regions cover, in order: encode, then one per decode
   * mode, with "encode streaming" just before "streaming" (harness catalogue.py region_operations).
   */
  static List<String> regionOperations(List<String> modes) {
    List<String> ops = new ArrayList<>(List.of(Codec.ENCODE));
    for (String mode : modes) {
      if (mode.equals(Codec.STREAMING)) {
        ops.add(Codec.ENCODE_STREAMING);
      }
      ops.add(mode);
    }
    return ops;
  }

  /** Regions are optional for other languages (node has none); where present they are checked. */
  private static void checkRegions(String codec, Implementation impl, boolean required) throws IOException {
    if (impl.timedRegions() == null) {
      if (required) {
        throw new IOException("codecs/catalogue.yaml: codec " + codec + " has no timedRegions");
      }
      return;
    }
    List<String> ops = impl.timedRegions().stream().map(Region::operation).toList();
    List<String> want = regionOperations(impl.modes());
    if (!ops.equals(want)) {
      throw new IOException("codecs/catalogue.yaml: codec " + codec + ": timed regions " + ops
          + " should be " + want + ", one for encode and one per decode mode, in order");
    }
    for (Region r : impl.timedRegions()) {
      if (r.contains().isEmpty()) {
        throw new IOException("codecs/catalogue.yaml: codec " + codec + ": timed region "
            + r.operation() + " contains nothing");
      }
    }
  }

  private static Implementation withVersions(String id, Implementation i, Function<String, String> versions)
      throws IOException {
    List<Region> regions = new ArrayList<>();
    for (Region r : i.timedRegions()) {
      regions.add(new Region(r.operation(), r.contains(), withVersions(id, r.note(), versions)));
    }
    return new Implementation(i.library(), i.packageName(), i.version(), i.modes(),
        withVersions(id, i.notes(), versions), regions);
  }

  private static String withVersions(String id, String text, Function<String, String> versions) throws IOException {
    Matcher m = VERSION.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = versions.apply(m.group(1));
      if (v == null) {
        throw new IOException("codecs/catalogue.yaml: codec " + id + " / " + LANGUAGE + ": " + m.group()
            + " names a library with no recorded version (codecbench-versions.properties)");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    return m.appendTail(out).toString();
  }

  /** "codec ID: " for an error inside entry N (found again in the raw tree), and the path within it. */
  private static String where(YAMLMapper yaml, byte[] text, JsonMappingException e) {
    List<JsonMappingException.Reference> path = e.getPath();
    if (path.size() < 2 || !"codecs".equals(path.get(0).getFieldName()) || path.get(1).getIndex() < 0) {
      return "codecs/catalogue.yaml: ";
    }
    String id;
    try {
      id = yaml.readTree(text).path("codecs").path(path.get(1).getIndex()).path("id").asText("#" + path.get(1).getIndex());
    } catch (IOException unreadable) {
      id = "#" + path.get(1).getIndex();
    }
    StringBuilder at = new StringBuilder();
    for (JsonMappingException.Reference r : path.subList(2, path.size())) {
      at.append(r.getFieldName() != null ? (at.isEmpty() ? "" : ".") + r.getFieldName() : "[" + r.getIndex() + "]");
    }
    return "codecs/catalogue.yaml: codec " + id + (at.isEmpty() ? "" : " at " + at) + ": ";
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
