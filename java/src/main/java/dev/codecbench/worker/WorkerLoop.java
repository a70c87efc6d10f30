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
  private static final long RETRY_PAUSE_MS = 250;

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
        sleep(RETRY_PAUSE_MS);
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
    try {
      stub.reportResult(report);
    } catch (StatusRuntimeException e) {
      // The task's result is lost, but the worker can still take the next one.
      log("task " + task.getId() + ": control rejected the report: " + describe(e.getStatus()));
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
