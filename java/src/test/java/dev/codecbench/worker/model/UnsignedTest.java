package dev.codecbench.worker.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import org.junit.jupiter.api.Test;

/** uint32 and uint64 read from any integer in range, as a long when one holds it, and nothing else. */
class UnsignedTest {
  record U(
      @JsonSerialize(using = Unsigned.Int32Serializer.class) @JsonDeserialize(using = Unsigned.Int32Deserializer.class) int u32,
      @JsonSerialize(using = Unsigned.Int64Serializer.class) @JsonDeserialize(using = Unsigned.Int64Deserializer.class) long u64) {}

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void readsTheWholeUnsignedRangeAndWritesItBack() throws Exception {
    String max = "{\"u32\":4294967295,\"u64\":18446744073709551615}";
    U u = json.readValue(max, U.class);
    assertEquals(new U(-1, -1L), u);
    assertEquals(max, json.writeValueAsString(u));
    assertEquals(new U(7, 9_223_372_036_854_775_807L), json.readValue("{\"u32\":7,\"u64\":9223372036854775807}", U.class));
    assertEquals(new U(0, 1L << 63 | 1), json.readValue("{\"u32\":0,\"u64\":9223372036854775809}", U.class));
  }

  @Test
  void refusesWhatIsOutOfRangeOrNotAnInteger() {
    for (String bad : new String[] {"{\"u32\":4294967296,\"u64\":0}", "{\"u32\":-1,\"u64\":0}", "{\"u32\":0,\"u64\":-1}",
        "{\"u32\":0,\"u64\":18446744073709551616}", "{\"u32\":\"5\",\"u64\":0}", "{\"u32\":1.5,\"u64\":0}"}) {
      assertThrows(Exception.class, () -> json.readValue(bad, U.class), bad);
    }
  }
}
