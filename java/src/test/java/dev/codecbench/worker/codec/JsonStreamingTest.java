package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.BeerRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** json's streaming decode is as strict as its typed decode, with precise messages. */
class JsonStreamingTest {
  private static final Codec JSON = new CodecRegistry().byId("json").orElseThrow();
  private static final String BEER =
      "{\"alcohol\":5.5,\"name\":\"n\",\"brewedBy\":\"b\",\"style\":\"s\",\"availability\":\"a\","
          + "\"serving\":\"v\",\"details\":\"d\"}";

  private static List<BeerRecord> stream(String payload) throws CodecException {
    List<BeerRecord> out = new ArrayList<>();
    JSON.decodeStreaming(TestDatasets.BEERS, new Streams.Chunked(payload.getBytes(StandardCharsets.UTF_8)), out::add);
    return out;
  }

  @Test
  void readsEveryRecordAndAnEmptyArray() throws Exception {
    assertEquals(List.of(new BeerRecord(5.5, "n", "b", "s", "a", "v", "d"), new BeerRecord(5.5, "n", "b", "s", "a", "v", "d")),
        stream("{\"records\":[" + BEER + "," + BEER + "]}"));
    assertEquals(List.of(), stream(" {\"records\" : [ ] } \n"));
  }

  static Stream<Arguments> rejected() {
    return Stream.of(
        Arguments.of("", "json decode: the payload is empty (end of input), not {\"records\": [...]}"),
        Arguments.of("null", "json decode: the payload is null, not {\"records\": [...]}"),
        Arguments.of("[]", "json decode: the payload is a START_ARRAY, not {\"records\": [...]}"),
        Arguments.of("{}", "json decode: the payload has no key \"records\""),
        Arguments.of("{\"rows\":[]}", "json decode: unknown key \"rows\" in the payload (it has only \"records\")"),
        Arguments.of("{\"records\":null}", "json decode: \"records\" is null, not an array"),
        Arguments.of("{\"records\":[null]}", "json decode: record 0 is null"),
        Arguments.of("{\"records\":[],\"x\":1}", "json decode: unknown key \"x\" in the payload (it has only \"records\")"),
        Arguments.of("{\"records\":[],\"records\":[]}",
            "json decode: a second key \"records\" in the payload (it has only \"records\")"),
        Arguments.of("{\"records\":[]} {}", "json decode: a START_OBJECT after the payload's value"),
        Arguments.of("{\"records\":[]}]", "json decode: Unexpected close marker ']': "));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @MethodSource("rejected")
  void rejectsWhatIsNotOneRecordsPayload(String payload, String message) {
    CodecException e = assertThrows(CodecException.class, () -> stream(payload));
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  @Test
  void aRecordIsReadAsStrictlyAsInTheTypedMode() {
    String missing = BEER.replace(",\"details\":\"d\"", "");
    String unknown = BEER.replace("{", "{\"extra\":1,");
    String wrongType = BEER.replace("\"alcohol\":5.5", "\"alcohol\":\"strong\"");
    for (String record : List.of(missing, unknown, wrongType)) {
      String payload = "{\"records\":[" + BEER + "," + record + "]}";
      CodecException streamed = assertThrows(CodecException.class, () -> stream(payload));
      CodecException typed = assertThrows(CodecException.class,
          () -> JSON.decodeTyped(TestDatasets.BEERS, payload.getBytes(StandardCharsets.UTF_8)));
      // Jackson's own message for the record, as in the typed mode (which names the path deeper).
      assertTrue(streamed.getMessage().startsWith("json decode: "), streamed.getMessage());
      String first = typed.getMessage().split(" \\(| at \\[")[0];
      assertTrue(streamed.getMessage().startsWith(first), streamed.getMessage() + " vs " + typed.getMessage());
    }
  }
}
