package dev.codecbench.worker;

import codecbench.v1.Results.Environment;
import codecbench.v1.Results.Measurement;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.bench.Sample;
import dev.codecbench.worker.bench.Sampler;
import dev.codecbench.worker.bench.Sampling;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecException;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.verify.RecordDiff;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Runs one task as proto/README.md lays out: canonical records, verification before timing, the
 * timed operation, the upload, and a report that says what failed and at which step.
 */
public final class TaskRunner {
  private final CodecRegistry codecs;
  private final BlobClient blobs;
  private final CanonicalCache canonicals;
  private final Environment environment;
  private final Sampler sampler = new Sampler();
  private final long jvmMinWarmupMs;

  public TaskRunner(CodecRegistry codecs, BlobClient blobs, Environment environment, long jvmMinWarmupMs) {
    this.codecs = codecs;
    this.blobs = blobs;
    this.canonicals = new CanonicalCache(blobs);
    this.environment = environment;
    this.jvmMinWarmupMs = jvmMinWarmupMs;
  }

  public ReportResultRequest run(String workerId, Task task) {
    ReportResultRequest.Builder report =
        ReportResultRequest.newBuilder().setWorkerId(workerId).setTaskId(task.getId());
    try {
      Dataset<?> dataset = Dataset.byId(task.getDataset())
          .orElseThrow(() -> TaskFailure.at("setup", "unknown dataset '" + task.getDataset() + "'"));
      Codec codec = codecs.byId(task.getCodec())
          .orElseThrow(() -> TaskFailure.at("setup", "codec '" + task.getCodec() + "' is not offered by this worker"));
      switch (task.getOperation()) {
        case OPERATION_ENCODE -> encode(task, dataset, codec, report);
        case OPERATION_DECODE -> decode(task, dataset, codec, report);
        default -> throw TaskFailure.at("setup", "operation " + task.getOperation() + " is not a task a worker runs");
      }
    } catch (TaskFailure f) {
      report.setFailure(f.getMessage());
    } catch (OutOfMemoryError e) {
      canonicals.clear();
      report.setFailure("task failed: out of memory (max heap " + Runtime.getRuntime().maxMemory()
          + " bytes; raise -Xmx through CODECBENCH_JAVA_OPTS)");
    } catch (Exception e) {
      report.setFailure("task failed: " + e);
    }
    return report.build();
  }

  private <R> void encode(Task task, Dataset<R> dataset, Codec codec, ReportResultRequest.Builder report)
      throws Exception {
    Canonical<R> canonical = canonicals.get(dataset, task.getCanonicalBlobId(), task.getRecordCount());
    Records<R> model = canonical.model();
    byte[] payload;
    try {
      payload = codec.encode(dataset, model);
    } catch (CodecException e) {
      throw TaskFailure.at("encode", e);
    }
    try {
      Optional<String> diff = RecordDiff.firstDifference(model, codec.decodeTyped(dataset, payload));
      if (diff.isPresent()) {
        throw TaskFailure.at("verification", diff.get());
      }
    } catch (CodecException e) {
      throw TaskFailure.at("verification", "the payload does not decode: " + e.getMessage());
    }
    Codec.Timed encoder;
    try {
      encoder = codec.encoder(dataset, model);
    } catch (CodecException e) {
      throw TaskFailure.at("encode", e);
    }
    Sample sample = measure("encode", encoder::run, task, true);
    // Added first, so that a failed upload still reports the timing it had.
    report.addMeasurements(measurement(Operation.OPERATION_ENCODE, payload.length, sample));
    String blobId;
    try {
      blobId = blobs.put(payload);
    } catch (IOException e) {
      throw TaskFailure.at("upload", e);
    }
    report.setPayloadBlobId(blobId).setPayloadBlobSize(payload.length);
  }

