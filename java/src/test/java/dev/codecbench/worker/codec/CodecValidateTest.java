package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.dataset.Dataset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Verification runs {@link Codec#validate} on every payload before decoding it, including other
 * languages' payloads: every committed golden vector of every codec (Rust, Java and browser
 * writers) passes it, so the length checks of ubjson and msgpack refuse no real payload.
 */
class CodecValidateTest {
  private static final CodecRegistry CODECS = new CodecRegistry();

  @ParameterizedTest(name = "{1}.{0}.{2}")
  @MethodSource("dev.codecbench.worker.codec.GoldenVectorsTest#vectors")
  void everyLanguagesPayloadPassesValidation(String codec, String dataset, String language) {
    Codec c = CODECS.byId(codec).orElseThrow();
    byte[] payload = CanonicalVectors.payload(Dataset.byId(dataset).orElseThrow(), codec, language);
    assertDoesNotThrow(() -> c.validate(payload));
  }
}
