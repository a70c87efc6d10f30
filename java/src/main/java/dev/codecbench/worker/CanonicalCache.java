package dev.codecbench.worker;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Canonical blobs by id. A run sends many trials over the same canonical blob; keeping the last
 * few avoids fetching it again, and bounds memory for large matrices. Each trial's child JVM
 * converts the bytes to its model itself.
 */
final class CanonicalCache {
  private static final int KEEP = 2;

  private final BlobClient blobs;
  private final Map<String, byte[]> byBlob =
      new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
          return size() > KEEP;
        }
      };

  CanonicalCache(BlobClient blobs) {
    this.blobs = blobs;
  }

  byte[] get(String blobId) throws TaskFailure {
    byte[] hit = byBlob.get(blobId);
    if (hit != null) {
      return hit;
    }
    byte[] blob;
    try {
      blob = blobs.get(blobId);
    } catch (IOException e) {
      throw TaskFailure.at("fetch", "canonical records: " + e.getMessage());
    }
    byBlob.put(blobId, blob);
    return blob;
  }

  void clear() {
    byBlob.clear();
  }
}