  private <R> void decode(Task task, Dataset<R> dataset, Codec codec, ReportResultRequest.Builder report)
      throws Exception {
    String mode = task.getDecodeMode();
    if (!codec.decodeModes().contains(mode)) {
      throw TaskFailure.at("setup", "codec '" + codec.id() + "' has no decode mode '" + mode
          + "' (it has " + String.join(", ", codec.decodeModes()) + ")");
    }
    Canonical<R> canonical = canonicals.get(dataset, task.getCanonicalBlobId(), task.getRecordCount());
    String blobId = task.getPayloadBlobId();
    byte[] payload;
    try {
      payload = blobs.get(blobId);
    } catch (IOException e) {
      throw TaskFailure.at("fetch", "payload: " + e.getMessage());
    }
    if (task.getPayloadBlobSize() != 0 && payload.length != task.getPayloadBlobSize()) {
      throw TaskFailure.at("fetch", "payload " + blobId + " has " + payload.length
          + " bytes, the task says " + task.getPayloadBlobSize());
    }
    if (task.getMeasureTransfer()) {
      // Not counting allocations: gRPC decodes the chunks on its own threads.
      Sample transfer = measure("transfer", () -> blobs.get(blobId), task, false);
      report.addMeasurements(measurement(Operation.OPERATION_TRANSFER, payload.length, transfer));
    }

    Sampler.Op op;
    if (Codec.TYPED.equals(mode)) {
      verifyTyped(canonical, codec, payload);
      op = codec.typedDecoder(dataset, payload)::run;
    } else {
      String field = task.getLazyField();
      verifyLazy(canonical, codec, payload, field);
      op = () -> codec.decodeLazy(payload, field);
    }
    Sample sample = measure("decode", op, task, true);
    report.addMeasurements(measurement(Operation.OPERATION_DECODE, payload.length, sample));
  }

  private static <R> void verifyTyped(Canonical<R> canonical, Codec codec, byte[] payload) throws TaskFailure {
    Records<R> decoded;
    try {
      decoded = codec.decodeTyped(canonical.dataset(), payload);
    } catch (CodecException e) {
      throw TaskFailure.at("decode", e);
    }
    Optional<String> diff = RecordDiff.firstDifference(canonical.model(), decoded);
    if (diff.isPresent()) {
      throw TaskFailure.at("verification", diff.get());
    }
  }

  private static void verifyLazy(Canonical<?> canonical, Codec codec, byte[] payload, String field)
      throws TaskFailure {
    if (field.isEmpty()) {
      throw TaskFailure.at("setup", "lazy decode task without a lazy_field");
    }
    List<String> expected;
    try {
      expected = LazyField.expected(canonical, field);
    } catch (IllegalArgumentException e) {
      throw TaskFailure.at("setup", e);
    }
    List<String> decoded;
    try {
      decoded = codec.decodeLazy(payload, field);
    } catch (CodecException e) {
      throw TaskFailure.at("decode", e);
    }
    Optional<String> diff = RecordDiff.firstDifference(expected, decoded, field);
    if (diff.isPresent()) {
      throw TaskFailure.at("verification", diff.get());
    }
  }

  private Sample measure(String step, Sampler.Op op, Task task, boolean countAllocations) throws TaskFailure {
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

  private Measurement measurement(Operation operation, long payloadBytes, Sample s) {
    Measurement.Builder m =
        Measurement.newBuilder()
            .setOperation(operation)
            .setLanguage("java")
            .setPayloadBytes(payloadBytes)
            .addAllRoundNsPerOp(s.roundNsPerOp())
            .setOpsPerRound(s.opsPerRound())
            .setVerified(true)
            .setEnvironment(environment)
            .putExtras("warmup_ms", s.warmupMs())
            .putExtras("jvm_min_warmup_ms", jvmMinWarmupMs)
            .putExtras("gc_ms", s.gcMs())
            .putExtras("jit_quiet", s.jitQuiet() ? 1 : 0)
            .putExtras("rounds_repeated", s.roundsRepeated())
            .putExtras("gc_count", s.gcCount());
    if (s.jitMs() >= 0) {
      m.putExtras("jit_ms", s.jitMs());
    }
    s.allocBytesPerOp().ifPresent(m::setAllocBytesPerOp);
    return m.build();
  }
}
