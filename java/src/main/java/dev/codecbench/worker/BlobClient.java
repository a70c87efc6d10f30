package dev.codecbench.worker;

import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.GetBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.GetBlobResponse;
import codecbench.v1.WorkerServiceOuterClass.UploadBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.UploadBlobResponse;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Control's blob store, in chunks of at most 1 MiB each way (GetBlob down, UploadBlob up). */
public final class BlobClient {
  public static final int CHUNK = 1 << 20;
  /**
   * The compressions a transfer leg can be timed with besides identity (Scenario.compressions):
   * grpc-java ships gzip only (no zstd codec in it).
   */
  public static final List<String> COMPRESSIONS = List.of("gzip");

  private final WorkerServiceGrpc.WorkerServiceBlockingStub stub;
  private final WorkerServiceGrpc.WorkerServiceBlockingStub gzip;

  /**
   * {@code stub} sends identity and advertises no compression for answers; {@code gzip} sends gzip
   * and advertises it (null: no gzip).
   */
  public BlobClient(WorkerServiceGrpc.WorkerServiceBlockingStub stub,
      WorkerServiceGrpc.WorkerServiceBlockingStub gzip) {
    this.stub = stub;
    this.gzip = gzip;
  }

  /** Identity only. */
  public BlobClient(WorkerServiceGrpc.WorkerServiceBlockingStub stub) {
    this(stub, null);
  }

  /** The same store through {@code compression} ("" or identity: this client). */
  public BlobClient compressed(String compression) throws IOException {
    switch (compression) {
      case "", "identity" -> {
        return this;
      }
      case "gzip" -> {
        if (gzip != null) {
          return new BlobClient(gzip, null);
        }
      }
      default -> { }
    }
    throw new IOException("the Java worker offers no compression '" + compression + "' (it offers identity, "
        + String.join(", ", COMPRESSIONS) + ")");
  }

  /** Fetches a whole blob into memory, checking that every byte of {@code total_size} arrived. */
  public byte[] get(String blobId) throws IOException {
    try {
      Iterator<GetBlobResponse> chunks =
          stub.getBlob(GetBlobRequest.newBuilder().setBlobId(blobId).build());
      byte[] out = null;
      int received = 0;
      while (chunks.hasNext()) {
        GetBlobResponse c = chunks.next();
        if (out == null) {
          if (c.getTotalSize() > Integer.MAX_VALUE - 8) {
            throw new IOException("blob " + blobId + " is " + c.getTotalSize()
                + " bytes, more than a Java array holds");
          }
          out = new byte[(int) c.getTotalSize()];
        }
        if (c.getOffset() != received) {
          throw new IOException("blob " + blobId + ": chunk at offset " + c.getOffset()
              + ", expected " + received);
        }
        if (received + c.getData().size() > out.length) {
          throw new IOException("blob " + blobId + ": more bytes than its total size " + out.length);
        }
        c.getData().copyTo(out, received);
        received += c.getData().size();
      }
      if (out == null) {
        throw new IOException("blob " + blobId + ": control sent no chunk");
      }
      if (received != out.length) {
        throw new IOException("blob " + blobId + ": got " + received + " of " + out.length + " bytes");
      }
      return out;
    } catch (StatusRuntimeException e) {
      throw new IOException("blob " + blobId + ": " + e.getStatus(), e);
    }
  }

  /**
   * Uploads {@code data} in one UploadBlob stream and returns the blob id control stored it under.
   * A chunk is sent when the stream has room for it (gRPC's flow control), so the upload holds no
   * copy of {@code data}: each message wraps its slice of the array, which nothing changes meanwhile.
   */
  public String put(byte[] data) throws IOException {
    // The same channel and compression as the blocking stub (a client-streaming call needs the
    // asynchronous stub; generated stubs do not take another's call options as a whole).
    WorkerServiceGrpc.WorkerServiceStub async = WorkerServiceGrpc.newStub(stub.getChannel());
    if (stub.getCallOptions().getCompressor() != null) {
      async = async.withCompression(stub.getCallOptions().getCompressor());
    }
    CompletableFuture<UploadBlobResponse> answer = new CompletableFuture<>();
    async.uploadBlob(new ClientResponseObserver<UploadBlobRequest, UploadBlobResponse>() {
      private int offset;
      private boolean sentLast;

      @Override
      public void beforeStart(ClientCallStreamObserver<UploadBlobRequest> requests) {
        // gRPC runs this handler once the call can take messages and again whenever it has room.
        requests.setOnReadyHandler(() -> {
          while (!sentLast && requests.isReady()) {
            int n = Math.min(CHUNK, data.length - offset);
            sentLast = offset + n == data.length;
            requests.onNext(UploadBlobRequest.newBuilder()
                .setOffset(offset)
                .setData(UnsafeByteOperations.unsafeWrap(data, offset, n))
                .setFinish(sentLast)
                .build());
            offset += n;
            if (sentLast) {
              requests.onCompleted();
            }
          }
        });
      }

      @Override
      public void onNext(UploadBlobResponse r) {
        answer.complete(r);
      }

      @Override
      public void onError(Throwable t) {
        answer.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        answer.completeExceptionally(new IOException("control closed the upload without an answer"));
      }
    });
    UploadBlobResponse r;
    try {
      r = answer.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("upload interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof StatusRuntimeException s) {
        throw new IOException("upload: " + s.getStatus(), s);
      }
      throw new IOException("upload: " + cause.getMessage(), cause);
    }
    if (r.getSize() != data.length || r.getBlobId().isEmpty()) {
      throw new IOException("upload: control stored " + r.getSize() + " bytes as '" + r.getBlobId()
          + "', sent " + data.length);
    }
    return r.getBlobId();
  }
}
