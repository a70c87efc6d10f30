package dev.codecbench.worker;

import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.GetBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.GetBlobResponse;
import codecbench.v1.WorkerServiceOuterClass.PutBlobRequest;
import codecbench.v1.WorkerServiceOuterClass.PutBlobResponse;
import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

/** Control's blob store, in chunks of at most 1 MiB each way. */
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

  /** Uploads {@code data} and returns the blob id control stored it under. */
  public String put(byte[] data) throws IOException {
    String uploadId = UUID.randomUUID().toString();
    try {
      int offset = 0;
      while (true) {
        int n = Math.min(CHUNK, data.length - offset);
        boolean last = offset + n == data.length;
        PutBlobResponse r =
            stub.putBlob(
                PutBlobRequest.newBuilder()
                    .setUploadId(uploadId)
                    .setOffset(offset)
                    .setData(ByteString.copyFrom(data, offset, n))
                    .setFinish(last)
                    .build());
        offset += n;
        if (last) {
          if (r.getSize() != data.length || r.getBlobId().isEmpty()) {
            throw new IOException("upload " + uploadId + ": control stored " + r.getSize()
                + " bytes as '" + r.getBlobId() + "', sent " + data.length);
          }
          return r.getBlobId();
        }
      }
    } catch (StatusRuntimeException e) {
      throw new IOException("upload " + uploadId + ": " + e.getStatus(), e);
    }
  }
}
