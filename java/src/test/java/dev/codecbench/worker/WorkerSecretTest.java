package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.ReportResultRequest;
import io.grpc.ClientInterceptors;
import io.grpc.StatusRuntimeException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Once attached, every blob call names the worker by its report secret; no other call does. */
class WorkerSecretTest {
  @Test
  void blobCallsCarryTheSecretOnceSetAndOtherCallsNever() throws Exception {
    try (FakeBlobStore store = new FakeBlobStore()) {
      WorkerSecret secret = new WorkerSecret();
      WorkerServiceGrpc.WorkerServiceBlockingStub stub =
          WorkerServiceGrpc.newBlockingStub(ClientInterceptors.intercept(store.channel, secret));
      BlobClient blobs = new BlobClient(stub);
      blobs.put(new byte[] {1});
      secret.set("0123abcd");
      // put() makes an asynchronous stub on the blocking stub's channel: the secret goes along.
      String id = blobs.put(new byte[] {2, 3});
      assertArrayEquals(new byte[] {2, 3}, blobs.get(id));
      assertThrows(StatusRuntimeException.class, () -> stub.reportResult(ReportResultRequest.getDefaultInstance()));
      assertEquals(List.of("UploadBlob ", "UploadBlob 0123abcd", "GetBlob 0123abcd", "ReportResult "), store.secrets);
    }
  }
}
