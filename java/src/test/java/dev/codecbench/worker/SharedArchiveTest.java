package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ForkedTrials.withSharedArchive: a trial JVM gets the class-data-sharing archive beside the jar
 * only when the JVM maps it with that class path; a stale, foreign or broken archive is left out,
 * and so is one the user's own flags overrule.
 */
class SharedArchiveTest {
  private static final List<String> FLAGS = List.of("-Xmx256m");

  private static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** A real jar (protobuf's, from the test class path) copied to {@code dir/worker.jar}. */
  private static Path jar(Path dir) throws Exception {
    Path source = Path.of(com.google.protobuf.Message.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return Files.copy(source, dir.resolve("worker.jar"));
  }

  private static void train(Path jar, Path archive) throws Exception {
    Process p = new ProcessBuilder(java().toString(), "-Xlog:cds=error", "-XX:ArchiveClassesAtExit=" + archive, "-cp",
        jar.toString(), "-version").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    p.waitFor(60, TimeUnit.SECONDS);
    assertEquals(0, p.exitValue());
  }

  @Test
  void anArchiveThatMapsIsAddedAndAStaleOrForeignOneIsNot(@TempDir Path dir) throws Exception {
    Path jar = jar(dir);
    Path archive = dir.resolve("worker.jsa");
    assertEquals(FLAGS, ForkedTrials.withSharedArchive(FLAGS, jar.toString()), "no archive: unchanged");
    train(jar, archive);
    assertEquals(List.of("-Xmx256m", "-XX:SharedArchiveFile=" + archive),
        ForkedTrials.withSharedArchive(FLAGS, jar.toString()));
    // The user's own sharing flags win.
    assertEquals(List.of("-Xshare:off"), ForkedTrials.withSharedArchive(List.of("-Xshare:off"), jar.toString()));
    // A class path of several entries is not the packaged worker.
    assertEquals(FLAGS, ForkedTrials.withSharedArchive(FLAGS, jar + java.io.File.pathSeparator + dir));
    // A jar rebuilt after its archive: the archive is stale.
    Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(archive).toMillis() + 60_000));
    assertEquals(FLAGS, ForkedTrials.withSharedArchive(FLAGS, jar.toString()));
  }

  @Test
  void aBrokenArchiveIsLeftOut(@TempDir Path dir) throws Exception {
    Path jar = jar(dir);
    Files.write(dir.resolve("worker.jsa"), new byte[] {1, 2, 3, 4});
    assertEquals(FLAGS, ForkedTrials.withSharedArchive(FLAGS, jar.toString()));
  }
}
