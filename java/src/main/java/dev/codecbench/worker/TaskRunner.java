package dev.codecbench.worker;

import codecbench.v1.Results.Environment;
import codecbench.v1.Results.Measurement;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.bench.Laps;
import dev.codecbench.worker.bench.Sample;
import dev.codecbench.worker.bench.Sampler;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;

/**
 * Runs one task (one trial of one cell) as proto/README.md lays out. In this, the attached JVM:
 * blob I/O (the canonical blob, the payload, the upload when {@code store_payload}), the timed
 * upload and download legs, and the report. Verification and the timed codec work run in a fresh
 * JVM per trial ({@link Trials}, {@link ForkedTrials}). Every report carries the task's phases
 * (phase_ms): this JVM's fetch, transfer, process and total, and the trial JVM's own.
 */
public final class TaskRunner {
  private final CodecRegistry codecs;
  private final BlobClient blobs;
  private final CanonicalCache canonicals;
  private final Environment environment;
  private final Trials trials;
  private final Sampler sampler = new Sampler();
  private final long jvmMinWarmupMs;

  public TaskRunner(CodecRegistry codecs, BlobClient blobs, Environment environment, long jvmMinWarmupMs,
      Trials trials) {
    this.codecs = codecs;
    this.blobs = blobs;
    this.canonicals = new CanonicalCache(blobs);
    this.environment = environment;
    this.jvmMinWarmupMs = jvmMinWarmupMs;
    this.trials = trials;
  }

