package dev.codecbench.worker;

import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.GetBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.GetBlobResponse;
import codecbench.v1.WorkerServiceOuterClass.PutBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.PutBlobResponse;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Control's blob half of WorkerService, in process: SHA-256 ids, chunks of at most 1 MiB. */
final class FakeBlobStore extends WorkerServiceGrpc.WorkerServiceImplBase implements AutoCloseable {
  final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
  /** Finished PutBlob uploads (ids are content hashes, so the map alone does not count them). */
  final java.util.concurrent.atomic.AtomicInteger finishedUploads = new java.util.concurrent.atomic.AtomicInteger();
  private final Map<String, ByteArrayOutputStream> uploads = new ConcurrentHashMap<>();
  private final Server server;
  final ManagedChannel channel;

  FakeBlobStore() throws IOException {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(this).build().start();
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

  @Override
  public void putBlob(PutBlobRequest req, StreamObserver<PutBlobResponse> out) {
    if (req.getData().size() > BlobClient.CHUNK) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("chunk over 1 MiB").asRuntimeException());
      return;
    }
    ByteArrayOutputStream buf = uploads.computeIfAbsent(req.getUploadId(), k -> new ByteArrayOutputStream());
    if (buf.size() != req.getOffset()) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("offset " + req.getOffset() + ", have " + buf.size())
          .asRuntimeException());
      return;
    }
    buf.writeBytes(req.getData().toByteArray());
    PutBlobResponse.Builder r = PutBlobResponse.newBuilder();
    if (req.getFinish()) {
      byte[] data = uploads.remove(req.getUploadId()).toByteArray();
      finishedUploads.incrementAndGet();
      r.setBlobId(add(data)).setSize(data.length);
    }
    out.onNext(r.build());
    out.onCompleted();
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
