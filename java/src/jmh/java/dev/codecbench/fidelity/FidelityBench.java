package dev.codecbench.fidelity;

import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecException;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fidelity benches (issue 9 item 7): JMH times exactly the {@link Codec} calls the Java worker
 * times, {@code encode} of the native model and {@code decodeTyped} of the Rust producer's
 * payload, so {@code codecbench fidelity} can put JMH's figure beside codecbench's for the same
 * cell.
 *
 * <p>Data: the canonical blob of (dataset, 1000 records, seed 1) and the Rust payloads, as the
 * Rust fidelity bench writes them into {@code $CODECBENCH_FIDELITY_DIR} (the records control
 * would ship and the bytes the rust to java cells decode). Both are verified before timing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 10, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(2)
public class FidelityBench {
  static final int COUNT = 1000;
  static final int SEED = 1;

  @Param({"dummy", "numeric"})
  public String dataset;

  @Param({"json", "bson", "protobuf"})
  public String codec;

  private Codec impl;
  private Dataset<Object> data;
  private Records<Object> records;
  private byte[] payload;

  @Setup(Level.Trial)
  @SuppressWarnings("unchecked")
  public void setup() throws IOException, CodecException {
    String dir = System.getenv("CODECBENCH_FIDELITY_DIR");
    if (dir == null || dir.isEmpty()) {
      throw new IllegalStateException("CODECBENCH_FIDELITY_DIR is not set: run the Rust fidelity bench "
          + "first (it writes the canonical blobs and payloads there), e.g. via `make fidelity`");
    }
    String stem = dataset + "-" + COUNT + "-" + SEED;
    impl = new CodecRegistry().byId(codec)
        .orElseThrow(() -> new IllegalArgumentException("no codec " + codec + " in the Java registry"));
    data = (Dataset<Object>) Dataset.byId(dataset)
        .orElseThrow(() -> new IllegalArgumentException("no dataset " + dataset));
    Canonical<Object> canonical = data.parseCanonical(read(Path.of(dir, stem + ".pb")));
    records = canonical.model();
    if (records.records().size() != COUNT) {
      throw new IllegalStateException(stem + ".pb holds " + records.records().size() + " records, not " + COUNT);
    }
    payload = read(Path.of(dir, stem + "." + codec + ".rust"));
    // The same checks the worker makes before timing: both directions give the canonical records.
    check("the Rust payload", impl.decodeTyped(data, payload));
    check("Java's own payload", impl.decodeTyped(data, impl.encode(data, records)));
  }

  private void check(String what, Records<Object> decoded) {
    Optional<String> diff = RecordDiff.firstDifference(records, decoded);
    if (diff.isPresent()) {
      throw new IllegalStateException(dataset + " " + codec + ": " + what + " does not decode to the "
          + "canonical records: " + diff.get());
    }
  }

  private static byte[] read(Path path) throws IOException {
    if (!Files.isRegularFile(path)) {
      throw new IOException(path + " is missing: run the Rust fidelity bench first (`make fidelity`)");
    }
    return Files.readAllBytes(path);
  }

  @Benchmark
  public byte[] encode() throws CodecException {
    return impl.encode(data, records);
  }

  @Benchmark
  public Records<Object> decodeTyped() throws CodecException {
    return impl.decodeTyped(data, payload);
  }
}
