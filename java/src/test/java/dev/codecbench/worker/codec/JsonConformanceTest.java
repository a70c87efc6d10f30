package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.codec.Codec.FieldSink;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * JSONTestSuite (testdata/, laid out by `make testdata` from npm) through the json codec the
 * worker uses (from the CodecRegistry), in every decode mode it announces, called as a decode
 * trial calls it (Trial.decode: {@link Codec#validate} first, then the mode's timed entry).
 *
 * <ul>
 *   <li>tree: y_ cases decode into a tree; n_ cases are rejected with the codec's message.
 *   <li>typed and streaming (need a dataset's shape, tried with every dataset): no case is a
 *       records payload, so each is rejected, always as a CodecException with the codec's message.
 *   <li>i_ cases: either outcome; and never a foreign exception, an Error or a hang, in any mode.
 * </ul>
 */
class JsonConformanceTest {
  private static final Path SUITE = Path.of("..", "testdata", "JSONTestSuite", "test_parsing");
  /** Every implementation of json in the registry (Jackson's json, Gson's json/gson). */
  private static final List<Codec> JSONS =
      new CodecRegistry().all().stream().filter(c -> Codec.formatOf(c.id()).equals("json")).toList();

  static Stream<Path> files() throws IOException {
    // Missing data fails the run rather than skipping it (suiteIsThere says why).
    if (!Files.isDirectory(SUITE)) {
      return Stream.empty();
    }
    List<Path> all;
    try (Stream<Path> files = Files.list(SUITE)) {
      all = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    return all.stream();
  }

  /** Codec x file. */
  static Stream<Arguments> cases() throws IOException {
    return JSONS.stream().flatMap(c -> {
      try {
        return files().map(f -> Arguments.of(c.id(), f));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  /** One decode as the worker's decode trial runs it; returns the decoded value (null for lazy). */
  static Object decodeAsTheWorkerDoes(Codec codec, String mode, Dataset<?> dataset, byte[] payload)
      throws CodecException {
    codec.validate(payload);
    return switch (mode) {
      case Codec.TYPED -> codec.decodeTyped(dataset, payload);
      case Codec.TREE -> codec.decodeTree(payload);
      case Codec.LAZY -> {
        FieldSink sink = v -> {};
        codec.decodeLazy(dataset, payload, CanonicalVectors.LAZY_FIELDS.get(dataset.id()), sink);
        yield null;
      }
      case Codec.STREAMING -> codec.decodeStreaming(dataset, new Streams.Chunked(payload), r -> {});
      default -> throw new IllegalArgumentException("decode mode " + mode);
    };
  }

  @Test
  void theJsonCodecsOfferTypedTreeAndStreaming() {
    assertEquals(List.of("json", "json/gson"), JSONS.stream().map(Codec::id).toList());
    // The per-mode expectations below must cover what the codecs announce.
    for (Codec json : JSONS) {
      assertTrue(json.decodeModes().containsAll(List.of(Codec.TYPED, Codec.TREE, Codec.STREAMING)),
          json.id() + ": " + json.decodeModes());
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void everyModeAcceptsValidAndRejectsInvalidJson(String codecId, Path file) throws IOException {
    Codec json = JSONS.stream().filter(c -> c.id().equals(codecId)).findFirst().orElseThrow();
    byte[] input = Files.readAllBytes(file);
    String name = file.getFileName().toString();
    List<String> problems = new ArrayList<>();
    for (String mode : json.decodeModes()) {
      // Tree reads any JSON value; typed and lazy read a dataset's shape: try each dataset.
      List<Dataset<?>> datasets = mode.equals(Codec.TREE) ? List.of(TestDatasets.DUMMY) : Dataset.all();
      for (Dataset<?> dataset : datasets) {
        String where = mode + (mode.equals(Codec.TREE) ? "" : " (" + dataset.id() + ")");
        Object decoded;
        try {
          decoded = assertTimeoutPreemptively(Duration.ofSeconds(5),
              () -> decodeAsTheWorkerDoes(json, mode, dataset, input), where + " did not finish in 5 s");
        } catch (Throwable t) {
          // assertTimeoutPreemptively rethrows the decode's checked exception as it is.
          if (!(t instanceof CodecException e)) {
            // A foreign exception, an Error or the time bound: the worker would report
            // "trial failed: ..." or hang, not "decode failed: <the codec's message>".
            problems.add(where + ": " + t);
            continue;
          }
          if (!e.getMessage().startsWith(codecId + " decode: ")) {
            problems.add(where + ": not the codec's message: " + e.getMessage());
          }
          if (name.startsWith("y_") && mode.equals(Codec.TREE)) {
            problems.add(where + ": valid JSON rejected: " + e.getMessage());
          }
          continue;
        }
        if (name.startsWith("n_")) {
          problems.add(where + ": invalid JSON accepted");
        } else if (mode.equals(Codec.TREE)) {
          assertNotNull(decoded, where);
        }
        // typed/lazy accepting a y_ or i_ case would be clean too (none is a records payload).
      }
    }
    if (!problems.isEmpty()) {
      fail(name + ":\n  " + String.join("\n  ", problems));
    }
  }

  @Test
  void suiteIsThere() throws IOException {
    assertTrue(Files.isDirectory(SUITE), "JSONTestSuite not found at " + SUITE.toAbsolutePath()
        + ": run `make testdata` (python3 testdata/fetch.py)");
    assertTrue(files().count() > 300);
  }
}
