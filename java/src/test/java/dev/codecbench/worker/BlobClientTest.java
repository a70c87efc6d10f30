package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import codecbench.v1.WorkerServiceGrpc;
import org.junit.jupiter.api.Test;

/** Uploads stream in order, in chunks of at most 1 MiB, and come back whole. */
class BlobClientTest {
  @Test
  void uploadsOfAnySizeStreamInOrderAndComeBackWhole() throws Exception {
    try (FakeBlobStore store = new FakeBlobStore()) {
      BlobClient blobs = new BlobClient(WorkerServiceGrpc.newBlockingStub(store.channel));
      // Empty, under one chunk, exactly two chunks, and two and a half.
      for (int size : new int[] {0, 5, 2 << 20, (5 << 20) / 2}) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
          data[i] = (byte) (i * 7 % 251);
        }
        String id = blobs.put(data);
        assertEquals(store.add(data), id, size + " bytes: the id is the bytes' SHA-256");
        assertArrayEquals(data, blobs.get(id), size + " bytes");
      }
      assertEquals(4, store.finishedUploads.get());
    }
  }
}
