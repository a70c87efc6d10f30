package dev.codecbench.worker;

import codecbench.v1.Results.Measurement;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.bench.Laps;
import dev.codecbench.worker.bench.Sample;
import dev.codecbench.worker.bench.Sampler;
import dev.codecbench.worker.bench.Sampling;
import dev.codecbench.worker.bench.Sink;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecException;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One trial (proto/README.md "Trials"): canonical bytes to the model, verification, then steady
 * state and timed rounds of the task's encode or decode. The child JVM ({@link TrialMain}) runs
 * this once and exits; blob I/O and reporting stay in the attached JVM ({@link TaskRunner}).
 */
public final class Trial {
  /**
   * What a trial returns: its measurement(s), a failure message or "", an encode's payload, its
   * phases (load, verify, warmup, rounds, other; ms) so far, and the CPUs the process it ran in was
   * allowed on (ReportResultRequest.trial_cpus; "" where not known).
   */
  public record Outcome(
      List<Measurement> measurements, String failure, byte[] payload, Map<String, Double> phaseMs, String trialCpus) {
    public Outcome(List<Measurement> measurements, String failure, byte[] payload, Map<String, Double> phaseMs) {
      this(measurements, failure, payload, phaseMs, "");
    }

    Outcome withTrialCpus(String cpus) {
      return new Outcome(measurements, failure, payload, phaseMs, cpus);
    }
  }

  private final CodecRegistry codecs = new CodecRegistry();
  private final Sampler sampler = new Sampler();
  private final long jvmMinWarmupMs;
  private final Laps laps;
  private final List<Measurement> measurements = new ArrayList<>();
  private byte[] encoded;

  private Trial(long jvmMinWarmupMs, Laps laps) {
    this.jvmMinWarmupMs = jvmMinWarmupMs;
    this.laps = laps;
  }

  /** Runs the trial; {@code payload} is the payload to decode (decode tasks), else null. */
  public static Outcome run(Task task, byte[] canonicalBlob, byte[] payload, long jvmMinWarmupMs) {
    return run(task, canonicalBlob, payload, jvmMinWarmupMs, new Laps());
  }

  /** Runs the trial, its phases lapped on {@code laps} (started by the caller: its set-up is load). */
  public static Outcome run(Task task, byte[] canonicalBlob, byte[] payload, long jvmMinWarmupMs, Laps laps) {
    Trial t = new Trial(jvmMinWarmupMs, laps);
    String failure = "";
    try {
      t.runTask(task, canonicalBlob, payload);
    } catch (TaskFailure f) {
      failure = f.getMessage();
    } catch (OutOfMemoryError e) {
      failure = "trial failed: out of memory (max heap " + Runtime.getRuntime().maxMemory()
          + " bytes; raise -Xmx through CODECBENCH_JAVA_OPTS)";
    } catch (Exception e) {
      failure = "trial failed: " + e;
    }
    laps.lap("other");
    return new Outcome(List.copyOf(t.measurements), failure, t.encoded, laps.ms());
  }

  private void runTask(Task task, byte[] canonicalBlob, byte[] payload) throws Exception {
    Dataset<?> dataset = TaskRunner.dataset(task);
    Codec codec = TaskRunner.codec(codecs, task);
    switch (task.getOperation()) {
      case OPERATION_ENCODE -> {
        if (Codec.STREAMING.equals(task.getDecodeMode())) {
          encodeStreaming(task, canonical(dataset, task, canonicalBlob), codec);
        } else {
          encode(task, canonical(dataset, task, canonicalBlob), codec);
        }
      }
      case OPERATION_DECODE -> {
        if (payload == null) {
          throw TaskFailure.at("setup", "decode trial without a payload");
        }
        decode(task, canonical(dataset, task, canonicalBlob), codec, payload);
      }
      default -> throw TaskFailure.at("setup", "operation " + task.getOperation() + " is not a task a worker runs");
    }
  }

  private static <R> Canonical<R> canonical(Dataset<R> dataset, Task task, byte[] blob) throws TaskFailure {
    Canonical<R> canonical;
    try {
      canonical = dataset.parseCanonical(blob);
    } catch (IOException e) {
      throw TaskFailure.at("fetch", "canonical blob " + task.getCanonicalBlobId() + " is not a " + dataset.id()
          + " dataset message: " + e.getMessage());
    }
    if (canonical.size() != task.getRecordCount()) {
      throw TaskFailure.at("fetch", "canonical blob " + task.getCanonicalBlobId() + " has " + canonical.size()
          + " records, the task says " + task.getRecordCount());
    }
    return canonical;
  }

  /**
   * A prepare task (proto/README.md, step 4): the verified payload of the task's encode, nothing
   * timed. It runs in the attached JVM: with no timing there is no JIT or heap state to isolate.
   * Its load and verify are lapped there.
   */
  static byte[] prepare(CodecRegistry codecs, Task task, byte[] canonicalBlob, Laps laps) throws TaskFailure {
    Dataset<?> dataset = TaskRunner.dataset(task);
    Canonical<?> canonical = canonical(dataset, task, canonicalBlob);
    Codec codec = TaskRunner.codec(codecs, task);
    laps.lap("load");
    byte[] payload = encodeVerified(canonical, codec);
    laps.lap("verify");
    return payload;
  }

