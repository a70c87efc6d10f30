package dev.codecbench.worker.userdata;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the worker's classes are (its jar, or target/classes in a build) and a hash of them: the
 * models compiled against one build are not reused by another.
 */
final class WorkerCode {
  /**
   * The hash, as the worker hands it to a trial's child JVM (same classes, same location): the
   * child need not read the jar again.
   */
  static final String HASH_PROPERTY = "codecbench.worker.hash";
  private static String hash = System.getProperty(HASH_PROPERTY);

  private WorkerCode() {}

  /** The worker's jar, or its classes directory. */
  static Path location() throws UserDataException {
    try {
      return Path.of(WorkerCode.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      throw new UserDataException("cannot tell where the worker's classes are: " + e);
    }
  }

  /**
   * SHA-256 of the jar's bytes; of a classes directory, of every file's path, size and time
   * (reading them all would be slower than a build, and a build rewrites what it changes).
   * Computed once per JVM.
   */
  static synchronized String hash() throws UserDataException {
    if (hash != null) {
      return hash;
    }
    Path at = location();
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    try {
      if (Files.isRegularFile(at)) {
        try (InputStream in = Files.newInputStream(at)) {
          byte[] buf = new byte[1 << 16];
          for (int n; (n = in.read(buf)) > 0; ) {
            sha.update(buf, 0, n);
          }
        }
      } else {
        List<Path> files;
        try (Stream<Path> all = Files.walk(at)) {
          files = all.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
          sha.update((at.relativize(f) + " " + Files.size(f) + " " + Files.getLastModifiedTime(f).toMillis() + "\n")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      throw new UserDataException("cannot read the worker's classes at " + at + ": " + e.getMessage());
    }
    hash = HexFormat.of().formatHex(sha.digest());
    return hash;
  }
}
