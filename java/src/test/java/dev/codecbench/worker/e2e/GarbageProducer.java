package dev.codecbench.worker.e2e;

import codecbench.v1.Results.CodecInfo;
import codecbench.v1.Results.DatasetInfo;
import codecbench.v1.Results.Environment;
import codecbench.v1.Results.Measurement;
import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.AttachRequest;
import codecbench.v1.WorkerServiceOuterClass.AttachResponse;
import codecbench.v1.WorkerServiceOuterClass.PutBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.PutBlobResponse;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import codecbench.v1.WorkerServiceOuterClass.Task;
import com.google.protobuf.ByteString;
import dev.codecbench.worker.dataset.Dataset;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A worker that answers every encode task with bytes that are no codec's payload and reports
 * success, so the consumer's decode has to fail with the codec's own message.
 */
final class GarbageProducer implements AutoCloseable {
  // Not JSON (an unquoted word) and not BSON (the size prefix does not match the length).
  static final byte[] GARBAGE = "garbage, not a payload\u0000\u0001".getBytes(StandardCharsets.UTF_8);

  private final WorkerServiceGrpc.WorkerServiceBlockingStub stub;
  private final Context.CancellableContext context = Context.current().withCancellation();
  private final CompletableFuture<String> workerId = new CompletableFuture<>();
  private final Thread thread;

  GarbageProducer(ManagedChannel channel) {
    this.stub = WorkerServiceGrpc.newBlockingStub(channel);
    this.thread = new Thread(() -> context.run(this::serve), "garbage-producer");
    thread.setDaemon(true);
    thread.start();
  }

  String awaitId() throws Exception {
    return workerId.get(30, TimeUnit.SECONDS);
  }

  private void serve() {
    Environment env = Environment.newBuilder().setLanguage("fake").setRuntime("junit").build();
    AttachRequest.Builder hello = AttachRequest.newBuilder().setName("garbage").setEnvironment(env);
    for (String codec : new String[] {"json", "bson"}) {
      hello.addCodecs(CodecInfo.newBuilder().setId(codec).setMediaType("application/octet-stream")
          .addDecodeModes("typed").setLibrary("garbage").setLibraryVersion("0"));
    }
    // Control pairs a worker only with datasets it announced: the same schemas as the Java worker's.
    for (Dataset<?> d : Dataset.all()) {
      hello.addDatasets(DatasetInfo.newBuilder().setId(d.id()).setMessage(d.message())
          .setFingerprint(d.fingerprint()));
    }
    try {
      Iterator<AttachResponse> stream = stub.attach(hello.build());
      String id = null;
      String secret = null;
      while (stream.hasNext()) {
        AttachResponse msg = stream.next();
        if (msg.hasAttached()) {
          id = msg.getAttached().getId();
          secret = msg.getReportSecret();
          workerId.complete(id);
        } else if (msg.hasTask()) {
          answer(id, secret, msg.getTask(), env);
        }
      }
    } catch (RuntimeException e) {
      workerId.completeExceptionally(e);
    }
  }

  private void answer(String id, String secret, Task task, Environment env) {
    ReportResultRequest.Builder report =
        ReportResultRequest.newBuilder().setWorkerId(id).setReportSecret(secret).setTaskId(task.getId());
    if (task.getOperation() == Operation.OPERATION_ENCODE) {
      PutBlobResponse put = stub.putBlob(PutBlobRequest.newBuilder().setUploadId(UUID.randomUUID().toString())
          .setData(ByteString.copyFrom(GARBAGE)).setFinish(true).build());
      report.setPayloadBlobId(put.getBlobId()).setPayloadBlobSize(put.getSize())
          .addMeasurements(Measurement.newBuilder().setOperation(Operation.OPERATION_ENCODE)
              .setLanguage("fake").setPayloadBytes(GARBAGE.length).addRoundNsPerOp(1000).setOpsPerRound(1)
              .setVerified(true).setEnvironment(env));
    } else {
      report.setFailure("decode failed: the garbage producer does not decode");
    }
    stub.reportResult(report.build());
  }

  @Override
  public void close() {
    context.cancel(null);
  }
}
