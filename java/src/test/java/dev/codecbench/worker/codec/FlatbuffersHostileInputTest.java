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
 * The flatbuffers codec on hostile input: flatbuffers-java has no verifier, so the codec checks
 * every offset, length, terminator, alignment and bool as it reads (FlatbuffersBuffer), and a decode
 * reads at most 4x the buffer. Each check is made to fail on a corrupted buffer, with its message.
 */
class FlatbuffersHostileInputTest {
  private static final Codec FB = new CodecRegistry().byId("flatbuffers").orElseThrow();

  /** Positions in a buffer, read as the format says (for making corruptions). */
  private record Layout(ByteBuffer bb) {
    static Layout of(byte[] payload) {
      return new Layout(ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN));
    }

    int target(int at) {
      return at + bb.getInt(at);
    }

    /** Absolute position of field {@code slot} of the table at {@code table}, 0 when absent. */
    int field(int table, int slot) {
      int vtable = table - bb.getInt(table);
      int o = 4 + 2 * slot < bb.getShort(vtable) ? bb.getShort(vtable + 4 + 2 * slot) : 0;
      return o == 0 ? 0 : table + o;
    }

    int root() {
      return target(0);
    }

    /** The records vector's position (its length word). */
    int records() {
      return target(field(root(), 0));
    }

