package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.NumericRecord;
import dev.codecbench.worker.model.codecbench.v1.NumericCoordinate;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What is particular to xml (proto/README.md, the xml bullet): the element shape Jackson writes,
 * text that XML would normalise (CR, whitespace), repeated fields with 0 and 1 items (absent, and
 * not an array), empty elements, the forms another writer may choose, and strict reading.
 */
class XmlCodecTest {
  private static final Codec XML = new CodecRegistry().byId("xml").orElseThrow();

  private static String encode(Dataset<?> dataset, Records<?> records) throws CodecException {
    return new String(encodeBytes(dataset, records), StandardCharsets.UTF_8);
  }

  @SuppressWarnings("unchecked")
  private static <R> byte[] encodeBytes(Dataset<R> dataset, Records<?> records) throws CodecException {
    return XML.encode(dataset, (Records<R>) records);
  }

  private static <R> Records<R> decode(Dataset<R> dataset, String xml) throws CodecException {
    return XML.decodeTyped(dataset, xml.getBytes(StandardCharsets.UTF_8));
  }

  private static Records<NumericRecord> numeric(String id, NumericCoordinate... coordinates) {
    return new Records<>(List.of(new NumericRecord(id, 1, 2, List.of(coordinates))));
  }

  /** A numeric payload of one record, the fields' elements as given. */
  private static String numericXml(String fields) {
    return "<payload><records>" + fields + "</records></payload>";
  }

  private static final String ONE =
      "<_id>a</_id><index>1</index><numbr>2</numbr><coordinates><timestamp>1</timestamp><latitude>1.5</latitude>"
          + "<longitude>-2.0</longitude></coordinates>";

