package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bounded fuzzing of every registered codec's decode, in every mode it announces, called as a
 * decode trial calls it (Trial.decode): {@link Codec#validate} first, then typed = decodeTyped,
 * tree = decodeTree and the verification's treeToRecords, lazy = decodeLazy with the dataset's
 * lazy fields, streaming = decodeStreaming over 4 KiB reads. Inputs: the codec's own payloads of a few records of each dataset, mutated (bit
 * flips, byte overwrites, large length-like values, truncation, insertion, deletion, duplication,
 * splices of two payloads), plus random bytes. Each input either decodes or fails with a
 * CodecException carrying the codec's message; no other exception or Error escapes, no call runs
 * longer than {@link #CASE_BOUND_MS}, and none allocates more than {@link #ALLOC_BOUND} bytes (a
 * corrupt length must not make the codec allocate what the payload cannot hold).
 *
 * <p>{@code CODECBENCH_FUZZ_CASES} sets the inputs per codec (default 10,000; each goes through
 * every mode), {@code CODECBENCH_FUZZ_SEED} the seed (a fixed default: the run is repeatable).
 */
class CodecFuzzTest {
  static final int CASES = intEnv("CODECBENCH_FUZZ_CASES", 10_000);
  static final long SEED = longEnv("CODECBENCH_FUZZ_SEED", 0xC0DECBE4CL);
  static final long CASE_BOUND_MS = 5_000;
  static final long ALLOC_BOUND = 16L << 20;
  /** Records per seed payload (a few: mutations then reach every part of a payload). */
  private static final int SEED_RECORDS = 3;
  private static final int MAX_FAILURES_SHOWN = 8;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final CodecRegistry CODECS = new CodecRegistry();
  private static ExecutorService runner;

  @BeforeAll
  static void start() {
    assertTrue(THREADS.isThreadAllocatedMemorySupported(), "this JVM cannot count a thread's allocations");
    THREADS.setThreadAllocatedMemoryEnabled(true);
    runner = newRunner();
  }

  @AfterAll
  static void stop() {
    runner.shutdownNow();
  }