  /** Encodes the canonical records and checks the payload decodes back to them. */
  private static <R> byte[] encodeVerified(Canonical<R> canonical, Codec codec) throws TaskFailure {
    Dataset<R> dataset = canonical.dataset();
    Records<R> model = canonical.model();
    byte[] payload;
    try {
      payload = codec.encode(dataset, model);
    } catch (CodecException e) {
      throw TaskFailure.at("encode", e);
    }
    try {
      codec.validate(payload);
      Optional<String> diff = RecordDiff.firstDifference(model, codec.decodeTyped(dataset, payload));
      if (diff.isPresent()) {
        throw TaskFailure.at("verification", diff.get());
      }
    } catch (CodecException e) {
      throw TaskFailure.at("verification", "the payload does not decode: " + e.getMessage());
    }
    return payload;
  }

  private <R> void encode(Task task, Canonical<R> canonical, Codec codec) throws TaskFailure {
    laps.lap("load");
    Dataset<R> dataset = canonical.dataset();
    Records<R> model = canonical.model();
    byte[] payload = encodeVerified(canonical, codec);
    laps.lap("verify");
    encoded = payload;
    Sample sample = measure("encode", () -> codec.encode(dataset, model), task);
    measurements.add(measurement(Operation.OPERATION_ENCODE, payload.length, sample, true).build());
  }

  /**
   * A streaming encode cell (timed trials only; its payload is the in-memory cell's): the records
   * written through a {@link Streams.Drain}, never held whole. Verified first, as every encode:
   * the streamed bytes decode (typed) to the canonical records. No payload is returned.
   */
  private <R> void encodeStreaming(Task task, Canonical<R> canonical, Codec codec) throws TaskFailure {
    laps.lap("load");
    Dataset<R> dataset = canonical.dataset();
    Records<R> model = canonical.model();
    ByteArrayOutputStream streamed = new ByteArrayOutputStream();
    try {
      codec.encodeStreaming(dataset, model, streamed);
    } catch (CodecException e) {
      throw TaskFailure.at("encode", e);
    }
    byte[] bytes = streamed.toByteArray();
    streamed = null;
    try {
      codec.validate(bytes);
      Optional<String> diff = RecordDiff.firstDifference(model, codec.decodeTyped(dataset, bytes));
      if (diff.isPresent()) {
        throw TaskFailure.at("verification", diff.get());
      }
    } catch (CodecException e) {
      throw TaskFailure.at("verification", "the streamed payload does not decode: " + e.getMessage());
    }
    long size = bytes.length;
    bytes = null;
    laps.lap("verify");
    Sample sample = measure("encode", () -> Streams.encodeOnce(codec, dataset, model), task);
    measurements.add(measurement(Operation.OPERATION_ENCODE, size, sample, true).build());
  }

  /** A streaming encode task is a timed trial of a codec that offers the mode. */
  static void checkStreamingEncode(Task task, Codec codec) throws TaskFailure {
    if (task.getPrepare() || task.getStorePayload() || task.getMeasureTransfer()) {
      throw TaskFailure.at("setup", "a streaming encode cell times only; its payload is the in-memory cell's");
    }
    if (!codec.decodeModes().contains(Codec.STREAMING)) {
      throw TaskFailure.at("setup", "codec '" + codec.id() + "' offers no streaming mode");
    }
  }

  private <R> void decode(Task task, Canonical<R> canonical, Codec codec, byte[] payload) throws TaskFailure {
    laps.lap("load");
    Dataset<R> dataset = canonical.dataset();
    try {
      codec.validate(payload);
    } catch (CodecException e) {
      throw TaskFailure.at("decode", e);
    }
    Sampler.Op op =
        switch (task.getDecodeMode()) {
          case Codec.TYPED -> {
            verify(canonical, () -> codec.decodeTyped(dataset, payload));
            yield () -> codec.decodeTyped(dataset, payload);
          }
          case Codec.TREE -> {
            verify(canonical, () -> codec.treeToRecords(dataset, codec.decodeTree(payload)));
            yield () -> codec.decodeTree(payload);
          }
          case Codec.LAZY -> {
            List<String> fields = task.getLazyFieldsList();
            verifyLazy(canonical, codec, payload, fields);
            Codec.FieldSink sink = Sink::consume;
            yield () -> {
              codec.decodeLazy(dataset, payload, fields, sink);
              return null;
            };
          }
          case Codec.STREAMING -> {
            verifyStreamed(canonical, codec, payload);
            yield () -> Streams.decodeOnce(codec, dataset, payload);
          }
          default -> throw TaskFailure.at("setup", "decode mode '" + task.getDecodeMode()
              + "' is not typed, tree, lazy or streaming");
        };
    laps.lap("verify");
    Sample sample = measure("decode", op, task);
    measurements.add(measurement(Operation.OPERATION_DECODE, payload.length, sample, true).build());
  }

