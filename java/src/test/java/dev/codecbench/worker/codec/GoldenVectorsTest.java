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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
  /** The source file, ../codecs/catalogue.yaml, read as the worker reads its copy in the jar. */
  private static final Map<String, Catalogue.Entry> CATALOGUE = catalogue();

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
    Catalogue.Entry entry = CATALOGUE.get(codecId);
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
  void theRegistryHoldsExactlyTheCataloguesJavaImplementations() {
    Set<String> listed = new TreeSet<>();
    CATALOGUE.forEach((id, e) -> {
      if (e.implementations().containsKey(Catalogue.LANGUAGE)) {
        listed.add(id);
      }
    });
    Set<String> registered = new TreeSet<>();
    CODECS.all().forEach(c -> registered.add(c.id()));
    assertEquals(listed, registered, "codecs/catalogue.yaml's java implementations vs CodecRegistry");
  }

  @Test
  void theJarCarriesTheCatalogueAsItIsInTheRepository() {
    assertEquals(CATALOGUE, Catalogue.entries(), "rebuild the jar (mvn package) after editing codecs/catalogue.yaml");
    for (Codec c : CODECS.all()) {
      Catalogue.Implementation java = CATALOGUE.get(c.id()).implementations().get(Catalogue.LANGUAGE);
      assertEquals(java.modes(), c.decodeModes(), c.id());
      assertEquals(java.library(), c.library(), c.id());
      assertEquals(CATALOGUE.get(c.id()).mediaType(), c.mediaType(), c.id());
    }
  }

  private static Map<String, Catalogue.Entry> catalogue() {
    try (var in = Files.newInputStream(CanonicalVectors.DIR.resolveSibling("catalogue.yaml"))) {
      return Catalogue.parse(in);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
