package dev.codecbench.worker;

import codecbench.v1.Results.CodecInfo;
import codecbench.v1.Results.DatasetInfo;
import codecbench.v1.Results.Environment;
import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.AttachRequest;
import codecbench.v1.WorkerServiceOuterClass.AttachResponse;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.codec.Refusals;
import dev.codecbench.worker.dataset.Dataset;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

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
  /** The attachment's report secret, which every blob call carries once attached. */
  private final WorkerSecret secret = new WorkerSecret();

  /**
   * {@code channel} advertises no compression for answers (every call but a compressed transfer
   * leg); {@code gzipChannel} advertises gzip (the gzip legs, Scenario.compressions).
   */
  WorkerLoop(Options options, ManagedChannel channel, ManagedChannel gzipChannel) {
    this.options = options;
    Channel named = ClientInterceptors.intercept(channel, secret);
    this.stub = WorkerServiceGrpc.newBlockingStub(named);
    CodecRegistry codecs = new CodecRegistry();
    ForkedTrials forked = new ForkedTrials(options.minWarmupMs());
    Trials trials = options.inProcessTrials() ? Trials.inProcess(options.minWarmupMs()) : forked;
    Environment env = EnvironmentProbe.probe(options.minWarmupMs(), forked.jvmFlags(), options.inProcessTrials());
    this.hello = hello(options.name(), env, codecs);
    BlobClient blobs = new BlobClient(stub,
        WorkerServiceGrpc.newBlockingStub(ClientInterceptors.intercept(gzipChannel, secret)).withCompression("gzip"));
    this.runner = new TaskRunner(codecs, blobs, env, options.minWarmupMs(), trials);
  }

  /**
   * What the worker announces: its codecs, compressions and datasets (each with its fingerprint,
   * its field names and what it refuses to run on it).
   */
  static AttachRequest hello(String name, Environment env, CodecRegistry codecs) {
    AttachRequest.Builder hello = AttachRequest.newBuilder().setName(name).setEnvironment(env)
        .addAllCompressions(BlobClient.COMPRESSIONS);
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
    List<Codec> all = codecs.all();
    for (Dataset<?> d : Dataset.carried()) {
      hello.addDatasets(DatasetInfo.newBuilder()
          .setId(d.id())
          .setMessage(d.message())
          .setFingerprint(d.fingerprint())
          .setFieldNames(d.fieldNames())
          .addAllRefused(Refusals.of(d, all)));
    }
    return hello.build();
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
      // The stream is read on a thread of its own, so that an abandon can arrive while a task runs.
      BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
      Iterator<AttachResponse> stream = attached.stream;
      Thread reader = new Thread(() -> pump(stream, inbox), "attach-stream");
      reader.setDaemon(true);
      reader.start();
      log(serve(attached, inbox) + "; attaching again");
    }
  }

  /** Marks the end of a stream in the inbox. */
  private static final Object END = new Object();

  private static void pump(Iterator<AttachResponse> stream, BlockingQueue<Object> inbox) {
    try {
      while (stream.hasNext()) {
        inbox.add(stream.next());
      }
      inbox.add(END);
    } catch (StatusRuntimeException e) {
      inbox.add(e);
    }
  }

  /** Why a stream ended, from what the reader put in the inbox. */
  private static String ended(Object item) {
    return item instanceof StatusRuntimeException e
        ? "lost the task stream (" + describe(e.getStatus()) + ")"
        : "control closed the task stream";
  }

  /** Runs the tasks of one attachment until its stream ends; returns why it ended. */
  private String serve(Attached attached, BlockingQueue<Object> inbox) {
    while (true) {
      Object item;
      try {
        item = inbox.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
      if (!(item instanceof AttachResponse msg)) {
        return ended(item);
      }
      if (msg.hasTask()) {
        String why = runTask(attached, msg.getTask(), inbox);
        if (why != null) {
          return why;
        }
      } else if (msg.hasAbandon()) {
        log("control abandoned task " + msg.getAbandon().getTaskId() + ", which this worker is not running");
      }
    }
  }

  /** One attachment: the id control gave, the secret its reports carry, the task stream. */
  private record Attached(String workerId, String reportSecret, Iterator<AttachResponse> stream) {}

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
        secret.set(first.getReportSecret());
        return new Attached(first.getAttached().getId(), first.getReportSecret(), stream);
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

  /**
   * Runs one task on a thread of its own while the stream is watched, then reports it. An abandon
   * for the task interrupts it (the forked trial JVM is destroyed) and nothing is reported.
   * Returns null, or why the stream ended while the task ran (control has ended the task then).
   */
  private String runTask(Attached attached, Task task, BlockingQueue<Object> inbox) {
    log("task " + task.getId() + ": " + task.getOperation() + " " + task.getDataset() + " "
        + task.getCodec() + (task.getDecodeMode().isEmpty() ? "" : " " + task.getDecodeMode())
        + " x" + task.getRecordCount() + " (cell " + task.getCellId() + " trial " + task.getTrial() + ")");
    FutureTask<ReportResultRequest> work = new FutureTask<>(() -> runner.run(attached.workerId, task));
    Thread thread = new Thread(work, "task-" + task.getId());
    thread.setDaemon(true);
    thread.start();
    while (!work.isDone()) {
      Object item;
      try {
        item = inbox.poll(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stop(work, thread);
        return "interrupted";
      }
      if (item == null) {
        continue;
      }
      if (!(item instanceof AttachResponse msg)) {
        stop(work, thread);
        return ended(item) + " while task " + task.getId() + " ran";
      }
      if (msg.hasAbandon() && msg.getAbandon().getTaskId().equals(task.getId())) {
        log("task " + task.getId() + " abandoned: " + msg.getAbandon().getReason());
        stop(work, thread);
        return null;
      }
      log("task " + task.getId() + ": ignored a message while it runs: " + msg.getMessageCase());
    }
    ReportResultRequest report;
    try {
      report = work.get();
    } catch (ExecutionException e) {
      report = ReportResultRequest.newBuilder().setWorkerId(attached.workerId).setTaskId(task.getId())
          .setFailure("the Java worker failed running the task: " + e.getCause()).build();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    report = report.toBuilder().setReportSecret(attached.reportSecret).build();
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
        return null;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt == REPORT_ATTEMPTS) {
          log("task " + task.getId() + ": control rejected the report: " + describe(e.getStatus()));
          return null;
        }
        log("task " + task.getId() + ": report not stored (" + describe(e.getStatus()) + "); retrying in " + pause + " ms");
        sleep(pause);
        pause = Math.min(pause * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Interrupts a task (a forked trial JVM is destroyed on interrupt) and waits for its thread. */
  private static void stop(FutureTask<?> work, Thread thread) {
    work.cancel(true);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