  public ReportResultRequest run(String workerId, Task task) {
    long started = System.nanoTime();
    // One per task, not a field: an abandoned task's thread may still be running when the next starts.
    Laps laps = new Laps();
    ReportResultRequest.Builder report =
        ReportResultRequest.newBuilder().setWorkerId(workerId).setTaskId(task.getId());
    try {
      dataset(task);
      Codec codec = codec(codecs, task);
      checkModes(task, codec);
      if (task.getPrepare()) {
        prepare(task, report, laps);
        return withPhases(report, laps, started);
      }
      switch (task.getOperation()) {
        case OPERATION_ENCODE -> encode(task, report, laps);
        case OPERATION_DECODE -> decode(task, report, laps);
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
    return withPhases(report, laps, started);
  }

  /** The report with the phases lapped so far (the trial JVM's merged in) and the total. */
  private static ReportResultRequest withPhases(ReportResultRequest.Builder report, Laps laps, long started) {
    laps.add("total", (System.nanoTime() - started) / 1e6);
    return report.putAllPhaseMs(laps.ms()).build();
  }

  static Dataset<?> dataset(Task task) throws TaskFailure {
    return Dataset.byId(task.getDataset())
        .orElseThrow(() -> TaskFailure.at("setup", "unknown dataset '" + task.getDataset() + "'"));
  }

  static Codec codec(CodecRegistry codecs, Task task) throws TaskFailure {
    return codecs.byId(task.getCodec())
        .orElseThrow(() -> TaskFailure.at("setup", "codec '" + task.getCodec() + "' is not offered by this worker"));
  }

  /**
   * The task's modes against the codec's (the catalogue's), here in the attached JVM and never in
   * a trial's: parsing the catalogue costs a fresh JVM ~40 ms of its start (YAML and record
   * binding, cold), and the child runs only tasks this check let through.
   */
  static void checkModes(Task task, Codec codec) throws TaskFailure {
    if (task.getOperation() == Operation.OPERATION_DECODE) {
      checkDecodeMode(task, codec);
    } else if (task.getOperation() == Operation.OPERATION_ENCODE && Codec.STREAMING.equals(task.getDecodeMode())) {
      Trial.checkStreamingEncode(task, codec);
    }
  }

  static void checkDecodeMode(Task task, Codec codec) throws TaskFailure {
    String mode = task.getDecodeMode();
    if (!codec.decodeModes().contains(mode)) {
      throw TaskFailure.at("setup", "codec '" + codec.id() + "' has no decode mode '" + mode
          + "' (it has " + String.join(", ", codec.decodeModes()) + ")");
    }
    if (Codec.LAZY.equals(mode) && task.getLazyFieldsCount() == 0) {
      throw TaskFailure.at("setup", "lazy decode task without lazy_fields");
    }
  }

  /**
   * Encode, verify, store: no child JVM (nothing is timed), no measurement, no upload timing. Its
   * load and verify are this JVM's.
   */
  private void prepare(Task task, ReportResultRequest.Builder report, Laps laps) throws TaskFailure {
    if (task.getOperation() != Operation.OPERATION_ENCODE) {
      throw TaskFailure.at("setup", "a prepare task must be an encode task, not " + task.getOperation());
    }
    if (!task.getStorePayload()) {
      throw TaskFailure.at("setup", "a prepare task must store its payload (store_payload is false)");
    }
    byte[] canonical = canonicals.get(task.getCanonicalBlobId());
    laps.lap("fetch");
    byte[] payload = Trial.prepare(codecs, task, canonical, laps);
    try {
      report.setPayloadBlobId(blobs.put(payload)).setPayloadBlobSize(payload.length);
    } catch (IOException e) {
      throw TaskFailure.at("upload", e);
    }
    laps.lap("fetch");
  }

  private void encode(Task task, ReportResultRequest.Builder report, Laps laps) throws TaskFailure {
    byte[] canonical = canonicals.get(task.getCanonicalBlobId());
    Trial.Outcome trial = trial(task, canonical, null, laps, report);
    addMeasurements(report, trial);
    if (!trial.failure().isEmpty()) {
      throw new TaskFailure(trial.failure());
    }
    if (!task.getStorePayload() && !task.getMeasureTransfer()) {
      // A timed encode only (a streaming encode returns no payload: its payload is the in-memory cell's).
      return;
    }
    byte[] payload = trial.payload();
    if (payload == null) {
      throw TaskFailure.at("trial", "the encode trial returned no payload");
    }
    if (task.getStorePayload()) {
      try {
        report.setPayloadBlobId(blobs.put(payload)).setPayloadBlobSize(payload.length);
      } catch (IOException e) {
        throw TaskFailure.at("upload", e);
      }
      laps.lap("fetch");
    }
    if (task.getMeasureTransfer()) {
      for (String compression : legs(task)) {
        // One op = one whole PutBlob upload. Not counting allocations: gRPC works on its own threads.
        BlobClient leg = through(compression, "upload");
        Sample upload = Trial.measure(sampler, step("upload", compression), () -> leg.put(payload), task,
            jvmMinWarmupMs, false);
        laps.lap("transfer");
        report.addMeasurements(withEnvironment(
            Trial.measurement(Operation.OPERATION_UPLOAD, payload.length, upload, true).setCompression(label(compression))));
      }
    }
  }

  private void decode(Task task, ReportResultRequest.Builder report, Laps laps) throws TaskFailure {
    byte[] canonical = canonicals.get(task.getCanonicalBlobId());
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
    laps.lap("fetch");
    if (task.getMeasureTransfer()) {
      for (String compression : legs(task)) {
        // One op = one whole GetBlob download. Not counting allocations: gRPC works on its own threads.
        BlobClient leg = through(compression, "download");
        Sample download = Trial.measure(sampler, step("download", compression), () -> leg.get(blobId), task,
            jvmMinWarmupMs, false);
        laps.lap("transfer");
        report.addMeasurements(withEnvironment(
            Trial.measurement(Operation.OPERATION_DOWNLOAD, payload.length, download, true)
                .setCompression(label(compression))));
      }
    }
    Trial.Outcome trial = trial(task, canonical, payload, laps, report);
    addMeasurements(report, trial);
    if (!trial.failure().isEmpty()) {
      throw new TaskFailure(trial.failure());
    }
  }

  /**
   * The trial in its fresh JVM: process is from starting it to holding its result (a crashed or
   * timed-out one too); its own phases are merged in, and the CPUs it ran on go in trial_cpus.
   */
  private Trial.Outcome trial(Task task, byte[] canonical, byte[] payload, Laps laps, ReportResultRequest.Builder report)
      throws TaskFailure {
    laps.lap("fetch");
    Trial.Outcome outcome;
    try {
      outcome = trials.run(task, canonical, payload);
    } finally {
      laps.lap("process");
    }
    laps.merge(outcome.phaseMs());
    report.setTrialCpus(outcome.trialCpus());
    return outcome;
  }

  /** The compressions the task's transfer leg is timed with, in order: the task's, else identity. */
  static java.util.List<String> legs(Task task) {
    return task.getCompressionsCount() == 0 ? java.util.List.of("identity") : task.getCompressionsList();
  }

  /** Measurement.compression: empty for identity. */
  static String label(String compression) {
    return compression.equals("identity") ? "" : compression;
  }

  private static String step(String leg, String compression) {
    return compression.equals("identity") ? leg : leg + " (" + compression + ")";
  }

  private BlobClient through(String compression, String leg) throws TaskFailure {
    try {
      return blobs.compressed(compression);
    } catch (IOException e) {
      throw TaskFailure.at(leg, e.getMessage());
    }
  }

  private void addMeasurements(ReportResultRequest.Builder report, Trial.Outcome trial) {
    for (Measurement m : trial.measurements()) {
      report.addMeasurements(withEnvironment(m.toBuilder()));
    }
  }

  /** The worker's environment, with the details the trial JVM added about itself (trial_gc) kept. */
  private Measurement withEnvironment(Measurement.Builder m) {
    Environment env = m.getEnvironment().getDetailsCount() == 0 ? environment
        : environment.toBuilder().putAllDetails(m.getEnvironment().getDetailsMap()).build();
    return m.setEnvironment(env).putExtras("jvm_min_warmup_ms", jvmMinWarmupMs).build();
  }
}
