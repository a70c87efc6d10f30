package dev.codecbench.worker;

import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.GetBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.GetBlobResponse;
import codecbench.v1.WorkerServiceOuterClass.PutBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.PutBlobResponse;
import codecbench.v1.WorkerServiceOuterClass.UploadBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.UploadBlobResponse;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;

/** Control's blob half of WorkerService, in process: SHA-256 ids, chunks of at most 1 MiB. */
final class FakeBlobStore extends WorkerServiceGrpc.WorkerServiceImplBase implements AutoCloseable {
  final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
  /** Finished uploads (ids are content hashes, so the map alone does not count them). */
  final java.util.concurrent.atomic.AtomicInteger finishedUploads = new java.util.concurrent.atomic.AtomicInteger();
  /** Each call's method and the worker secret it carried ("" for none), in order. */
  final List<String> secrets = new CopyOnWriteArrayList<>();
  private final Server server;
  final ManagedChannel channel;

  FakeBlobStore() throws IOException {
    String name = InProcessServerBuilder.generateName();
    ServerInterceptor record = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        String secret = headers.get(WorkerSecret.HEADER);
        secrets.add(call.getMethodDescriptor().getBareMethodName() + " " + (secret == null ? "" : secret));
        return next.startCall(call, headers);
      }
    };
    server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(ServerInterceptors.intercept(this, record)).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  String add(byte[] data) {
    String id = sha256(data);
    blobs.put(id, data);
    return id;
  }

  @Override
  public void getBlob(GetBlobRequest req, StreamObserver<GetBlobResponse> out) {
    byte[] b = blobs.get(req.getBlobId());
    if (b == null) {
      out.onError(Status.NOT_FOUND.withDescription("no blob " + req.getBlobId()).asRuntimeException());
      return;
    }
    int off = (int) req.getOffset();
    do {
      int n = Math.min(BlobClient.CHUNK, b.length - off);
      out.onNext(GetBlobResponse.newBuilder().setData(ByteString.copyFrom(b, off, n)).setOffset(off)
          .setTotalSize(b.length).build());
      off += n;
    } while (off < b.length);
    out.onCompleted();
  }

  /** The Java worker uploads with UploadBlob; a unary PutBlob from it is a regression. */
  @Override
  public void putBlob(PutBlobRequest req, StreamObserver<PutBlobResponse> out) {
    out.onError(Status.UNIMPLEMENTED.withDescription("the Java worker uploads with UploadBlob").asRuntimeException());
  }

  @Override
  public StreamObserver<UploadBlobRequest> uploadBlob(StreamObserver<UploadBlobResponse> out) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(UploadBlobRequest req) {
        if (failed) {
          return;
        }
        if (req.getData().size() > BlobClient.CHUNK || buf.size() != req.getOffset()) {
          failed = true;
          out.onError(Status.INVALID_ARGUMENT.withDescription("chunk of " + req.getData().size() + " at offset "
              + req.getOffset() + ", have " + buf.size()).asRuntimeException());
          return;
        }
        buf.writeBytes(req.getData().toByteArray());
        if (req.getFinish()) {
          byte[] data = buf.toByteArray();
          finishedUploads.incrementAndGet();
          out.onNext(UploadBlobResponse.newBuilder().setBlobId(add(data)).setSize(data.length).build());
          out.onCompleted();
          failed = true;  // done: nothing after the last chunk counts
        }
      }

      @Override
      public void onError(Throwable t) { }

      @Override
      public void onCompleted() {
        if (!failed) {
          out.onError(Status.INVALID_ARGUMENT.withDescription("no finishing chunk").asRuntimeException());
        }
      }
    };
  }

  private static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }
}
