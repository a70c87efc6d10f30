package dev.codecbench.worker.codec;

import static dev.codecbench.worker.codec.BoundedDecode.problem;
import static dev.codecbench.worker.codec.BoundedDecode.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.codec.BoundedDecode.Input;
import dev.codecbench.worker.codec.BoundedDecode.Result;
import dev.codecbench.worker.dataset.Dataset;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * codecs/fixtures.yaml's hostile inputs through every decode mode of every Java implementation of
 * their format, as the worker's trial calls them ({@link BoundedDecode}): each must be refused
 * with the codec's own error, within {@link BoundedDecode#CASE_BOUND_MS}, allocating no more than
 * {@link BoundedDecode#ALLOC_BOUND}. Where the file's {@code knownFailing} says a library
 * legitimately accepts one, it must be accepted: a listed case that is refused fails too, so the
 * list stays true. The same file drives rust/codecs/tests/fixtures.rs.
 */
class FixturesTest {
  private static final String LANGUAGE = Catalogue.LANGUAGE;
  private static final Path FILE = CanonicalVectors.DIR.resolveSibling("fixtures.yaml");
  private static final CodecRegistry CODECS = new CodecRegistry();
  private static final Fixtures FIXTURES = read();
  /** Every case by format. */
  private static final Map<String, List<Case>> CASES = cases(FIXTURES);

  private record Fixtures(
      @JsonProperty(required = true) List<String> derived,
      @JsonProperty(required = true) Map<String, List<Fixture>> formats,
      @JsonProperty(required = true) List<Known> knownFailing) {}

  /** {@code kind} and {@code about} are for readers of the file. */
  private record Fixture(
      @JsonProperty(required = true) String name,
      @JsonProperty(required = true) String kind,
      @JsonProperty(required = true) String about,
      @JsonProperty(required = true) List<Part> input) {}

  private record Part(String hex, String text, Integer repeat) {}

  private record Known(
      @JsonProperty(required = true) String fixture,
      String language,
      String implementation,
      List<String> modes,
      @JsonProperty(required = true) String reason) {
    boolean covers(String fixture, String implementation, String mode) {
      return this.fixture.equals(fixture)
          && (language == null || language.equals(LANGUAGE))
          && (this.implementation == null || this.implementation.equals(implementation))
          && (modes == null || modes.contains(mode));
    }
  }

  /**
   * One input, decoded as {@code dataset}: {@code fixture} is {@code <format>/<name>}, a derived
   * case's {@code <format>/truncated of <vector file>}.
   */
  private record Case(String fixture, Dataset<?> dataset, byte[] bytes) {
    /** The name knownFailing uses: without the vector a derived case was made from. */
    String kind() {
      return fixture.split(" of ", 2)[0];
    }
  }

  private static Fixtures read() {
    YAMLMapper yaml = YAMLMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .build();
    try {
      Fixtures f = yaml.readValue(FILE.toFile(), Fixtures.class);
      for (String format : f.formats().keySet()) {
        if (!Catalogue.entries().containsKey(format) || !format.equals(Codec.formatOf(format))) {
          throw new IllegalStateException("codecs/fixtures.yaml: " + format + " is not a format of codecs/catalogue.yaml");
        }
      }
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException("codecs/fixtures.yaml: " + e.getMessage(), e);
    }
  }

  private static byte[] bytesOf(String fixture, List<Part> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Part p : parts) {
      byte[] one;
      if (p.hex() != null && p.text() == null) {
        try {
          one = HexFormat.of().parseHex(p.hex().replaceAll("\\s+", ""));
        } catch (IllegalArgumentException e) {
          throw new IllegalStateException(fixture + ": " + p.hex() + ": " + e.getMessage(), e);
        }
      } else if (p.text() != null && p.hex() == null) {
        one = p.text().getBytes(StandardCharsets.UTF_8);
      } else {
        throw new IllegalStateException(fixture + ": a part is either hex or text");
      }
      int repeat = p.repeat() == null ? 1 : p.repeat();
      if (repeat < 0) {
        throw new IllegalStateException(fixture + ": repeat " + repeat);
      }
      for (int i = 0; i < repeat; i++) {
        out.writeBytes(one);
      }
    }
    return out.toByteArray();
  }

  /**
   * Every case by format: its own inputs for each built-in dataset, and the derived ones from
   * every language's golden vectors of the format, decoded as the vector's dataset.
   */
  private static Map<String, List<Case>> cases(Fixtures file) {
    Map<String, List<Case>> byFormat = new TreeMap<>();
    file.formats().forEach((format, fixtures) -> {
      for (Fixture f : fixtures) {
        String fixture = format + "/" + f.name();
        byte[] bytes = bytesOf(fixture, f.input());
        for (Dataset<?> d : Dataset.all()) {
          byFormat.computeIfAbsent(format, k -> new ArrayList<>()).add(new Case(fixture, d, bytes));
        }
      }
    });
    Map<String, String> formatOfExtension = new TreeMap<>();
    Catalogue.entries().values().forEach(e -> {
      if (e.fileExtension() != null) {
        formatOfExtension.put(e.fileExtension(), e.id());
      }
    });
    List<Path> vectors;
    try (Stream<Path> files = Files.list(CanonicalVectors.DIR)) {
      vectors = files.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Path path : vectors) {
      String name = path.getFileName().toString();
      String[] parts = name.split("\\.");
      String format = parts.length == 3 ? formatOfExtension.get(parts[2]) : null;
      if (format == null) {
        continue; // <dataset>.pb: the canonical records, not a vector of a format
      }
      Dataset<?> dataset = Dataset.byId(parts[0])
          .orElseThrow(() -> new IllegalStateException("vector " + name + " of an unknown dataset"));
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(path);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      List<Case> cases = byFormat.computeIfAbsent(format, k -> new ArrayList<>());
      for (String derived : file.derived()) {
        String fixture = format + "/" + derived;
        switch (derived) {
          case "truncated" -> cases.add(new Case(fixture + " of " + name, dataset, Arrays.copyOf(bytes, bytes.length / 2)));
          case "empty" -> {
            // One per dataset, however many languages' vectors it has.
            if (cases.stream().noneMatch(c -> c.fixture().equals(fixture) && c.dataset() == dataset)) {
              cases.add(new Case(fixture, dataset, new byte[0]));
            }
          }
          default -> throw new IllegalStateException("codecs/fixtures.yaml: unknown derived input " + derived);
        }
      }
    }
    return byFormat;
  }

  static Stream<String> codecs() {
    return CODECS.all().stream().map(Codec::id);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void everyFixtureOfItsFormatIsRefused(String id) throws Exception {
    Codec codec = CODECS.byId(id).orElseThrow();
    List<Case> cases = CASES.getOrDefault(Codec.formatOf(id), List.of());
    assertFalse(cases.isEmpty(), id + ": codecs/fixtures.yaml and codecs/vectors give its format no case");
    List<String> failures = new ArrayList<>();
    int calls = 0;
    for (Case c : cases) {
      if (codec.refusal(c.dataset()) != null) {
        continue; // the worker never plans a dataset its codec refuses
      }
      for (String mode : codec.decodeModes()) {
        calls++;
        Result r = run(codec, mode, new Input(c.dataset(), c.bytes(), c.fixture()));
        String what = id + " " + mode + " " + c.fixture() + " as " + c.dataset().id();
        boolean known = FIXTURES.knownFailing().stream().anyMatch(k -> k.covers(c.kind(), id, mode));
        var problem = problem(codec, r);
        if (problem.isPresent()) {
          failures.add(what + ": " + problem.get() + "; input "
              + HexFormat.of().formatHex(c.bytes(), 0, Math.min(64, c.bytes().length)));
        } else if (r.kind().equals(Result.DECODED) && !known) {
          failures.add(what + ": accepted");
        } else if (r.kind().equals(Result.REJECTED) && known) {
          failures.add(what + ": refused (" + r.thrown().getMessage()
              + ") though knownFailing lists it as accepted: remove it from knownFailing");
        }
      }
    }
    System.out.println("fixtures " + id + ": " + calls + " decode calls");
    assertTrue(failures.isEmpty(),
        failures.size() + " fixture cases broke the contract:\n  " + String.join("\n  ", failures));
  }

  /** A knownFailing entry for Java that covers no case here is stale (mirrors the Rust runner). */
  @Test
  void everyKnownFailingEntryOfJavaCoversACase() {
    List<String> stale = new ArrayList<>();
    for (Known k : FIXTURES.knownFailing()) {
      if (k.language() != null && !k.language().equals(LANGUAGE)) {
        continue;
      }
      boolean implemented = false;
      boolean used = false;
      for (Codec codec : CODECS.all()) {
        String format = Codec.formatOf(codec.id());
        if ((k.implementation() != null && !k.implementation().equals(codec.id()))
            || !k.fixture().startsWith(format + "/")) {
          continue;
        }
        implemented = true;
        for (Case c : CASES.getOrDefault(format, List.of())) {
          used |= codec.refusal(c.dataset()) == null
              && codec.decodeModes().stream().anyMatch(m -> k.covers(c.kind(), codec.id(), m));
        }
      }
      if (implemented && !used) {
        stale.add(k.fixture());
      }
    }
    assertEquals(List.of(), stale, "knownFailing entries that match no case here");
  }
}
