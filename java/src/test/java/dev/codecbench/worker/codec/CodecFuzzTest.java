package dev.codecbench.worker.codec;

import static dev.codecbench.worker.codec.BoundedDecode.problem;
import static dev.codecbench.worker.codec.BoundedDecode.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.codec.BoundedDecode.Input;
import dev.codecbench.worker.codec.BoundedDecode.Result;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bounded fuzzing of every registered codec's decode, in every mode it announces, called as a
 * decode trial calls it ({@link BoundedDecode}). Inputs: the codec's own payloads of a few records
 * of each dataset, mutated (bit flips, byte overwrites, large length-like values, truncation,
 * insertion, deletion, duplication, splices of two payloads), plus random bytes. Each input either
 * decodes or fails with a CodecException carrying the codec's message; no other exception or Error
 * escapes, no call runs longer than {@link BoundedDecode#CASE_BOUND_MS}, and none allocates more
 * than {@link BoundedDecode#ALLOC_BOUND} bytes. The fixed hostile inputs (huge declared lengths,
 * deep nesting) are codecs/fixtures.yaml's, run by {@link FixturesTest}.
 *
 * <p>{@code CODECBENCH_FUZZ_CASES} sets the inputs per codec (default 10,000; each goes through
 * every mode), {@code CODECBENCH_FUZZ_SEED} the seed (a fixed default: the run is repeatable).
 */
class CodecFuzzTest {
  static final int CASES = intEnv("CODECBENCH_FUZZ_CASES", 10_000);
  static final long SEED = longEnv("CODECBENCH_FUZZ_SEED", 0xC0DECBE4CL);
  /** Records per seed payload (a few: mutations then reach every part of a payload). */
  private static final int SEED_RECORDS = 3;
  private static final int MAX_FAILURES_SHOWN = 8;

  private static final CodecRegistry CODECS = new CodecRegistry();

  static Stream<String> codecs() {
    return CODECS.all().stream().map(Codec::id);
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
