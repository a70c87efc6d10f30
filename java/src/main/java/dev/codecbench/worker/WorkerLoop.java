package dev.codecbench.worker;

import codecbench.v1.Results.CodecInfo;
import codecbench.v1.Results.Environment;
import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.AttachRequest;
import codecbench.v1.WorkerServiceOuterClass.AttachResponse;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;

/**
 * Attaches to control and runs its tasks one at a time, for as long as control keeps the stream.
 * Attaching is retried for a while (control may still be starting, or restarting); a worker that
 * cannot attach within that window gives up with a message.
 */
final class WorkerLoop {
  private static final long RETRY_FIRST_MS = 250;
  private static final long RETRY_MAX_MS = 10_000;
  private static final int REPORT_ATTEMPTS = 6;

  private final Options options;
  private final WorkerServiceGrpc.WorkerServiceBlockingStub stub;
  private final AttachRequest hello;
  private final TaskRunner runner;

  WorkerLoop(Options options, ManagedChannel channel) {
    this.options = options;
    this.stub = WorkerServiceGrpc.newBlockingStub(channel);
    CodecRegistry codecs = new CodecRegistry();
    ForkedTrials trials = new ForkedTrials(options.minWarmupMs());
    Environment env = EnvironmentProbe.probe(options.minWarmupMs(), trials.jvmFlags());
    AttachRequest.Builder hello = AttachRequest.newBuilder().setName(options.name()).setEnvironment(env);
    for (Codec c : codecs.all()) {
      hello.addCodecs(CodecInfo.newBuilder()
          .setId(c.id())
          .setMediaType(c.mediaType())
          .addAllDecodeModes(c.decodeModes())
          .setLibrary(c.library())
          .setLibraryVersion(c.libraryVersion())
          .setNotes(c.notes())
          .addAllTimedRegions(c.timedRegions()));
    }
    this.hello = hello.build();
    this.runner = new TaskRunner(codecs, new BlobClient(stub), env, options.minWarmupMs(), trials);
  }

  /** Runs until control is gone for longer than the reconnect window; returns the exit message. */
  String run() {
    while (true) {
      Attached attached;
      try {
        attached = attach();
      } catch (StatusRuntimeException e) {
        return "cannot attach to control at " + options.control() + ": " + describe(e.getStatus());
      }
      log("attached to " + options.control() + " as " + attached.workerId);
      try {
        while (attached.stream.hasNext()) {
          AttachResponse msg = attached.stream.next();
          if (msg.hasTask()) {
            runTask(attached.workerId, msg.getTask());
          }
        }
        log("control closed the task stream; attaching again");
      } catch (StatusRuntimeException e) {
        log("lost the task stream (" + describe(e.getStatus()) + "); attaching again");
      }
    }
  }

  private record Attached(String workerId, Iterator<AttachResponse> stream) {}

  /** Attaches, retrying while control is unreachable, until the reconnect window has passed. */
  private Attached attach() {
    long deadline = System.nanoTime() + options.reconnectTimeoutMs() * 1_000_000L;
    long pause = RETRY_FIRST_MS;
    while (true) {
      try {
        Iterator<AttachResponse> stream = stub.attach(hello);
        if (!stream.hasNext()) {
          throw Status.UNAVAILABLE.withDescription("control closed the stream before 'attached'")
              .asRuntimeException();
        }
        AttachResponse first = stream.next();
        if (!first.hasAttached()) {
          throw Status.INTERNAL.withDescription("control's first message was not 'attached'")
              .asRuntimeException();
        }
        return new Attached(first.getAttached().getId(), stream);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || System.nanoTime() > deadline) {
          throw e;
        }
        // Back off while control stays away (it may be restarting).
        sleep(pause);
        pause = Math.min(pause * 2, RETRY_MAX_MS);
      }
    }
  }

  private void runTask(String workerId, Task task) {
    log("task " + task.getId() + ": " + task.getOperation() + " " + task.getDataset() + " "
        + task.getCodec() + (task.getDecodeMode().isEmpty() ? "" : " " + task.getDecodeMode())
        + " x" + task.getRecordCount() + " (cell " + task.getCellId() + " trial " + task.getTrial() + ")");
    ReportResultRequest report = runner.run(workerId, task);
    if (!report.getFailure().isEmpty()) {
      log("task " + task.getId() + " failed: " + report.getFailure());
    }
    // UNAVAILABLE: control is down or could not store the result yet; a measured result is not
    // dropped on the first transient error. Any other refusal (the task timed out, it was not
    // this worker's) is control's decision and final; the worker takes the next task.
    long pause = 500;
    for (int attempt = 1; ; attempt++) {
      try {
        stub.reportResult(report);
        return;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt == REPORT_ATTEMPTS) {
          log("task " + task.getId() + ": control rejected the report: " + describe(e.getStatus()));
          return;
        }
        log("task " + task.getId() + ": report not stored (" + describe(e.getStatus()) + "); retrying in " + pause + " ms");
        sleep(pause);
        pause = Math.min(pause * 2, RETRY_MAX_MS);
      }
    }
  }

  private static String describe(Status s) {
    return s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted while waiting for control").asRuntimeException();
    }
  }

  static void log(String message) {
    System.err.println("codecbench-java-worker: " + message);
  }
}
