package dev.codecbench.worker.codec;

import dev.codecbench.worker.TestDatasets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.fb.BeerRecord;
import codecbench.v1.fb.BeersDataset;
import codecbench.v1.fb.DocDelivery;
import codecbench.v1.fb.DocRecord;
import codecbench.v1.fb.DocsDataset;
import codecbench.v1.fb.OwnersDataset;
import com.google.flatbuffers.FlatBufferBuilder;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.codecbench.v1.DummyRecord;
import dev.codecbench.worker.model.codecbench.v1.NumericRecord;
import dev.codecbench.worker.model.codecbench.v1.NumericCoordinate;
import dev.codecbench.worker.model.codecbench.v1.OwnerRecord;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What is particular to flatbuffers (proto/README.md, the flatbuffers bullet). The codec maps the
 * records generically (proto descriptors + record components) instead of calling flatc's
 * generated classes, so: the generated classes read its buffers, field by field, for every
 * dataset; and it reads what the generated builders write. Then the wire shape (empty strings,
 * vectors and tables written; default scalars omitted; -0.0 kept), absent fields read as the proto
 * defaults and text that must survive byte for byte; the bounds checks with their messages are
 * FlatbuffersHostileInputTest.
 */
class FlatbuffersCodecTest {
  private static final Codec FB = new CodecRegistry().byId("flatbuffers").orElseThrow();

  static Stream<String> datasets() {
    return Dataset.all().stream().map(Dataset::id);
  }

  @SuppressWarnings("unchecked")
  private static <R> byte[] encode(Dataset<R> dataset, Records<?> records) throws CodecException {
    return FB.encode(dataset, (Records<R>) records);
  }

  private static Descriptor datasetMessage(Dataset<?> d) {
    return d.toProto(new Records<>(List.of())).getDescriptorForType();
  }

  // --- The generated classes read the codec's buffers --------------------------------------------