  private static ExecutorService newRunner() {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "codec-fuzz");
      t.setDaemon(true); // a hung decode must not keep the test JVM alive
      return t;
    });
  }

  static Stream<String> codecs() {
    return CODECS.all().stream().map(Codec::id);
  }

  /** One input: its bytes and the dataset whose shape typed and lazy decodes read. */
  record Input(Dataset<?> dataset, byte[] bytes, String how) {}

  /** What one call did. */
  record Result(String kind, Throwable thrown, long allocated) {
    static final String DECODED = "decoded";
    static final String REJECTED = "rejected";
  }

  /** The worker's decode in {@code mode} (Trial.decode: validate, then the mode's entry). */
  static void decodeAsTheWorkerDoes(Codec codec, String mode, Dataset<?> dataset, byte[] payload)
      throws CodecException {
    codec.validate(payload);
    switch (mode) {
      case Codec.TYPED -> codec.decodeTyped(dataset, payload);
      case Codec.TREE -> codec.treeToRecords(dataset, codec.decodeTree(payload));
      case Codec.LAZY -> codec.decodeLazy(dataset, payload, CanonicalVectors.LAZY_FIELDS.get(dataset.id()), v -> {});
      case Codec.STREAMING -> codec.decodeStreaming(dataset, new Streams.Chunked(payload), r -> {});
      default -> throw new IllegalArgumentException("decode mode " + mode);
    }
  }

  /** Runs one call on the fuzz thread, bounded in time; counts what that thread allocated. */
  static Result run(Codec codec, String mode, Input in) throws InterruptedException {
    Future<Result> f = runner.submit(() -> {
      long before = THREADS.getCurrentThreadAllocatedBytes();
      String kind;
      Throwable thrown = null;
      try {
        decodeAsTheWorkerDoes(codec, mode, in.dataset(), in.bytes());
        kind = Result.DECODED;
      } catch (CodecException e) {
        kind = Result.REJECTED;
        thrown = e;
      } catch (Throwable t) {
        kind = "escaped " + t.getClass().getName();
        thrown = t;
      }
      return new Result(kind, thrown, THREADS.getCurrentThreadAllocatedBytes() - before);
    });
    try {
      return f.get(CASE_BOUND_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      runner.shutdownNow();
      runner = newRunner(); // the old thread may stay stuck; later calls get a fresh one
      return new Result("hang (over " + CASE_BOUND_MS + " ms)", null, 0);
    } catch (ExecutionException e) {
      return new Result("escaped " + e.getCause(), e.getCause(), 0);
    }
  }

  /** Why a result breaks the contract, or empty. */
  static Optional<String> problem(Codec codec, Result r) {
    if (r.allocated() > ALLOC_BOUND) {
      return Optional.of("allocated " + r.allocated() + " bytes (bound " + ALLOC_BOUND + ")");
    }
    for (Throwable t = r.thrown(); t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError) {
        return Optional.of("ran out of memory: " + t);
      }
    }
    if (r.kind().equals(Result.DECODED)) {
      return Optional.empty();
    }
    if (r.kind().equals(Result.REJECTED)) {
      String m = r.thrown().getMessage();
      return m != null && m.startsWith(codec.id() + " ") ? Optional.empty()
          : Optional.of("CodecException without the codec's message: " + m);
    }
    return Optional.of(r.kind() + (r.thrown() == null ? "" : ": " + r.thrown()));
  }

  /** The codec's own payloads of a few records of every dataset: they must all decode. */
  static List<Input> seeds(Codec codec) throws Exception {
    List<Input> out = new ArrayList<>();
    for (Dataset<?> d : Dataset.all()) {
      addSeeds(codec, CanonicalVectors.canonical(d), out);
    }
    return out;
  }

  private static <R> void addSeeds(Codec codec, Canonical<R> canonical, List<Input> out) throws Exception {
    List<R> all = canonical.model().records();
    int mid = all.size() / 2;
    for (List<R> slice : List.of(all.subList(0, SEED_RECORDS), all.subList(mid, mid + 1))) {
      Records<R> records = new Records<>(List.copyOf(slice));
      byte[] payload = codec.encode(canonical.dataset(), records);
      // A seed that does not decode would make every mutation of it a trivial rejection.
      Optional<String> diff = RecordDiff.firstDifference(records, codec.decodeTyped(canonical.dataset(), payload));
      assertEquals(Optional.empty(), diff, codec.id() + " " + canonical.dataset().id() + " seed");
      out.add(new Input(canonical.dataset(), payload, "seed " + canonical.dataset().id()));
    }
  }

  /** Large values where a length or count may be: little and big endian, and as a varint. */
  private static final byte[][] LENGTHS = {
    {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}, {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},
    {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}, {0, 0, 0, (byte) 0x80}, {(byte) 0x80, 0, 0, 0},
    {(byte) 0xf0, (byte) 0xff, (byte) 0xff, 0x3f}, {0x3f, (byte) 0xff, (byte) 0xff, (byte) 0xf0},
    {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07}, {(byte) 0xff, (byte) 0xff, (byte) 0x7f},
  };

  /** A mutation of a seed (1 to 4 stacked changes) or, one time in ten, random bytes. */
  static Input mutate(Random rnd, List<Input> seeds) {
    if (rnd.nextInt(10) == 0) {
      byte[] b = new byte[rnd.nextInt(257)];
      rnd.nextBytes(b);
      return new Input(Dataset.all().get(rnd.nextInt(Dataset.all().size())), b, "random");
    }
    Input seed = seeds.get(rnd.nextInt(seeds.size()));
    byte[] b = seed.bytes();
    StringBuilder how = new StringBuilder(seed.how());
    for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
      int op = rnd.nextInt(8);
      int at = b.length == 0 ? 0 : rnd.nextInt(b.length);
      switch (op) {
        case 0 -> {
          if (b.length > 0) {
            b = b.clone();
            b[at] ^= (byte) (1 << rnd.nextInt(8));
            how.append(", bit flip");
          }
        }
        case 1 -> {
          if (b.length > 0) {
            b = b.clone();
            b[at] = (byte) rnd.nextInt(256);
            how.append(", byte set");
          }
        }
        case 2 -> {
          byte[] v = LENGTHS[rnd.nextInt(LENGTHS.length)];
          b = Arrays.copyOf(b, Math.max(b.length, at + v.length));
          System.arraycopy(v, 0, b, at, v.length);
          how.append(", large value");
        }
        case 3 -> {
          b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
          how.append(", truncation");
        }
        case 4 -> {
          byte[] ins = new byte[1 + rnd.nextInt(8)];
          rnd.nextBytes(ins);
          b = splice(b, at, at, ins);
          how.append(", insertion");
        }
        case 5 -> {
          int len = Math.min(b.length - at, 1 + rnd.nextInt(16));
          b = splice(b, at, at + len, new byte[0]);
          how.append(", deletion");
        }
        case 6 -> {
          int len = Math.min(b.length - at, 1 + rnd.nextInt(32));
          byte[] chunk = Arrays.copyOfRange(b, at, at + len);
          int to = rnd.nextInt(b.length + 1);
          b = splice(b, to, to, chunk);
          how.append(", duplication");
        }
        default -> {
          // A prefix of this payload and a suffix of another (of the same codec).
          byte[] other = seeds.get(rnd.nextInt(seeds.size())).bytes();
          int from = rnd.nextInt(other.length + 1);
          b = splice(Arrays.copyOf(b, at), at, at, Arrays.copyOfRange(other, from, other.length));
          how.append(", splice");
        }
      }
    }
    return new Input(seed.dataset(), b, how.toString());
  }

  private static byte[] splice(byte[] b, int from, int to, byte[] insert) {
    byte[] out = new byte[b.length - (to - from) + insert.length];
    System.arraycopy(b, 0, out, 0, from);
    System.arraycopy(insert, 0, out, from, insert.length);
    System.arraycopy(b, to, out, from + insert.length, b.length - to);
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void decodeOfMutatedAndRandomInputEitherSucceedsOrFailsWithTheCodecsError(String id) throws Exception {
    Codec codec = CODECS.byId(id).orElseThrow();
    List<Input> seeds = seeds(codec);
    // The seeds decode in every mode: the fuzz starts from payloads the worker accepts.
    for (Input s : seeds) {
      for (String mode : codec.decodeModes()) {
        Result r = run(codec, mode, s);
        assertEquals(Result.DECODED, r.kind(), id + " " + mode + " " + s.how() + ": " + r.thrown());
      }
    }
    Random rnd = new Random(SEED ^ id.hashCode());
    Map<String, int[]> counts = new LinkedHashMap<>();
    codec.decodeModes().forEach(m -> counts.put(m, new int[2]));
    List<String> failures = new ArrayList<>();
    int failed = 0;
    long start = System.nanoTime();
    for (int i = 0; i < CASES; i++) {
      Input in = mutate(rnd, seeds);
      for (String mode : codec.decodeModes()) {
        Result r = run(codec, mode, in);
        counts.get(mode)[r.kind().equals(Result.DECODED) ? 0 : 1]++;
        Optional<String> p = problem(codec, r);
        if (p.isPresent()) {
          failed++;
          if (failures.size() < MAX_FAILURES_SHOWN) {
            byte[] small = minimise(codec, mode, in, r);
            failures.add("case " + i + " (" + in.how() + ", dataset " + in.dataset().id() + ") " + mode + ": "
                + p.get() + "\n    input (" + in.bytes().length + " bytes, minimised to " + small.length + "): "
                + HexFormat.of().formatHex(small));
          }
        }
      }
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    StringBuilder line = new StringBuilder("fuzz " + id + ": " + CASES + " cases (seed 0x" + Long.toHexString(SEED)
        + ", " + seeds.size() + " seed payloads) in " + ms + " ms;");
    counts.forEach((m, c) -> line.append(' ').append(m).append(' ').append(c[0] + c[1]).append(" run (")
        .append(c[0]).append(" decoded, ").append(c[1]).append(" rejected);"));
    System.out.println(line);
    if (failed > 0) {
      fail(id + ": " + failed + " calls broke the contract; the first ones:\n  " + String.join("\n  ", failures));
    }
  }

  /**
   * Inputs whose one string, binary or container declares 2^31-1 bytes or elements (or 2^32-1) in a
   * payload of a few bytes: the decode must reject them without allocating what they declare.
   */
  static Stream<org.junit.jupiter.params.provider.Arguments> hugeDeclaredLengths() {
    HexFormat hex = HexFormat.of();
    Map<String, List<String>> byCodec = new LinkedHashMap<>();
    // {"records": string of 0x7fffffff bytes}; the same as a binary.
    byCodec.put("bson", List.of("1400000002" + "7265636f72647300" + "ffffff7f" + "780000",
        "1500000005" + "7265636f72647300" + "ffffff7f" + "00" + "780000"));
    // records (field 1, length-delimited) of 2^31-1 and 2^32-1 bytes.
    byCodec.put("protobuf", List.of("0affffffff07" + "0102", "0affffffff0f" + "0102"));
    // {"records": S of 0x7fffffff bytes}; an array of 0x7fffffff values; a typed int8 array;
    // an object of 0x7fffffff entries; a string of int64 length 2^62.
    byCodec.put("ubjson", List.of("7b6907" + "7265636f726473" + "536c7fffffff" + "616263" + "7d",
        "7b6907" + "7265636f726473" + "5b236c7fffffff" + "6901" + "7d",
        "7b6907" + "7265636f726473" + "5b2469236c7fffffff" + "01" + "7d",
        "7b236c7fffffff" + "6901" + "61" + "6901",
        "7b6907" + "7265636f726473" + "534c4000000000000000" + "616263" + "7d",
        // Found by this fuzz (minimised): a key length 0x194c6973 in a 31-byte payload (1.8 GB).
        "7b55077265636f7264735b7b550761646573735355194c6973626f6b7d6d7d",
        // An unknown marker ('H', which UBReader reads as a null value).
        "7b6907" + "7265636f726473" + "5b48" + "5d7d"));
    // {"records": str32, bin32, array32, map32 of 0x7fffffff}.
    byCodec.put("msgpack", List.of("81a7" + "7265636f726473" + "db7fffffff" + "616263",
        "81a7" + "7265636f726473" + "c67fffffff" + "616263",
        "81a7" + "7265636f726473" + "dd7fffffff" + "01",
        "81a7" + "7265636f726473" + "df7fffffff" + "a16101",
        "81a7" + "7265636f726473" + "c97fffffff01" + "616263",
        // Found by this fuzz (minimised): bin32 of 0x781eb71d bytes (2 GB), ext32 in an array16.
        "c6781eb71d", "9dc9082619e2c5",
        // ... and a str32 of 0x474dff8b bytes after the payload's value (read to reject it).
        "44db474dff8b"));
    // {"records": text, bytes, array, map of 0x7fffffff; text and array of 2^63-1}; a chunk of
    // 0x7fffffff bytes in an indefinite-length text; a run of 20,000 tags (Jackson: 100 MB).
    byCodec.put("cbor", List.of("a1" + "677265636f726473" + "7a7fffffff" + "616263",
        "a1" + "677265636f726473" + "5a7fffffff" + "616263",
        "a1" + "677265636f726473" + "9a7fffffff" + "01",
        "a1" + "677265636f726473" + "ba7fffffff" + "616101",
        "a1" + "677265636f726473" + "7b7fffffffffffffff" + "616263",
        "a1" + "677265636f726473" + "9b7fffffffffffffff" + "01",
        "a1" + "677265636f726473" + "7f7a7fffffff" + "61ff",
        "c1".repeat(20_000) + "a1" + "677265636f726473" + "80"));
    // xml declares no lengths; its blow-ups are entity expansion (a billion laughs: 10^9 bytes
    // from a 300-byte DOCTYPE) and nesting 100,000 elements deep (inside a string field, in an
    // unknown element Jackson skips, and in a matrix row's cell).
    StringBuilder laughs = new StringBuilder("<!DOCTYPE payload [<!ENTITY a0 \"ha\">");
    for (int i = 1; i < 10; i++) {
      laughs.append("<!ENTITY a").append(i).append(" \"").append(("&a" + (i - 1) + ";").repeat(10)).append("\">");
    }
    laughs.append("]><payload><records><_id>&a9;</_id></records></payload>");
    String deep = "<a>".repeat(100_000);
    byCodec.put("xml", Stream.of(laughs.toString(), "<payload><records><_id>" + deep,
            "<payload><records><unknown>" + deep, "<payload><records><cells>" + deep,
            "<payload>" + "<records>".repeat(100_000))
        .map(x -> hex.formatHex(x.getBytes(java.nio.charset.StandardCharsets.UTF_8))).toList());
    // flatbuffers: a *Dataset root table whose records vector declares 2^31-1 and 2^32-1 elements;
    // then one record whose first three slots all point (offset 8 in a table of 16) to a string or
    // vector declaring 2^31-1 and 2^32-1 bytes or elements (the first string or vector field of
    // every dataset's record lies in slots 0 to 2; beers' slot 0 is a double, read from there).
    String fbRoot = "0c000000" + "0600080004000000" + "08000000" + "04000000";
    String fbRecord = fbRoot + "01000000" + "10000000" + "0a001000080008000800" + "0000" + "0c000000" + "00000000"
        + "08000000" + "00000000";
    byCodec.put("flatbuffers", List.of(fbRoot + "ffffff7f" + "00000000", fbRoot + "ffffffff" + "00000000",
        fbRecord + "ffffff7f" + "00000000", fbRecord + "ffffffff" + "00000000"));
    List<org.junit.jupiter.params.provider.Arguments> out = new ArrayList<>();
    for (Codec c : CODECS.all()) {
      for (String h : byCodec.getOrDefault(c.id(), List.of())) {
        for (String mode : c.decodeModes()) {
          out.add(org.junit.jupiter.params.provider.Arguments.of(c.id(), mode, hex.parseHex(h)));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("hugeDeclaredLengths")
  void aHugeDeclaredLengthIsRejectedWithoutAllocatingIt(String id, String mode, byte[] input) throws Exception {
    Codec codec = CODECS.byId(id).orElseThrow();
    for (Dataset<?> d : Dataset.all()) {
      Result r = run(codec, mode, new Input(d, input, "huge length"));
      assertEquals(Optional.empty(), problem(codec, r), id + " " + mode + " " + d.id());
      assertEquals(Result.REJECTED, r.kind(), id + " " + mode + " " + d.id());
    }
  }

  /**
   * A smaller input that still breaks the contract the same way (same kind of result), by
   * removing chunks while it does: for a regression test. Hangs are not minimised (too slow).
   */
  static byte[] minimise(Codec codec, String mode, Input in, Result first) throws InterruptedException {
    if (first.kind().startsWith("hang")) {
      return in.bytes();
    }
    byte[] b = in.bytes();
    int budget = 2_000;
    for (int chunk = Math.max(1, b.length / 2); chunk >= 1 && budget > 0; chunk /= 2) {
      for (int at = 0; at + chunk <= b.length && budget > 0; budget--) {
        byte[] smaller = splice(b, at, at + chunk, new byte[0]);
        Result r = run(codec, mode, new Input(in.dataset(), smaller, in.how()));
        if (r.kind().equals(first.kind()) && problem(codec, r).isPresent()) {
          b = smaller;
        } else {
          at += chunk;
        }
      }
    }
    return b;
  }

  private static int intEnv(String name, int dflt) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < 0) {
        throw new NumberFormatException("negative");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + "=" + v + " is not a case count (a whole number >= 0)");
    }
  }

  private static long longEnv(String name, long dflt) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      return Long.decode(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + "=" + v + " is not a seed (a decimal or 0x hex integer)");
    }
  }
}
