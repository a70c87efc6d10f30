package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * JSONTestSuite (../shared/testdata) through the json codec's parser: y_ cases parse into a tree, n_ cases are
 * rejected by the parser itself, and nothing crashes or hangs. None is a records payload, so the
 * typed path rejects every case with the codec's message.
 */
class JsonConformanceTest {
  private static final Path SUITE = Path.of("..", "..", "shared", "testdata", "JSONTestSuite", "test_parsing");
  private static final JsonCodec JSON = new JsonCodec();

  static Stream<Path> cases() throws IOException {
    if (!Files.isDirectory(SUITE)) {
      return Stream.empty();
    }
    List<Path> all;
    try (Stream<Path> files = Files.list(SUITE)) {
      all = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void parserAcceptsValidAndRejectsInvalidJson(Path file) throws IOException {
    byte[] input = Files.readAllBytes(file);
    String name = file.getFileName().toString();
    if (name.startsWith("y_")) {
      assertNotNull(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> JSON.decodeTree(input)), "valid JSON parses");
    } else if (name.startsWith("n_")) {
      CodecException tree = assertTimeoutPreemptively(Duration.ofSeconds(5),
          () -> assertThrows(CodecException.class, () -> JSON.decodeTree(input)));
      assertTrue(tree.getMessage().startsWith("json decode: "), "rejected by the parser: " + tree.getMessage());
    } else {
      // i_ cases: either outcome, but no other exception and no hang.
      assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
        try {
          JSON.decodeTree(input);
        } catch (CodecException e) {
          assertTrue(e.getMessage().startsWith("json decode: "), e.getMessage());
        }
      });
    }
    CodecException typed = assertTimeoutPreemptively(Duration.ofSeconds(5),
        () -> assertThrows(CodecException.class, () -> JSON.decodeTyped(Dataset.DUMMY, input)));
    assertTrue(typed.getMessage().startsWith("json decode: "), typed.getMessage());
  }

  @Test
  void suiteIsThere() throws IOException {
    assumeTrue(Files.isDirectory(SUITE), "JSONTestSuite not found at " + SUITE.toAbsolutePath());
    assertTrue(cases().count() > 300);
  }
}
