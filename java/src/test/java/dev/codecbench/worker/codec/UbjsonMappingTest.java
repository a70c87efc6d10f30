package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.devsmart.ubjson.UBArray;
import com.devsmart.ubjson.UBObject;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBValueFactory;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.BeerRecord;
import dev.codecbench.worker.model.Records;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The generic ubjson mapping (UbjsonMapping, built from the proto descriptors and the record
 * components): the exact wire form of a tiny record, and the strict reading's messages naming the
 * field, on trees of the codec's own payloads with one value changed.
 */
class UbjsonMappingTest {
  private static final UbjsonCodec UBJSON = (UbjsonCodec) new CodecRegistry().byId("ubjson").orElseThrow();

  @Test
  void aTinyRecordsWireForm() throws Exception {
    byte[] bytes = UBJSON.encode(TestDatasets.BEERS, new Records<>(List.of(new BeerRecord(5.5, "n", "b", "s", "a", "v", "d"))));
    // {"records": [#U1 {keys sorted: alcohol D 5.5, availability, brewedBy, details, name, serving,
    // style: S with a uint8 length}]}; every length in the smallest marker, U (uint8).
    String want = "7b" + "5507" + hex("records") + "5b2355" + "01" + "7b"
        + "5507" + hex("alcohol") + "44" + "4016000000000000"
        + "550c" + hex("availability") + "535501" + hex("a")
        + "5508" + hex("brewedBy") + "535501" + hex("b")
        + "5507" + hex("details") + "535501" + hex("d")
        + "5504" + hex("name") + "535501" + hex("n")
        + "5507" + hex("serving") + "535501" + hex("v")
        + "5505" + hex("style") + "535501" + hex("s")
        + "7d" + "7d";
    assertEquals(want, HexFormat.of().formatHex(bytes));
  }

  private static String hex(String s) {
    return HexFormat.of().formatHex(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** The tree of the codec's own payload of {@code dataset}, {@code change} applied to record 0. */
  private static <R> String rejected(Dataset<R> dataset, Consumer<UBObject> change) throws Exception {
    UBValue tree = UBJSON.decodeTree(UBJSON.encode(dataset, CanonicalVectors.canonical(dataset).model()));
    UBArray records = tree.asObject().get("records").asArray();
    change.accept(records.get(0).asObject());
    return assertThrows(CodecException.class, () -> UBJSON.treeToRecords(dataset, tree)).getMessage();
  }

  @Test
  void strictReadingNamesTheField() throws Exception {
    assertEquals("ubjson decode: record 0: no field 'favoriteFruit'",
        rejected(TestDatasets.DUMMY, o -> o.remove("favoriteFruit")));
    assertEquals("ubjson decode: record 0: field 'isActive' is a Uint8, not a boolean",
        rejected(TestDatasets.DUMMY, o -> o.put("isActive", UBValueFactory.createInt(1))));
    assertEquals("ubjson decode: record 0: tags is a String, not an array of strings",
        rejected(TestDatasets.DUMMY, o -> o.put("tags", UBValueFactory.createString("x"))));
    assertEquals("ubjson decode: record 0: tags[1] is a Uint8, not a string",
        rejected(TestDatasets.DUMMY, o -> o.put("tags", UBValueFactory.createArray(UBValueFactory.createString("a"),
            UBValueFactory.createInt(2)))));
    assertEquals("ubjson decode: record 0: friends[1] is a Null, not an object",
        rejected(TestDatasets.DUMMY, o -> o.put("friends", UBValueFactory.createArray(
            o.get("friends").asArray().get(0), UBValueFactory.createNull()))));
    assertEquals("ubjson decode: record 0: field 'friends' is a Object, not an array",
        rejected(TestDatasets.DUMMY, o -> o.put("friends", UBValueFactory.createObject())));
    assertEquals("ubjson decode: record 0: field 'uid' is 1099511627776, out of int32 range",
        rejected(TestDatasets.OWNERS, o -> o.get("cars").asArray().get(0).asObject()
            .put("uid", UBValueFactory.createInt(1L << 40))));
    assertEquals("ubjson decode: record 0: department is a String, not an object",
        rejected(TestDatasets.DOCS, o -> o.put("department", UBValueFactory.createString("x"))));
    assertEquals("ubjson decode: record 0: no field 'employee'",
        rejected(TestDatasets.DOCS, o -> o.get("department").asObject().remove("employee")));
    assertEquals("ubjson decode: record 0: field 'timestamp' is a Float64, not an integer",
        rejected(TestDatasets.NUMERIC, o -> o.get("coordinates").asArray().get(0).asObject()
            .put("timestamp", UBValueFactory.createFloat64(1.5))));
    assertEquals("ubjson decode: record 0: field 'latitude' is the integer 9007199254740993, not exactly a double",
        rejected(TestDatasets.NUMERIC, o -> o.get("coordinates").asArray().get(0).asObject()
            .put("latitude", UBValueFactory.createInt((1L << 53) + 1))));
    assertEquals("ubjson decode: record 0: field 'alcohol' is a String, not a number",
        rejected(TestDatasets.BEERS, o -> o.put("alcohol", UBValueFactory.createString("strong"))));
  }

  @Test
  void aMatrixRowIsABareArrayOfStrings() throws Exception {
    UBValue tree = UBValueFactory.createObject();
    tree.asObject().put("records", UBValueFactory.createArray(
        UBValueFactory.createArray(new String[] {"1", "2"}),
        UBValueFactory.createArray(UBValueFactory.createString("3"), UBValueFactory.createInt(4))));
    assertEquals("ubjson decode: record 1: record[1] is a Uint8, not a string",
        assertThrows(CodecException.class, () -> UBJSON.treeToRecords(TestDatasets.MATRIX, tree)).getMessage());
    tree.asObject().put("records", UBValueFactory.createArray(UBValueFactory.createObject()));
    assertEquals("ubjson decode: record 0: record is a Object, not an array of strings",
        assertThrows(CodecException.class, () -> UBJSON.treeToRecords(TestDatasets.MATRIX, tree)).getMessage());
  }

  @Test
  void anyNumberReadsAsADoubleExactly() throws Exception {
    UBValue tree = UBJSON.decodeTree(UBJSON.encode(TestDatasets.BEERS,
        new Records<>(List.of(new BeerRecord(5.0, "n", "b", "s", "a", "v", "d")))));
    tree.asObject().get("records").asArray().get(0).asObject().put("alcohol", UBValueFactory.createInt(5));
    assertEquals(5.0, UBJSON.treeToRecords(TestDatasets.BEERS, tree).records().get(0).alcohol());
  }
}