  @Test
  void theGeneratedAccessorsReadTheCodecsBuffer() throws Exception {
    List<OwnerRecord> owners = CanonicalVectors.canonical(TestDatasets.OWNERS).model().records();
    ByteBuffer bb = ByteBuffer.wrap(FB.encode(TestDatasets.OWNERS, new Records<>(owners)));
    OwnersDataset root = OwnersDataset.getRootAsOwnersDataset(bb);
    assertEquals(owners.size(), root.recordsLength());
    assertEquals(owners.get(0).cars().get(1).brand(), root.records(0).cars(1).brand());
    assertEquals(owners.get(2).telephone(), root.records(2).telephone());
    assertEquals(owners.get(2).cars().get(3).co2Emissions(), root.records(2).cars(3).co2Emissions());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("datasets")
  void theGeneratedClassesReadEveryFieldOfEveryRecord(String datasetId) throws Exception {
    Dataset<?> d = Dataset.byId(datasetId).orElseThrow();
    Records<?> model = CanonicalVectors.canonical(d).model();
    Descriptor message = datasetMessage(d);
    Class<?> root = generated(message);
    Object table = root.getMethod("getRootAs" + message.getName(), ByteBuffer.class)
        .invoke(null, ByteBuffer.wrap(encode(d, model)));
    assertReads(table, message, model, datasetId);
  }

  /** Every field of {@code model} read through the generated accessors of {@code table}. */
  private static void assertReads(Object table, Descriptor message, Object model, String where) throws Exception {
    Class<?> gen = table.getClass();
    for (FieldDescriptor fd : message.getFields()) {
      String name = camel(fd.getName());
      String at = where + "." + name;
      Object expected = model instanceof List<?> row ? row : model.getClass().getMethod(name).invoke(model);
      if (fd.isRepeated()) {
        List<?> list = (List<?>) expected;
        // Written even when empty: the vector accessor is null only for an absent vector.
        Method vector = fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE
            ? gen.getMethod(name + "Vector") : null;
        if (vector != null) {
          assertNotNull(vector.invoke(table), at + " is written");
        }
        assertEquals(list.size(), (int) gen.getMethod(name + "Length").invoke(table), at + " length");
        for (int j = 0; j < list.size(); j++) {
          Object e = gen.getMethod(name, int.class).invoke(table, j);
          if (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
            assertReads(e, fd.getMessageType(), list.get(j), at + "[" + j + "]");
          } else {
            assertEquals(list.get(j), e, at + "[" + j + "]");
          }
        }
      } else if (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        Object sub = gen.getMethod(name).invoke(table);
        assertNotNull(sub, at + " is written");
        assertReads(sub, fd.getMessageType(), expected, at);
      } else {
        // An optional field is present exactly when set (even to its default); any other string
        // is written even when empty.
        boolean present = FlatBufferBuilder.isFieldPresent((com.google.flatbuffers.Table) table, 4 + 2 * fd.getIndex());
        if (fd.toProto().getProto3Optional()) {
          assertEquals(expected != null, present, at + " is present exactly when set");
        } else if (fd.getJavaType() == FieldDescriptor.JavaType.STRING) {
          assertTrue(present, at + " is written");
        }
        if (expected != null) {
          // Double.equals compares bits: -0.0 and NaN payloads included. An enum is its number.
          assertEquals(wire(fd, expected), gen.getMethod(name).invoke(table), at);
        }
      }
    }
  }

  /** A model value as flatc's classes carry it: an enum as its proto number. */
  private static Object wire(FieldDescriptor fd, Object value) {
    return fd.getJavaType() == FieldDescriptor.JavaType.ENUM
        ? fd.getEnumType().findValueByName(((Enum<?>) value).name()).getNumber() : value;
  }

  // --- The codec reads the generated builders' buffers ---------------------------------------------

  @Test
  void theCodecReadsABufferOfTheGeneratedBuilders() throws Exception {
    FlatBufferBuilder b = new FlatBufferBuilder();
    int beer = BeerRecord.createBeerRecord(b, 5.2, b.createString("Pilsner Urquell"), b.createString("Plzeňský "
        + "Prazdroj"), b.createString("Lager"), b.createString(""), b.createString("\r\n"), b.createString("é\u0000x"));
    int records = BeersDataset.createRecordsVector(b, new int[] {beer});
    b.finish(BeersDataset.createBeersDataset(b, records));
    byte[] payload = b.sizedByteArray();
    var expected = new Records<>(List.of(new dev.codecbench.worker.model.codecbench.v1.BeerRecord(5.2, "Pilsner Urquell",
        "Plzeňský Prazdroj", "Lager", "", "\r\n", "é\u0000x")));
    assertEquals(expected, FB.decodeTyped(TestDatasets.BEERS, payload));
    List<String> lazy = new ArrayList<>();
    FB.decodeLazy(TestDatasets.BEERS, payload, List.of("name", "details", "alcohol"), lazy::add);
    assertEquals(List.of("Pilsner Urquell", "é\u0000x", "5.2"), lazy);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("datasets")
  void theCodecReadsEveryDatasetWrittenByTheGeneratedBuilders(String datasetId) throws Exception {
    Dataset<?> d = Dataset.byId(datasetId).orElseThrow();
    Records<?> model = CanonicalVectors.canonical(d).model();
    FlatBufferBuilder b = new FlatBufferBuilder();
    b.finish(build(b, datasetMessage(d), model));
    byte[] payload = b.sizedByteArray();
    assertEquals(Optional.empty(), RecordDiff.firstDifference(cast(model), FB.decodeTyped(d, payload)));
  }

  @SuppressWarnings("unchecked")
  private static <R> Records<R> cast(Records<?> r) {
    return (Records<R>) r;
  }

  /** {@code model} written through the generated start/add/create*Vector/end functions. */
  private static int build(FlatBufferBuilder b, Descriptor message, Object model) throws Exception {
    Class<?> gen = generated(message);
    List<FieldDescriptor> fields = message.getFields();
    Object[] values = new Object[fields.size()];
    for (int i = 0; i < values.length; i++) {
      FieldDescriptor fd = fields.get(i);
      String name = camel(fd.getName());
      Object v = model instanceof List<?> row ? row : model.getClass().getMethod(name).invoke(model);
      if (fd.isRepeated()) {
        List<?> list = (List<?>) v;
        int[] offsets = new int[list.size()];
        for (int j = 0; j < offsets.length; j++) {
          Object e = list.get(j);
          offsets[j] = e instanceof String s ? b.createString(s) : build(b, fd.getMessageType(), e);
        }
        values[i] = gen.getMethod("create" + capital(name) + "Vector", FlatBufferBuilder.class, int[].class)
            .invoke(null, b, offsets);
      } else if (fd.getJavaType() == FieldDescriptor.JavaType.STRING) {
        values[i] = v == null ? null : b.createString((String) v);
      } else if (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        values[i] = build(b, fd.getMessageType(), v);
      } else {
        values[i] = v == null ? null : wire(fd, v);
      }
    }
    gen.getMethod("start" + message.getName(), FlatBufferBuilder.class).invoke(null, b);
    for (int i = 0; i < values.length; i++) {
      FieldDescriptor fd = fields.get(i);
      if (values[i] == null) {
        continue; // an unset optional field
      }
      if (fd.toProto().getProto3Optional() && fd.getJavaType() != FieldDescriptor.JavaType.STRING) {
        // flatc --proto drops `optional`: its add* would leave a set default out, so force it.
        if (values[i] instanceof Long l) {
          b.addLong(l);
        } else if (values[i] instanceof Double d) {
          b.addDouble(d);
        } else if (values[i] instanceof Boolean z) {
          b.addBoolean(z);
        } else {
          b.addInt((Integer) values[i]);
        }
        b.slot(i);
        continue;
      }
      Class<?> type = switch (fd.getJavaType()) {
        case LONG -> long.class;
        case DOUBLE -> double.class;
        case BOOLEAN -> boolean.class;
        default -> int.class; // int32 and every offset
      };
      gen.getMethod("add" + capital(camel(fd.getName())), FlatBufferBuilder.class, type).invoke(null, b, values[i]);
    }
    return (int) gen.getMethod("end" + message.getName(), FlatBufferBuilder.class).invoke(null, b);
  }

  private static Class<?> generated(Descriptor message) throws ClassNotFoundException {
    return Class.forName("codecbench.v1.fb." + message.getName()); // flatc: namespace codecbench.v1.fb (pom.xml)
  }

  private static String camel(String snake) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char c : snake.toCharArray()) {
      if (c == '_') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(c) : c);
        up = false;
      }
    }
    return b.toString();
  }

  private static String capital(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  // --- Wire shape ----------------------------------------------------------------------------------

  @Test
  void emptyStringsVectorsAndTablesAreWrittenAndDefaultScalarsOmitted() throws Exception {
    var owner = new OwnerRecord(0, "", 0L, "", 0, 7, 0, List.of());
    var root = OwnersDataset.getRootAsOwnersDataset(ByteBuffer.wrap(FB.encode(TestDatasets.OWNERS,
        new Records<>(List.of(owner)))));
    var r = root.records(0);
    assertEquals("", r.name(), "an empty string is still a string");
    assertNotNull(r.carsVector(), "an empty vector is still written");
    assertEquals(0, r.carsLength());
    // Slots 0 (uid), 2 (telephone) and 6 (tax_number) hold their defaults: omitted; 5 (id_number) is 7.
    assertFalse(FlatBufferBuilder.isFieldPresent(r, 4));
    assertFalse(FlatBufferBuilder.isFieldPresent(r, 8));
    assertFalse(FlatBufferBuilder.isFieldPresent(r, 16));
    assertTrue(FlatBufferBuilder.isFieldPresent(r, 14));
    assertEquals(7, r.idNumber());

    // A nested table whose fields are all empty is written too.
    var docs = CanonicalVectors.canonical(TestDatasets.DOCS).model().records().get(0);
    var emptyDelivery = new dev.codecbench.worker.model.codecbench.v1.DocRecord(docs.name(), docs.department(), docs.price(),
        docs.owner(), docs.data(), new dev.codecbench.worker.model.codecbench.v1.DocDelivery("",
            new dev.codecbench.worker.model.codecbench.v1.DocAddress("", "", "", "")), List.of());
    var d = DocsDataset.getRootAsDocsDataset(ByteBuffer.wrap(FB.encode(TestDatasets.DOCS, new Records<>(List.of(emptyDelivery)))))
        .records(0);
    assertNotNull(d.delivery());
    assertNotNull(d.delivery().address());
    assertEquals("", d.delivery().address().street());
    assertNotNull(d.goodsVector());
  }

  @Test
  void aTinyPayloadIsTheDatasetTableAsRootWithoutAFileIdentifier() throws Exception {
    byte[] payload = FB.encode(TestDatasets.MATRIX, new Records<>(List.of(List.of("a", ""))));
    String expected = String.join("",
        "04000000", // 0: uoffset to the root table (no file identifier after it)
        "eeffffff", // 4: MatrixDataset table: soffset -18, its vtable at 22
        "04000000", // 8: records -> the vector at 12
        "01000000", // 12: 1 record
        "0c000000", // 16: -> the MatrixRow table at 28
        "0000", "060008000400", // 20: padding; 22: vtable: 6 bytes, table of 8, field 0 at 4
        "06000000", // 28: MatrixRow table: its vtable at 22 (the same shape, shared)
        "04000000", // 32: cells -> the vector at 36
        "02000000", // 36: 2 cells
        "10000000", // 40: -> "a" at 56
        "04000000", // 44: -> "" at 48
        "00000000", "00000000", // 48: "" (length 0), its 0 terminator and padding
        "01000000", "61000000"); // 56: "a", its 0 terminator and padding
    assertEquals(expected, java.util.HexFormat.of().formatHex(payload));
    assertEquals(new Records<>(List.of(List.of("a", ""))), FB.decodeTyped(TestDatasets.MATRIX, payload));
  }

  @Test
  void negativeZeroNanAndExtremesKeepTheirBits() throws Exception {
    double nan = Double.longBitsToDouble(0x7ff8000000000123L);
    var records = new Records<>(List.of(new NumericRecord("", Integer.MIN_VALUE, Integer.MAX_VALUE,
        List.of(new NumericCoordinate(Long.MIN_VALUE, -0.0, nan), new NumericCoordinate(Long.MAX_VALUE, 5e-324, -Double.MAX_VALUE)))));
    byte[] payload = FB.encode(TestDatasets.NUMERIC, records);
    Records<NumericRecord> back = FB.decodeTyped(TestDatasets.NUMERIC, payload);
    assertEquals(records, back);
    NumericCoordinate c = back.records().get(0).coordinates().get(0);
    assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(c.latitude()));
    assertEquals(0x7ff8000000000123L, Double.doubleToRawLongBits(c.longitude()));
    // The generated adder drops -0.0 as a default (builder.addDouble(slot, x, 0.0) compares with ==):
    // why the codec writes a double field with addDouble(x) + slot() when its bits are not 0.
    FlatBufferBuilder b = new FlatBufferBuilder();
    codecbench.v1.fb.NumericCoordinate.startNumericCoordinate(b);
    codecbench.v1.fb.NumericCoordinate.addLatitude(b, -0.0);
    int t = codecbench.v1.fb.NumericCoordinate.endNumericCoordinate(b);
    b.finish(t);
    var generated = codecbench.v1.fb.NumericCoordinate.getRootAsNumericCoordinate(ByteBuffer.wrap(b.sizedByteArray()));
    assertEquals(0L, Double.doubleToRawLongBits(generated.latitude()));
  }

  @Test
  void textSurvivesByteForByte() throws Exception {
    String[] texts = {"", " ", "  lead and trail  ", "a\r\nb\rc\n", "\t", "\u0000", "é", "日本語", "😀 \uD83D\uDE00",
        "<&>\"'", "\u00a0"};
    for (String t : texts) {
      var records = new Records<>(List.of(new NumericRecord(t, 0, 0, List.of())));
      assertEquals(records, FB.decodeTyped(TestDatasets.NUMERIC, FB.encode(TestDatasets.NUMERIC, records)), t);
    }
    List<String> row = List.of("", "\r", " 1.5 ", "é");
    Records<List<String>> matrix = new Records<>(List.of(row));
    assertEquals(matrix, FB.decodeTyped(TestDatasets.MATRIX, FB.encode(TestDatasets.MATRIX, matrix)));
  }

  @Test
  void anUnpairedSurrogateCannotBeEncoded() {
    var records = new Records<>(List.of(new NumericRecord("\uD800", 0, 0, List.of())));
    CodecException e = assertThrows(CodecException.class, () -> FB.encode(TestDatasets.NUMERIC, records));
    assertTrue(e.getMessage().startsWith("flatbuffers encode: "), e.getMessage());
  }

  @Test
  void aNullInTheModelIsAnEncodeError() {
    var records = new Records<>(List.of(new NumericRecord(null, 0, 0, List.of())));
    CodecException e = assertThrows(CodecException.class, () -> FB.encode(TestDatasets.NUMERIC, records));
    assertEquals("flatbuffers encode: NumericRecord._id is null (FlatBuffers writes every string, vector and "
        + "table; the model has no null)", e.getMessage());
  }

  // --- Absent fields read as the proto defaults ----------------------------------------------------

  @Test
  void absentStringsVectorsAndTablesReadAsTheProtoDefaults() throws Exception {
    FlatBufferBuilder b = new FlatBufferBuilder();
    int company = b.createString("ACME");
    DocDelivery.startDocDelivery(b);
    DocDelivery.addCompany(b, company);
    int delivery = DocDelivery.endDocDelivery(b);
    int name = b.createString("n1");
    DocRecord.startDocRecord(b);
    DocRecord.addName(b, name);
    DocRecord.addDelivery(b, delivery);
    int first = DocRecord.endDocRecord(b);
    DocRecord.startDocRecord(b); // no fields at all
    int second = DocRecord.endDocRecord(b);
    b.finish(DocsDataset.createDocsDataset(b, DocsDataset.createRecordsVector(b, new int[] {first, second})));
    byte[] payload = b.sizedByteArray();

    var dflt = new dev.codecbench.worker.model.codecbench.v1.DocRecord("",
        new dev.codecbench.worker.model.codecbench.v1.DocDepartment("", 0L,
            new dev.codecbench.worker.model.codecbench.v1.DocEmployee("", "", "")),
        new dev.codecbench.worker.model.codecbench.v1.DocPrice("", "", ""),
        new dev.codecbench.worker.model.codecbench.v1.DocOwner("", ""),
        new dev.codecbench.worker.model.codecbench.v1.DocData(new dev.codecbench.worker.model.codecbench.v1.DocTransaction("", "", "")),
        new dev.codecbench.worker.model.codecbench.v1.DocDelivery("", new dev.codecbench.worker.model.codecbench.v1.DocAddress("", "", "", "")),
        List.of());
    var firstExpected = new dev.codecbench.worker.model.codecbench.v1.DocRecord("n1", dflt.department(), dflt.price(), dflt.owner(),
        dflt.data(), new dev.codecbench.worker.model.codecbench.v1.DocDelivery("ACME", dflt.delivery().address()), List.of());
    assertEquals(new Records<>(List.of(firstExpected, dflt)), FB.decodeTyped(TestDatasets.DOCS, payload));

    List<String> lazy = new ArrayList<>();
    FB.decodeLazy(TestDatasets.DOCS, payload, List.of("name", "delivery.company", "delivery.address.street",
        "department.time"), lazy::add);
    assertEquals(List.of("n1", "ACME", "", "0", "", "", "", "0"), lazy);

    // An absent records vector: no records.
    FlatBufferBuilder e = new FlatBufferBuilder();
    DocsDataset.startDocsDataset(e);
    e.finish(DocsDataset.endDocsDataset(e));
    assertEquals(List.of(), FB.decodeTyped(TestDatasets.DOCS, e.sizedByteArray()).records());
  }

  @Test
  void lazyReadsNumbersInDecimalAndRefusesATableOrVector() throws Exception {
    var dummy = CanonicalVectors.canonical(TestDatasets.DUMMY).model().records().get(0);
    byte[] payload = FB.encode(TestDatasets.DUMMY, new Records<>(List.of(dummy)));
    List<String> read = new ArrayList<>();
    FB.decodeLazy(TestDatasets.DUMMY, payload, List.of("_id", "index", "isActive", "balance", "latitude"), read::add);
    assertEquals(List.of(dummy.id(), Integer.toString(dummy.index()), Boolean.toString(dummy.isActive()),
        Double.toString(dummy.balance()), Double.toString(dummy.latitude())), read);
    assertEquals("flatbuffers lazy decode: field 'tags' is a vector, not a scalar or string",
        assertThrows(CodecException.class, () -> FB.decodeLazy(TestDatasets.DUMMY, payload, List.of("tags"), v -> {}))
            .getMessage());
    byte[] docs = FB.encode(TestDatasets.DOCS, CanonicalVectors.canonical(TestDatasets.DOCS).model());
    assertEquals("flatbuffers lazy decode: field 'delivery' is a table, not a scalar or string",
        assertThrows(CodecException.class, () -> FB.decodeLazy(TestDatasets.DOCS, docs, List.of("delivery"), v -> {}))
            .getMessage());
    assertEquals("flatbuffers lazy decode: record 0 has no field 'delivery.nothing'",
        assertThrows(CodecException.class, () -> FB.decodeLazy(TestDatasets.DOCS, docs, List.of("delivery.nothing"), v -> {}))
            .getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("datasets")
  void flatcsOwnVerifierAcceptsTheCodecsBuffers(String datasetId) throws Exception {
    // flatc (C++, with its Verifier) converts the codec's buffer to JSON: it accepts the buffer.
    Dataset<?> d = Dataset.byId(datasetId).orElseThrow();
    java.nio.file.Path fbs = java.nio.file.Path.of("target", "generated-sources", "flatbuffers-schema", "datasets.fbs");
    java.nio.file.Path out = java.nio.file.Files.createTempDirectory("flatc-json");
    java.nio.file.Path vector = out.resolve(datasetId + ".bin");
    java.nio.file.Files.write(vector, encode(d, CanonicalVectors.canonical(d).model()));
    Process p = new ProcessBuilder("flatc", "--json", "--strict-json", "--raw-binary", "--root-type",
        "codecbench.v1.fb." + datasetMessage(d).getName(), "-o", out.toString(), fbs.toString(), "--", vector.toString())
        .redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), output);
    assertTrue(java.nio.file.Files.size(out.resolve(datasetId + ".json")) > 0);
  }
}
