package dev.codecbench.worker.codec;

import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.bench.Streams;
import dev.codecbench.worker.dataset.Dataset;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the fuzz and fixture tests share: one decode called as a decode trial calls it
 * (Trial.decode: {@link Codec#validate} first, then typed = decodeTyped, tree = decodeTree and the
 * verification's treeToRecords, lazy = decodeLazy with the dataset's lazy fields, streaming =
 * decodeStreaming over 4 KiB reads), on a thread of its own so that it is bounded in time
 * ({@link #CASE_BOUND_MS}) and its allocations are counted ({@link #ALLOC_BOUND}).
 */
final class BoundedDecode {
  static final long CASE_BOUND_MS = 5_000;
  /** A corrupt length must not make the codec allocate what the payload cannot hold. */
  static final long ALLOC_BOUND = 16L << 20;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static ExecutorService runner = newRunner();

  static {
    if (!THREADS.isThreadAllocatedMemorySupported()) {
      throw new IllegalStateException("this JVM cannot count a thread's allocations");
    }
    THREADS.setThreadAllocatedMemoryEnabled(true);
  }

  private BoundedDecode() {}

  private static ExecutorService newRunner() {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "bounded-decode");
      t.setDaemon(true); // a hung decode must not keep the test JVM alive
      return t;
    });
  }

  /** One input: its bytes and the dataset whose shape typed and lazy decodes read. */
  record Input(Dataset<?> dataset, byte[] bytes, String how) {}

  /** What one call did. */
  record Result(String kind, Throwable thrown, long allocated) {
    static final String DECODED = "decoded";
    static final String REJECTED = "rejected";
  }

  /** The worker's decode in {@code mode} (Trial.decode: validate, then the mode's entry). */
  static void decodeAsTheWorkerDoes(Codec codec, String mode, Dataset<?> dataset, byte[] payload)
      throws CodecException {
    codec.validate(payload);
    switch (mode) {
      case Codec.TYPED -> codec.decodeTyped(dataset, payload);
      case Codec.TREE -> codec.treeToRecords(dataset, codec.decodeTree(payload));
      case Codec.LAZY -> codec.decodeLazy(dataset, payload, CanonicalVectors.LAZY_FIELDS.get(dataset.id()), v -> {});
      case Codec.STREAMING -> codec.decodeStreaming(dataset, new Streams.Chunked(payload), r -> {});
      default -> throw new IllegalArgumentException("decode mode " + mode);
    }
  }

  /** Runs one call on the decode thread, bounded in time; counts what that thread allocated. */
  static synchronized Result run(Codec codec, String mode, Input in) throws InterruptedException {
    Future<Result> f = runner.submit(() -> {
      long before = THREADS.getCurrentThreadAllocatedBytes();
      String kind;
      Throwable thrown = null;
      try {
        decodeAsTheWorkerDoes(codec, mode, in.dataset(), in.bytes());
        kind = Result.DECODED;
      } catch (CodecException e) {
        kind = Result.REJECTED;
        thrown = e;
      } catch (Throwable t) {
        kind = "escaped " + t.getClass().getName();
        thrown = t;
      }
      return new Result(kind, thrown, THREADS.getCurrentThreadAllocatedBytes() - before);
    });
    try {
      return f.get(CASE_BOUND_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      runner.shutdownNow();
      runner = newRunner(); // the old thread may stay stuck; later calls get a fresh one
      return new Result("hang (over " + CASE_BOUND_MS + " ms)", null, 0);
    } catch (ExecutionException e) {
      return new Result("escaped " + e.getCause(), e.getCause(), 0);
    }
  }

  /**
   * Why a result breaks the contract, or empty: decoded, or rejected with a CodecException whose
   * message starts with the codec's id; within the time and allocation bounds.
   */
  static Optional<String> problem(Codec codec, Result r) {
    if (r.allocated() > ALLOC_BOUND) {
      return Optional.of("allocated " + r.allocated() + " bytes (bound " + ALLOC_BOUND + ")");
    }
    for (Throwable t = r.thrown(); t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError) {
        return Optional.of("ran out of memory: " + t);
      }
    }
    if (r.kind().equals(Result.DECODED)) {
      return Optional.empty();
    }
    if (r.kind().equals(Result.REJECTED)) {
      String m = r.thrown().getMessage();
      return m != null && m.startsWith(codec.id() + " ") ? Optional.empty()
          : Optional.of("CodecException without the codec's message: " + m);
    }
    return Optional.of(r.kind() + (r.thrown() == null ? "" : ": " + r.thrown()));
  }
}