    int record(int i) {
      return target(records() + 4 + 4 * i);
    }
  }

  private static byte[] beers() throws CodecException {
    return FB.encode(TestDatasets.BEERS, new Records<>(List.of(
        new dev.codecbench.worker.model.codecbench.v1.BeerRecord(4.5, "Name", "By", "Style", "Always", "Glass", "Details"))));
  }

  private static String typedError(Dataset<?> d, byte[] payload) {
    return assertThrows(CodecException.class, () -> FB.decodeTyped(d, payload)).getMessage();
  }

  private static String lazyError(Dataset<?> d, byte[] payload, String... fields) {
    return assertThrows(CodecException.class, () -> FB.decodeLazy(d, payload, List.of(fields), v -> {})).getMessage();
  }

  @Test
  void truncatedEmptyOrPaddedBuffersAreRejected() throws Exception {
    byte[] good = beers();
    assertEquals("flatbuffers decode: payload of 0 bytes has no root offset", typedError(TestDatasets.BEERS, new byte[0]));
    assertEquals("flatbuffers decode: payload of " + (good.length - 1) + " bytes is not a whole number of 4-byte words "
        + "(a finished FlatBuffer is padded to its alignment): truncated or padded",
        typedError(TestDatasets.BEERS, Arrays.copyOf(good, good.length - 1)));
    byte[] half = Arrays.copyOf(good, good.length / 2 / 4 * 4);
    String m = typedError(TestDatasets.BEERS, half);
    assertTrue(m.startsWith("flatbuffers decode: records[0]"), m);
    assertTrue(m.contains("past the end of the " + half.length + "-byte buffer")
        || m.contains("outside the " + half.length + "-byte buffer")
        || m.contains("inside the " + half.length + "-byte buffer"), m);
  }

  @Test
  void aRootOffsetPastTheEndIsRejected() throws Exception {
    byte[] p = beers();
    ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).putInt(0, p.length);
    assertEquals("flatbuffers decode: root offset at byte 0 points to byte " + p.length + ", past the end of the "
        + p.length + "-byte buffer", typedError(TestDatasets.BEERS, p));
    assertEquals("flatbuffers lazy decode: root offset at byte 0 points to byte " + p.length + ", past the end of the "
        + p.length + "-byte buffer", lazyError(TestDatasets.BEERS, p, "name"));
  }

  @Test
  void aHugeVectorLengthIsRejectedBeforeAnythingIsSizedByIt() throws Exception {
    byte[] p = beers();
    Layout l = Layout.of(p);
    int vector = l.records();
    l.bb().putInt(vector, Integer.MAX_VALUE);
    String expected = "vector at byte " + vector + " declares 2147483647 elements of 4 bytes, past the end of the "
        + p.length + "-byte buffer";
    assertEquals("flatbuffers decode: records: " + expected, typedError(TestDatasets.BEERS, p));
    assertEquals("flatbuffers lazy decode: records: " + expected, lazyError(TestDatasets.BEERS, p, "name"));
    l.bb().putInt(vector, -1);
    assertTrue(typedError(TestDatasets.BEERS, p).contains("declares 4294967295 elements"));
  }

  @Test
  void stringsAreCheckedForLengthTerminatorAndUtf8() throws Exception {
    byte[] good = beers();
    Layout l = Layout.of(good);
    int name = l.target(l.field(l.record(0), 1)); // BeerRecord slot 1: name ("Name")
    assertEquals(4, l.bb().getInt(name));

    byte[] p = good.clone();
    Layout.of(p).bb().putInt(name, 0x7fffffff);
    String huge = "records[0].name: string at byte " + name + " declares 2147483647 bytes; with its 0 terminator "
        + "that runs past the end of the " + p.length + "-byte buffer";
    assertEquals("flatbuffers decode: " + huge, typedError(TestDatasets.BEERS, p));
    assertEquals("flatbuffers lazy decode: " + huge, lazyError(TestDatasets.BEERS, p, "name"));

    p = good.clone();
    p[name + 4 + 4] = 'x';
    assertEquals("flatbuffers decode: records[0].name: string at byte " + name + " of 4 bytes has no 0 terminator",
        typedError(TestDatasets.BEERS, p));

    p = good.clone();
    p[name + 4] = (byte) 0xff;
    assertEquals("flatbuffers decode: records[0].name: string at byte " + name + " is not valid UTF-8",
        typedError(TestDatasets.BEERS, p));
    assertEquals("flatbuffers lazy decode: records[0].name: string at byte " + name + " is not valid UTF-8",
        lazyError(TestDatasets.BEERS, p, "name"));
  }

  @Test
  void tablesVtablesFieldsAndBoolsAreChecked() throws Exception {
    byte[] good = beers();
    Layout l = Layout.of(good);
    int record = l.record(0);

    byte[] p = good.clone();
    p[record + 3] = 0x42; // the soffset to the vtable, a gigabyte off
    String m = typedError(TestDatasets.BEERS, p);
    assertTrue(m.startsWith("flatbuffers decode: records[0]: table at byte " + record + " has its vtable at byte "), m);
    assertTrue(m.endsWith(", outside the " + p.length + "-byte buffer"), m);

    p = good.clone();
    int vtable = record - Layout.of(p).bb().getInt(record);
    Layout.of(p).bb().putShort(vtable + 2, (short) 0x7ff0); // the table's size
    assertEquals("flatbuffers decode: records[0]: table at byte " + record + " declares 32752 bytes (from 4, inside the "
        + p.length + "-byte buffer)", typedError(TestDatasets.BEERS, p));

    p = good.clone();
    Layout.of(p).bb().putShort(vtable + 4 + 2 * 1, (short) 200); // name's offset, past the table's end
    int size = Layout.of(p).bb().getShort(vtable + 2);
    assertEquals("flatbuffers decode: records[0].name: field at offset 200 of 4 bytes lies outside its table of "
        + size + " bytes at byte " + record, typedError(TestDatasets.BEERS, p));

    var active = new DummyRecord("a", 0, "g", true, 0, "", 0, "", "", "", "", "", "", "", "", "", 0, 0, List.of(),
        List.of(), "", "");
    byte[] d = FB.encode(TestDatasets.DUMMY, new Records<>(List.of(active)));
    Layout dl = Layout.of(d);
    int isActive = dl.field(dl.record(0), 3);
    assertEquals(1, d[isActive]);
    d[isActive] = 2;
    assertEquals("flatbuffers decode: records[0].isActive: bool at byte " + isActive + " is 2, not 0 or 1",
        typedError(TestDatasets.DUMMY, d));
  }

  @Test
  void sharedObjectsReadOverAndOverAreBounded() throws Exception {
    // One record with a 4 KiB name, referenced 1,000 times: a 8 KiB buffer that would read as 4 MB.
    String big = "x".repeat(4096);
    FlatBufferBuilder b = new FlatBufferBuilder();
    int beer = BeerRecord.createBeerRecord(b, 1, b.createString(big), b.createString(""), b.createString(""),
        b.createString(""), b.createString(""), b.createString(""));
    int[] same = new int[1000];
    Arrays.fill(same, beer);
    b.finish(BeersDataset.createBeersDataset(b, BeersDataset.createRecordsVector(b, same)));
    byte[] bomb = b.sizedByteArray();
    assertTrue(bomb.length < 9000, "" + bomb.length);
    String refused = "the buffer's objects read so far add up to more than " + FlatbuffersCodec.SHARING
        + " times its " + bomb.length + " bytes (objects shared over and over); refused";
    String typed = typedError(TestDatasets.BEERS, bomb);
    assertTrue(typed.startsWith("flatbuffers decode: records[") && typed.endsWith(refused), typed);
    String lazy = lazyError(TestDatasets.BEERS, bomb, "name", "details");
    assertTrue(lazy.startsWith("flatbuffers lazy decode: records[") && lazy.endsWith(refused), lazy);

    // A little sharing (the same record twice) reads.
    FlatBufferBuilder s = new FlatBufferBuilder();
    int one = BeerRecord.createBeerRecord(s, 1, s.createString("n"), s.createString(""), s.createString(""),
        s.createString(""), s.createString(""), s.createString(""));
    s.finish(BeersDataset.createBeersDataset(s, BeersDataset.createRecordsVector(s, new int[] {one, one})));
    assertEquals(2, FB.decodeTyped(TestDatasets.BEERS, s.sizedByteArray()).records().size());
  }
}
