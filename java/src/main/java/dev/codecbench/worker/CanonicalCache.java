package dev.codecbench.worker;

import dev.codecbench.worker.dataset.Canonical;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Canonical records by blob id. A run sends many tasks over the same canonical blob; keeping the
 * last few avoids fetching and converting it again, and bounds memory for large matrices.
 */
final class CanonicalCache {
  private static final int KEEP = 2;

  private final BlobClient blobs;
  private final Map<String, Canonical<?>> byBlob =
      new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Canonical<?>> eldest) {
          return size() > KEEP;
        }
      };

  CanonicalCache(BlobClient blobs) {
    this.blobs = blobs;
  }

  @SuppressWarnings("unchecked")
  <R> Canonical<R> get(Dataset<R> dataset, String blobId, int recordCount) throws TaskFailure {
    Canonical<?> hit = byBlob.get(blobId);
    if (hit != null && hit.dataset() == dataset) {
      return (Canonical<R>) hit;
    }
    byte[] blob;
    try {
      blob = blobs.get(blobId);
    } catch (IOException e) {
      throw TaskFailure.at("fetch", "canonical records: " + e.getMessage());
    }
    Canonical<R> canonical;
    try {
      canonical = dataset.parseCanonical(blob);
    } catch (IOException e) {
      throw TaskFailure.at("fetch", "canonical blob " + blobId + " is not a " + dataset.id()
          + " dataset message: " + e.getMessage());
    }
    if (canonical.size() != recordCount) {
      throw TaskFailure.at("fetch", "canonical blob " + blobId + " has " + canonical.size()
          + " records, the task says " + recordCount);
    }
    byBlob.put(blobId, canonical);
    return canonical;
  }

  void clear() {
    byBlob.clear();
  }
}