  @Test
  void writesRecordsAndRepeatedFieldsAsRepeatedElementsNamedByTheWireNames() throws Exception {
    var records = new Records<>(List.of(
        new NumericRecord("a", 1, 2, List.of(new NumericCoordinate(1700000000000L, 1.5, -2.0), new NumericCoordinate(-1, 0.1, 1e20))),
        new NumericRecord("b", -3, 0, List.of(new NumericCoordinate(Long.MAX_VALUE, -0.0, 5e-324)))));
    String expected = "<payload>"
        + "<records><_id>a</_id><index>1</index><numbr>2</numbr>"
        + "<coordinates><timestamp>1700000000000</timestamp><latitude>1.5</latitude><longitude>-2.0</longitude></coordinates>"
        + "<coordinates><timestamp>-1</timestamp><latitude>0.1</latitude><longitude>1.0E20</longitude></coordinates>"
        + "</records>"
        + "<records><_id>b</_id><index>-3</index><numbr>0</numbr>"
        + "<coordinates><timestamp>9223372036854775807</timestamp><latitude>-0.0</latitude><longitude>4.9E-324</longitude>"
        + "</coordinates></records>"
        + "</payload>";
    assertEquals(expected, encode(TestDatasets.NUMERIC, records));
    Records<NumericRecord> back = decode(TestDatasets.NUMERIC, expected);
    assertEquals(records, back);
    // -0.0 equals 0.0 for ==; the bits must survive too.
    assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(back.records().get(1).coordinates().get(0).latitude()));
  }

  @Test
  void writesAMatrixRowAsARecordsElementOfCells() throws Exception {
    var rows = new Records<>(List.of(List.of("0.1", "-2"), List.of("x"), List.<String>of(), List.of("")));
    String expected = "<payload><records><cells>0.1</cells><cells>-2</cells></records>"
        + "<records><cells>x</cells></records><records/><records><cells></cells></records></payload>";
    assertEquals(expected, encode(TestDatasets.MATRIX, rows));
    assertEquals(rows, decode(TestDatasets.MATRIX, expected));
  }

  @Test
  void noRecordsIsAnEmptyRoot() throws Exception {
    assertEquals("<payload/>", encode(TestDatasets.NUMERIC, new Records<>(List.of())));
    for (String empty : List.of("<payload/>", "<payload></payload>", "<payload>\n  </payload>")) {
      assertEquals(List.of(), decode(TestDatasets.NUMERIC, empty).records());
      assertEquals(List.of(), decode(TestDatasets.MATRIX, empty).records());
    }
  }

  static Stream<String> texts() {
    return Stream.of("a\rb", "\r", "\r\n", "line\nbreak", " lead", "trail ", "  both  ", " ", "   ", "\t", "\n", "",
        "<tag>", "a & b", "]]>", "\"quoted\" 'single'", "ü€\uD83D\uDE00", "&amp;");
  }

  @ParameterizedTest
  @MethodSource("texts")
  void textSurvivesByteExact(String text) throws Exception {
    Records<NumericRecord> one = numeric(text, new NumericCoordinate(1, 2, 3));
    byte[] payload = XML.encode(TestDatasets.NUMERIC, one);
    String wire = new String(payload, StandardCharsets.UTF_8);
    assertEquals(one, XML.decodeTyped(TestDatasets.NUMERIC, payload), wire);
    var row = new Records<>(List.of(List.of(text), List.of(text, text)));
    assertEquals(row, decode(TestDatasets.MATRIX, encode(TestDatasets.MATRIX, row)));
    // XML's line-end normalisation would turn a raw CR into LF: the README writes it &#13;.
    assertFalse(wire.contains("\r"), wire);
    assertEquals(text.chars().filter(c -> c == '\r').count(), wire.split("&#13;", -1).length - 1L, wire);
  }

  @Test
  void escapesAsTheReadmeWrites() throws Exception {
    assertEquals(numericXml("<_id>&lt;a&gt; &amp; b&#13;&#13;\nc ]]&gt;</_id><index>1</index><numbr>2</numbr>"),
        encode(TestDatasets.NUMERIC, numeric("<a> & b\r\r\nc ]]>")));
  }

  @Test
  void aCharacterXmlCannotHoldFailsToEncode() {
    CodecException e = assertThrows(CodecException.class, () -> XML.encode(TestDatasets.NUMERIC, numeric("a\u0001b")));
    assertEquals("xml encode: U+0001 cannot be written in XML 1.0 text", e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"<_id/>", "<_id></_id>"})
  void anEmptyElementIsTheEmptyString(String id) throws Exception {
    assertEquals(numeric(""), decode(TestDatasets.NUMERIC, numericXml(id + "<index>1</index><numbr>2</numbr>")));
    assertEquals(new Records<>(List.of(List.of(""))),
        decode(TestDatasets.MATRIX, "<payload><records>" + id.replace("_id", "cells") + "</records></payload>"));
  }

  @Test
  void anAbsentRepeatedFieldIsEmptyAndAnEmptyRowIsEitherForm() throws Exception {
    assertEquals(numeric("a"), decode(TestDatasets.NUMERIC, numericXml("<_id>a</_id><index>1</index><numbr>2</numbr>")));
    var empty = new Records<>(List.of(List.<String>of(), List.<String>of()));
    assertEquals(empty, decode(TestDatasets.MATRIX, "<payload><records/><records></records></payload>"));
  }

  /**
   * Jackson XML's known weak spot, lists of 0 and 1 items (absent; one element, not an array):
   * every dataset's canonical records with every repeated field below the record cut to n items
   * (through the proto descriptors, so a new dataset is covered), and the first n records.
   */
  static Stream<Arguments> datasetsAndSizes() {
    return Dataset.all().stream().flatMap(d -> Stream.of(Arguments.of(d.id(), 0), Arguments.of(d.id(), 1)));
  }

  @ParameterizedTest(name = "{0} lists of {1}")
  @MethodSource("datasetsAndSizes")
  void everyDatasetRoundTripsWithListsOf0And1Items(String datasetId, int n) throws Exception {
    roundTripCut(Dataset.byId(datasetId).orElseThrow(), n);
  }

  private static <R> void roundTripCut(Dataset<R> dataset, int n) throws Exception {
    Records<R> canonical = CanonicalVectors.canonical(dataset).model();
    Message whole = dataset.toProto(canonical);
    FieldDescriptor recordsField = whole.getDescriptorForType().findFieldByName("records");
    Message.Builder cut = whole.toBuilder().clearField(recordsField);
    for (Object r : (List<?>) whole.getField(recordsField)) {
      cut.addRepeatedField(recordsField, cutLists((Message) r, n));
    }
    Records<R> records = dataset.fromProto(cut.build());
    List<String> repeated = repeatedFieldNames(recordsField.getMessageType());
    if (!repeated.isEmpty()) {
      assertNotEquals(canonical, records, "the cut changed the records");
    }
    String wire = encode(dataset, records);
    assertEquals(Optional.empty(), RecordDiff.firstDifference(records, decode(dataset, wire)), wire);
    for (String name : repeated) {
      int elements = wire.split("<" + name + ">", -1).length - 1 + wire.split("<" + name + "/>", -1).length - 1;
      assertTrue(n == 0 ? elements == 0 : elements > 0, name + " elements: " + elements + " in " + wire);
    }
    Records<R> first = new Records<>(canonical.records().subList(0, n));
    assertEquals(first, decode(dataset, encode(dataset, first)));
  }

  /** The message with every repeated field, at every depth, cut to its first n items. */
  private static Message cutLists(Message m, int n) {
    Message.Builder b = m.toBuilder();
    for (FieldDescriptor f : m.getDescriptorForType().getFields()) {
      boolean message = f.getJavaType() == FieldDescriptor.JavaType.MESSAGE;
      if (f.isRepeated()) {
        List<?> items = (List<?>) m.getField(f);
        b.clearField(f);
        for (Object item : items.subList(0, Math.min(n, items.size()))) {
          b.addRepeatedField(f, message ? cutLists((Message) item, n) : item);
        }
      } else if (message) {
        b.setField(f, cutLists((Message) m.getField(f), n));
      }
    }
    return b.build();
  }

  /** The JSON names of the repeated fields of a record message, at every depth. */
  private static List<String> repeatedFieldNames(com.google.protobuf.Descriptors.Descriptor d) {
    List<String> out = new ArrayList<>();
    for (FieldDescriptor f : d.getFields()) {
      if (f.isRepeated()) {
        out.add(f.getJsonName());
      }
      if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        out.addAll(repeatedFieldNames(f.getMessageType()));
      }
    }
    return out;
  }

  /** What another writer may write: a declaration, indentation, comments, CDATA, references. */
  @ParameterizedTest
  @ValueSource(strings = {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<payload><records>" + ONE + "</records></payload>",
    "<?xml version='1.0'?><!-- a comment --><payload>\n  <records>\n    <_id>a</_id>\n    <index>1</index>\n"
        + "    <numbr>2</numbr>\n    <coordinates>\n      <timestamp>1</timestamp>\n      <latitude>1.5</latitude>\n"
        + "      <longitude>-2</longitude>\n    </coordinates>\n  </records>\n</payload>\n<!-- after -->\n",
    "<payload><records><_id><![CDATA[a]]></_id><index>1</index><numbr>2</numbr><coordinates><timestamp>1</timestamp>"
        + "<latitude>15e-1</latitude><longitude>-2.0E0</longitude></coordinates></records></payload>",
    "<payload><records><coordinates><longitude>-2</longitude><latitude>1.5</latitude><timestamp>1</timestamp>"
        + "</coordinates><numbr>2</numbr><index>1</index><_id>&#97;</_id></records></payload>",
  })
  void readsWhatOtherWritersMayWrite(String xml) throws Exception {
    assertEquals(numeric("a", new NumericCoordinate(1, 1.5, -2.0)), decode(TestDatasets.NUMERIC, xml));
  }

  @Test
  void aCarriageReturnReferenceIsACarriageReturnAndARawOneALineFeed() throws Exception {
    String fields = "<index>1</index><numbr>2</numbr>";
    assertEquals(numeric("a\rb\r"), decode(TestDatasets.NUMERIC, numericXml("<_id>a&#13;b&#xD;</_id>" + fields)));
    // XML 1.0 section 2.11: a literal CR, alone or before LF, reads as LF.
    assertEquals(numeric("a\nb\n"), decode(TestDatasets.NUMERIC, numericXml("<_id>a\r\nb\r</_id>" + fields)));
  }

  /** Strict reading: what the wire form does not have fails with a precise message. */
  static Stream<Arguments> rejected() {
    String good = numericXml(ONE);
    return Stream.of(
        Arguments.of("wrong root", good.replace("payload", "document"),
            "xml decode: the root element is <document>, not <payload>"),
        Arguments.of("second root", good + "<payload/>", "xml decode: Illegal to have multiple roots"),
        Arguments.of("text after the root", good + "x", "xml decode: Unexpected character 'x'"),
        Arguments.of("truncated", good.substring(0, good.length() - 3), "xml decode: Unexpected end of input"),
        Arguments.of("empty", "", "xml decode: Unexpected EOF in prolog"),
        Arguments.of("not xml", "{\"records\": []}", "xml decode: Unexpected character '{'"),
        Arguments.of("unclosed", "<payload><records>", "xml decode: Unexpected EOF"),
        Arguments.of("attribute", good.replace("<records>", "<records id=\"1\">"),
            "xml decode: element <records> at line 1, column 10 has attribute 'id' (the wire form has none)"),
        Arguments.of("namespace", good.replace("<payload>", "<payload xmlns=\"urn:x\">"),
            "xml decode: element <payload> at line 1, column 1 declares or uses a namespace (the wire form has none)"),
        Arguments.of("prefixed root", good.replace("payload>", "p:payload>").replace("<p:payload>",
            "<p:payload xmlns:p=\"urn:x\">"), "xml decode: element <p:payload> at line 1, column 1 declares"),
        Arguments.of("DOCTYPE", "<!DOCTYPE payload [<!ENTITY e \"a\">]>" + good.replace(">a<", ">&e;<"),
            "xml decode: a DOCTYPE at line 1, column 1 (the wire form has none)"),
        Arguments.of("undeclared entity", good.replace(">a<", ">&e;<"), "xml decode: Undeclared general entity \"e\""),
        Arguments.of("element in a string", good.replace(">a<", "><x/><"),
            "xml decode: element <_id> holds elements where a string's text belongs"),
        Arguments.of("text and element in a string", good.replace(">a<", ">a<x/><"),
            "xml decode: element <x> at line 1, column 25 follows text in its parent (an element holds text or "
                + "elements, not both)"),
        Arguments.of("text and element in a number", good.replace("<index>1<", "<index>1<x/><"),
            "xml decode: element <x> at line 1, column 39 follows text in its parent"),
        Arguments.of("text in a record", good.replace("</records>", "x</records>"),
            "xml decode: text at line 1, column 165 follows an element in its parent"),
        Arguments.of("missing string", good.replace("<_id>a</_id>", ""),
            "xml decode: Missing required creator property '_id' (index 0)"),
        Arguments.of("missing int", good.replace("<numbr>2</numbr>", ""),
            "xml decode: Missing required creator property 'numbr' (index 2)"),
        Arguments.of("missing nested field", good.replace("<latitude>1.5</latitude>", ""),
            "xml decode: Missing required creator property 'latitude' (index 1)"),
        Arguments.of("empty record", "<payload><records/></payload>",
            "xml decode: Missing required creator property '_id' (index 0)"),
        Arguments.of("unknown element", good.replace("<index>", "<extra/><index>"),
            "xml decode: Unrecognized field \"extra\""),
        Arguments.of("text in an int", good.replace("<index>1<", "<index>x<"),
            "xml decode: Cannot deserialize value of type `int` from String \"x\": not a valid `int` value"),
        Arguments.of("fraction in an int", good.replace("<index>1<", "<index>1.5<"),
            "xml decode: Cannot deserialize value of type `int` from String \"1.5\": not a valid `int` value"),
        Arguments.of("empty int", good.replace("<index>1</index>", "<index/>"),
            "xml decode: Cannot coerce empty String (\"\") to `int` value"),
        Arguments.of("int out of range", good.replace("<index>1<", "<index>2147483648<"),
            "xml decode: Numeric value (2147483648) out of range of int"),
        Arguments.of("int64 out of range", good.replace("<timestamp>1<", "<timestamp>9223372036854775808<"),
            "xml decode: Numeric value (9223372036854775808) out of range of long"),
        Arguments.of("text in a double", good.replace(">1.5<", ">x<"),
            "xml decode: Cannot deserialize value of type `double` from String \"x\": not a valid `double` value"),
        Arguments.of("empty double", good.replace("<latitude>1.5</latitude>", "<latitude></latitude>"),
            "xml decode: Cannot coerce empty String (\"\") to `double` value"),
        Arguments.of("blank int", good.replace("<index>1</index>", "<index> </index>"),
            "xml decode: Cannot coerce"),
        Arguments.of("blank record in a list", numericXml("<_id>a</_id><index>1</index><numbr>2</numbr>"
            + "<coordinates> </coordinates>"), "xml decode: Missing required creator property 'timestamp' (index 0)"),
        Arguments.of("text as a record", "<payload><records>x</records></payload>",
            "xml decode: Cannot construct instance of `dev.codecbench.worker.model.codecbench.v1.NumericRecord`"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejected")
  void strictReadingFailsWithAPreciseMessage(String what, String xml, String message) {
    CodecException e = assertThrows(CodecException.class, () -> decode(TestDatasets.NUMERIC, xml));
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  /** XmlMapper would take an empty or blank element as a record of nulls (its coercion default). */
  @ParameterizedTest
  @ValueSource(strings = {"<price/>", "<price></price>", "<price> </price>"})
  void anEmptyElementIsNotARecord(String price) throws Exception {
    String wire = encode(TestDatasets.DOCS, CanonicalVectors.canonical(TestDatasets.DOCS).model());
    String broken = wire.replaceFirst("<price>.*?</price>", price);
    assertNotEquals(wire, broken);
    CodecException e = assertThrows(CodecException.class, () -> decode(TestDatasets.DOCS, broken));
    assertTrue(e.getMessage().startsWith(
        "xml decode: Cannot coerce empty String (\"\") to `dev.codecbench.worker.model.codecbench.v1.DocPrice` value"),
        e.getMessage());
  }

  @Test
  void aBoolReadsTrueAndFalse() throws Exception {
    Dataset<?> dummy = TestDatasets.DUMMY;
    String wire = encode(dummy, CanonicalVectors.canonical(dummy).model());
    assertTrue(wire.contains("<isActive>true</isActive>") || wire.contains("<isActive>false</isActive>"), wire);
    String broken = wire.replaceFirst("<isActive>(true|false)</isActive>", "<isActive>yes</isActive>");
    CodecException e = assertThrows(CodecException.class, () -> decode(dummy, broken));
    assertTrue(e.getMessage().startsWith("xml decode: Cannot deserialize value of type `boolean` from String \"yes\""),
        e.getMessage());
  }

  @Test
  void announcesTheCatalogueEntry() {
    assertEquals("application/xml", XML.mediaType());
    assertEquals("jackson-dataformat-xml", XML.library());
    assertEquals(List.of(Codec.TYPED), XML.decodeModes());
    assertEquals(com.fasterxml.jackson.dataformat.xml.PackageVersion.VERSION.toString(), XML.libraryVersion());
  }
}
