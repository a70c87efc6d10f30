package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.Vectors;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The golden vectors of ../codecs/vectors against the Java codecs: every language's payload of
 * every codec Java implements decodes (typed, and lazy where Java has it) to the canonical records
 * of {@code <dataset>.pb}; for deterministic codecs (catalogue.yaml) Java's encoding equals every
 * language's payload byte for byte; and the committed {@code *.java} vectors are what the codecs
 * write now.
 */
class GoldenVectorsTest {
  private static final CodecRegistry CODECS = new CodecRegistry();
  private static final Map<String, Entry> CATALOGUE = catalogue();

  /** A catalogue entry as far as Java cares: deterministic or not, and Java's decode modes. */
  record Entry(boolean deterministic, List<String> javaModes) {}

  /** Codec x dataset x language, for every vector file present. */
  static Stream<Arguments> vectors() {
    List<Arguments> out = new ArrayList<>();
    for (Codec c : CODECS.all()) {
      for (Dataset<?> d : Dataset.all()) {
        for (String language : CanonicalVectors.languages(d, c.id())) {
          out.add(Arguments.of(c.id(), d.id(), language));
        }
      }
    }
    return out.stream();
  }

  static Stream<Arguments> codecsAndDatasets() {
    List<Arguments> out = new ArrayList<>();
    for (Codec c : CODECS.all()) {
      for (Dataset<?> d : Dataset.all()) {
        out.add(Arguments.of(c.id(), d.id()));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}.{0}.{2}")
  @MethodSource("vectors")
  void decodesEveryLanguagesPayload(String codecId, String datasetId, String language) throws Exception {
    Codec codec = CODECS.byId(codecId).orElseThrow();
    Dataset<?> dataset = Dataset.byId(datasetId).orElseThrow();
    byte[] payload = CanonicalVectors.payload(dataset, codecId, language);
    Canonical<?> canonical = CanonicalVectors.canonical(dataset);
    assertEquals(Optional.empty(),
        RecordDiff.firstDifference(canonical.model(), codec.decodeTyped(dataset, payload)),
        "typed decode of " + datasetId + "." + codecId + "." + language);
    if (codec.decodeModes().contains(Codec.TREE)) {
      assertEquals(Optional.empty(),
          RecordDiff.firstDifference(canonical.model(), treeToRecords(codec, dataset, codec.decodeTree(payload))),
          "tree decode of " + datasetId + "." + codecId + "." + language);
    }
    if (codec.decodeModes().contains(Codec.LAZY)) {
      List<String> fields = CanonicalVectors.LAZY_FIELDS.get(datasetId);
      List<String> read = new java.util.ArrayList<>();
      codec.decodeLazy(dataset, payload, fields, read::add);
      assertEquals(LazyField.expected(canonical, fields), read,
          "lazy decode of " + datasetId + "." + codecId + "." + language);
    }
  }

  @ParameterizedTest(name = "{0} {1}.{0}.{2}")
  @MethodSource("vectors")
  void deterministicCodecsWriteEveryLanguagesBytes(String codecId, String datasetId, String language)
      throws Exception {
    Entry entry = CATALOGUE.get(codecId);
    assertNotNull(entry, codecId + " is in codecs/catalogue.yaml");
    if (!entry.deterministic()) {
      return;
    }
    Codec codec = CODECS.byId(codecId).orElseThrow();
    Dataset<?> dataset = Dataset.byId(datasetId).orElseThrow();
    assertArrayEquals(CanonicalVectors.payload(dataset, codecId, language), encode(codec, dataset),
        codecId + " is deterministic: Java must write " + datasetId + "." + codecId + "." + language
            + " byte for byte");
  }

  private static <R> Records<R> treeToRecords(Codec codec, Dataset<R> dataset, Object tree) throws CodecException {
    return codec.treeToRecords(dataset, tree);
  }

  private static <R> byte[] encode(Codec codec, Dataset<R> dataset) throws CodecException {
    return codec.encode(dataset, CanonicalVectors.canonical(dataset).model());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("codecsAndDatasets")
  void rustAndJavaVectorsExist(String codecId, String datasetId) {
    List<String> languages = CanonicalVectors.languages(Dataset.byId(datasetId).orElseThrow(), codecId);
    assertTrue(languages.containsAll(List.of("java", "rust")), datasetId + "." + codecId + ".* : " + languages);
  }

  @Test
  void committedJavaVectorsAreWhatTheCodecsWriteNow() throws Exception {
    Map<String, byte[]> fresh = Vectors.all(CanonicalVectors.DIR, CODECS);
    long references = CODECS.all().stream().filter(c -> c.id().equals(Codec.formatOf(c.id()))).count();
    assertEquals(Dataset.all().size() * references, fresh.size());
    List<String> stale = new ArrayList<>();
    for (var f : fresh.entrySet()) {
      Path committed = CanonicalVectors.DIR.resolve(f.getKey());
      if (!Files.isRegularFile(committed) || !java.util.Arrays.equals(Files.readAllBytes(committed), f.getValue())) {
        stale.add(f.getKey());
      }
    }
    assertEquals(List.of(), stale, "regenerate with: java -jar java/target/codecbench-java-worker.jar vectors "
        + "codecs/vectors (from the repository root, after mvn package)");
  }

  @Test
  void catalogueListsEveryJavaCodecWithItsModes() {
    for (Codec c : CODECS.all()) {
      Entry e = CATALOGUE.get(c.id());
      assertNotNull(e, c.id() + " is missing from codecs/catalogue.yaml");
      assertEquals(c.decodeModes(), e.javaModes(), c.id() + ": Java's decode modes in codecs/catalogue.yaml");
    }
  }

  /**
   * Reads what Java needs from codecs/catalogue.yaml: each {@code - id:} entry's {@code
   * deterministic:} flag and its {@code java: {..., modes: [...]}} line. (No YAML library in the
   * worker for one test; the file's layout is fixed by the catalogue's own header.)
   */
  private static Map<String, Entry> catalogue() {
    List<String> lines;
    try {
      lines = Files.readAllLines(CanonicalVectors.DIR.resolveSibling("catalogue.yaml"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Pattern id = Pattern.compile("^\\s*-\\s*id:\\s*(\\S+)");
    Pattern det = Pattern.compile("^\\s*deterministic:\\s*(true|false)");
    Pattern java = Pattern.compile("^\\s*java:\\s*\\{.*modes:\\s*\\[([^\\]]*)\\]");
    Map<String, Entry> out = new LinkedHashMap<>();
    String current = null;
    boolean deterministic = false;
    List<String> modes = List.of();
    for (String line : lines) {
      Matcher m;
      if ((m = id.matcher(line)).find()) {
        if (current != null) {
          out.put(current, new Entry(deterministic, modes));
        }
        current = m.group(1);
        deterministic = false;
        modes = List.of();
      } else if ((m = det.matcher(line)).find()) {
        deterministic = Boolean.parseBoolean(m.group(1));
      } else if ((m = java.matcher(line)).find()) {
        modes = Stream.of(m.group(1).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      }
    }
    if (current != null) {
      out.put(current, new Entry(deterministic, modes));
    }
    return out;
  }
}
