package dev.codecbench.worker.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.codecbench.worker.model.codecbench.v1.DummyFriend;
import dev.codecbench.worker.model.codecbench.v1.DummyRecord;
import dev.codecbench.worker.model.codecbench.v1.NumericCoordinate;
import dev.codecbench.worker.model.codecbench.v1.NumericRecord;
import dev.codecbench.worker.model.Records;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RecordDiffTest {
  private static DummyRecord dummy(String email, String friend) {
    return new DummyRecord("id", 0, "g", true, 1.5, "p", 30, "blue", "n", "f", "c", email, "ph",
        "a", "ab", "r", 1.0, 2.0, List.of("t"), List.of(new DummyFriend(0, friend)), "hi", "apple");
  }

  @Test
  void namesRecordAndFieldOfTheFirstDifference() {
    var want = new Records<>(List.of(dummy("a@x", "Kim"), dummy("b@x", "Lee")));
    assertEquals(Optional.empty(), RecordDiff.firstDifference(want, new Records<>(List.copyOf(want.records()))));
    assertEquals(Optional.of("record 1 field email: expected \"b@x\", got \"c@x\""),
        RecordDiff.firstDifference(want, new Records<>(List.of(dummy("a@x", "Kim"), dummy("c@x", "Lee")))));
    assertEquals(Optional.of("record 0 field friends[0].name: expected \"Kim\", got \"Kit\""),
        RecordDiff.firstDifference(want, new Records<>(List.of(dummy("a@x", "Kit"), dummy("b@x", "Lee")))));
    assertEquals(Optional.of("expected 2 records, got 1"),
        RecordDiff.firstDifference(want, new Records<>(List.of(dummy("a@x", "Kim")))));
  }

  @Test
  void doublesCompareExactlyAndMatrixCellsByIndex() {
    var coord = new NumericCoordinate(8828480041L, -71.228786, 0.1);
    var off = new NumericCoordinate(8828480041L, -71.228786, 0.1 + 1e-17 * 2);
    assertEquals(Optional.of("record 0 field coordinates[0].longitude: expected 0.1, got 0.10000000000000002"),
        RecordDiff.firstDifference(new Records<>(List.of(new NumericRecord("i", 0, 1, List.of(coord)))),
            new Records<>(List.of(new NumericRecord("i", 0, 1, List.of(off))))));
    assertEquals(Optional.of("record 0 field [1]: expected \"2.5\", got \"2.50\""),
        RecordDiff.firstDifference(new Records<>(List.of(List.of("1", "2.5"))),
            new Records<>(List.of(List.of("1", "2.50")))));
  }

  @Test
  void lazyValuesCompareRecordByRecord() {
    List<String> fields = List.of("guid", "favoriteFruit");
    assertEquals(Optional.of("record 1 field favoriteFruit: expected \"d\", got \"x\""),
        RecordDiff.firstLazyDifference(List.of("a", "b", "c", "d"), List.of("a", "b", "c", "x"), fields));
    assertEquals(Optional.of("expected 4 values (2 records x 2 fields), got 2"),
        RecordDiff.firstLazyDifference(List.of("a", "b", "c", "d"), List.of("a", "b"), fields));
    assertEquals(Optional.empty(), RecordDiff.firstLazyDifference(List.of("a", "b"), List.of("a", "b"), fields));
  }
}
