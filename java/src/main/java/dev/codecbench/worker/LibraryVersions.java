package dev.codecbench.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** Versions of the libraries this worker was built with (filtered from pom.xml at build time). */
public final class LibraryVersions {
  private static final Properties VERSIONS = load();

  private LibraryVersions() {}

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in = LibraryVersions.class.getResourceAsStream("/codecbench-versions.properties")) {
      if (in == null) {
        throw new IllegalStateException("codecbench-versions.properties is missing from the jar");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** The recorded version of {@code library}, or null where none is. */
  public static String find(String library) {
    return VERSIONS.getProperty(library);
  }

  public static String get(String library) {
    String v = find(library);
    if (v == null) {
      throw new IllegalArgumentException("no version recorded for " + library);
    }
    return v;
  }

  public static Map<String, String> all() {
    Map<String, String> out = new TreeMap<>();
    VERSIONS.forEach((k, v) -> out.put((String) k, (String) v));
    return out;
  }
}
