package dev.codecbench.worker.codec;

import dev.codecbench.worker.dataset.Dataset;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * What a codec builds once per dataset (a reader and writer, a mapping), or why it refuses the
 * dataset, by {@link Dataset#index()}. Built for the given datasets when the codec is, and for a
 * dataset registered later (a user's, loaded at start-up) on its first use, which verification
 * makes before anything is timed. A lookup is an array read.
 */
final class PerDataset<T> {
  /** A dataset the codec carries ({@code value}), or refuses ({@code refused}, the reason). */
  record Entry<T>(T value, String refused) {}

  /**
   * Builds a dataset's value; throwing IllegalStateException refuses it with the message (which
   * names the codec); any other failure refuses it too, with what failed.
   */
  @FunctionalInterface
  interface Build<T> {
    T build(Dataset<?> dataset);
  }

  private final String codec;
  private final Build<T> build;
  private volatile Entry<T>[] entries;

  @SuppressWarnings("unchecked")
  PerDataset(String codec, List<Dataset<?>> datasets, Build<T> build) {
    this.codec = codec;
    this.build = build;
    Entry<T>[] built = new Entry[datasets.stream().mapToInt(Dataset::index).max().orElse(-1) + 1];
    for (Dataset<?> d : datasets) {
      built[d.index()] = entry(d);
    }
    this.entries = built;
  }

  private Entry<T> entry(Dataset<?> d) {
    try {
      return new Entry<>(build.build(d), null);
    } catch (IllegalStateException e) {
      return new Entry<>(null, e.getMessage());
    } catch (RuntimeException e) {
      // A user's schema may hold what no mapping foresaw: refused (and announced), not a crash.
      return new Entry<>(null, codec + ": dataset '" + d.id() + "' cannot be mapped: " + e);
    }
  }

  Entry<T> get(Dataset<?> d) {
    Entry<T>[] e = entries;
    int i = d.index();
    if (i < e.length && e[i] != null) {
      return e[i];
    }
    return add(d);
  }

  private synchronized Entry<T> add(Dataset<?> d) {
    Entry<T>[] e = entries;
    int i = d.index();
    if (i < e.length && e[i] != null) {
      return e[i];
    }
    Entry<T>[] grown = Arrays.copyOf(e, Math.max(e.length, i + 1));
    grown[i] = entry(d);
    entries = grown;
    return grown[i];
  }
}