  @FunctionalInterface
  private interface Decode<R> {
    Records<R> run() throws CodecException;
  }

  private static <R> void verify(Canonical<R> canonical, Decode<R> decode) throws TaskFailure {
    Records<R> decoded;
    try {
      decoded = decode.run();
    } catch (CodecException e) {
      throw TaskFailure.at("decode", e);
    }
    Optional<String> diff = RecordDiff.firstDifference(canonical.model(), decoded);
    if (diff.isPresent()) {
      throw TaskFailure.at("verification", diff.get());
    }
  }

  /**
   * The streamed records equal the canonical ones one by one (each compared as it arrives, then
   * dropped), and there are as many.
   */
  private static <R> void verifyStreamed(Canonical<R> canonical, Codec codec, byte[] payload) throws TaskFailure {
    List<R> expected = canonical.model().records();
    long[] seen = {0};
    long[] firstBad = {-1};
    long n;
    try {
      n = codec.decodeStreaming(canonical.dataset(), new Streams.Chunked(payload), r -> {
        long i = seen[0]++;
        // Compared as verification compares (RecordDiff): a bytes field's array by content.
        if (firstBad[0] < 0 && (i >= expected.size() || RecordDiff.firstDifference(
            new Records<>(List.of(expected.get((int) i))), new Records<>(List.of(r))).isPresent())) {
          firstBad[0] = i;
        }
      });
    } catch (CodecException e) {
      throw TaskFailure.at("decode", e);
    }
    if (firstBad[0] >= 0) {
      throw TaskFailure.at("verification", "streamed record " + firstBad[0] + " differs from the canonical one");
    }
    if (n != expected.size() || seen[0] != n) {
      throw TaskFailure.at("verification", n + " records streamed, " + expected.size() + " expected");
    }
  }

  private static void verifyLazy(Canonical<?> canonical, Codec codec, byte[] payload, List<String> fields)
      throws TaskFailure {
    if (fields.isEmpty()) {
      throw TaskFailure.at("setup", "lazy decode task without lazy_fields");
    }
    List<String> expected;
    try {
      expected = LazyField.expected(canonical, fields);
    } catch (IllegalArgumentException e) {
      throw TaskFailure.at("setup", e);
    }
    List<String> decoded = new ArrayList<>(expected.size());
    try {
      codec.decodeLazy(canonical.dataset(), payload, fields, decoded::add);
    } catch (CodecException e) {
      throw TaskFailure.at("decode", e);
    }
    Optional<String> diff = RecordDiff.firstLazyDifference(expected, decoded, fields);
    if (diff.isPresent()) {
      throw TaskFailure.at("verification", diff.get());
    }
  }

  /** Times the trial's operation; the lap splits into warmup, rounds and other (the peak-heap probe). */
  private Sample measure(String step, Sampler.Op op, Task task) throws TaskFailure {
    Sample sample = measure(sampler, step, op, task, jvmMinWarmupMs, true);
    laps.measured(sample);
    return sample;
  }

  static Sample measure(Sampler sampler, String step, Sampler.Op op, Task task, long jvmMinWarmupMs,
      boolean countAllocations) throws TaskFailure {
    Sampling sampling;
    try {
      sampling = Sampling.of(task.getSampling(), jvmMinWarmupMs);
    } catch (IllegalArgumentException e) {
      throw TaskFailure.at("setup", "task sampling: " + e.getMessage());
    }
    try {
      return sampler.measure(op, sampling, countAllocations);
    } catch (Exception e) {
      throw TaskFailure.at(step, e);
    }
  }

  /** A measurement of {@code s}; control fills in identity, the attached JVM the environment. */
  static Measurement.Builder measurement(Operation operation, long payloadBytes, Sample s, boolean verified) {
    Measurement.Builder m =
        Measurement.newBuilder()
            .setOperation(operation)
            .setLanguage("java")
            .setPayloadBytes(payloadBytes)
            .addAllRoundNsPerOp(s.roundNsPerOp())
            .setOpsPerRound(s.opsPerRound())
            .setVerified(verified)
            .setSteady(s.steady())
            .putExtras("warmup_ms", s.warmupMs())
            .putExtras("warmup_rounds", s.warmupRounds())
            .putExtras("gc_ms", s.gcMs())
            .putExtras("gc_count", s.gcCount());
    if (s.jitMs() >= 0) {
      m.putExtras("jit_ms", s.jitMs());
    }
    s.allocBytesPerOp().ifPresent(m::setAllocBytesPerOp);
    // One operation's peak heap growth after the rounds (Sampler.peakHeapGrowth: an upper bound,
    // garbage not yet collected included).
    s.peakHeapBytes().ifPresent(b -> m.putExtras("peak_heap_bytes", b));
    return m;
  }
}
