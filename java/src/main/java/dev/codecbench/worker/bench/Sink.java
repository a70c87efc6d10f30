package dev.codecbench.worker.bench;

/**
 * Consumes every timed result. A write to a volatile static escapes the value, so the JIT cannot
 * drop the work that produced it; it costs one store per operation.
 */
public final class Sink {
  @SuppressWarnings("unused")
  private static volatile Object last;

  private Sink() {}

  public static void consume(Object result) {
    last = result;
  }
}
