package dev.codecbench.worker.userdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codecbench.worker.UserSchemas;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * build-user-datasets: one line per dataset (built, or cached and quick), exit 0; a manifest the
 * worker cannot carry is one precise message and exit 2. The cache is keyed by what the models
 * are made from.
 */
class UserDatasetBuildTest {
  @TempDir
  Path dir;

  /** Runs the command; exit code, stdout and stderr. */
  private record Run(int exit, String out, String err) {}

  private static Run cli(Path... manifests) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    String[] args = Stream.concat(Stream.of("build-user-datasets"), Stream.of(manifests).map(Path::toString))
        .toArray(String[]::new);
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      int exit = UserDatasets.main(args);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void buildsOnceThenFindsTheCacheQuickly() throws Exception {
    Path m = UserSchemas.write(dir.resolve("plain"), UserSchemas.PLAIN, "zz_cli", "zz.plain.v1.Plain", "json",
        List.of("order_id"));
    Run first = cli(m);
    assertEquals(0, first.exit(), first.err());
    assertTrue(Pattern.matches("java: zz_cli \\(zz\\.plain\\.v1\\.Plain\\): models generated and compiled in \\d+\\.\\d s\n",
        first.out()), first.out());
    assertEquals("", first.err());
    try (Stream<Path> entries = Files.list(dir.resolve("plain/java"))) {
      List<Path> all = entries.toList();
      assertEquals(1, all.size(), "one cache entry, no leftover build directory: " + all);
      assertTrue(Files.isDirectory(all.get(0).resolve("classes/dev/codecbench/user")), all.get(0).toString());
    }
    Run again = cli(m);
    assertEquals(new Run(0, "java: zz_cli (zz.plain.v1.Plain): cached\n", ""), again);
    UserDatasets.Loaded cached = UserDatasets.build(m);
    assertTrue(cached.cached());
    assertTrue(cached.seconds() < 5, "a cached load takes " + cached.seconds() + " s");
    // The fingerprint computed from the loaded descriptors, as the harness computes it.
    assertEquals("7a42e3eb48aa575a", cached.fingerprint());
  }

  @Test
  void theCacheKeyChangesWithWhatTheModelsAreMadeFrom() throws Exception {
    byte[] set = {1, 2, 3};
    Manifest m = new Manifest(dir.resolve("dataset.json"), "x", "a.B", dir.resolve("d.binpb"), "json", List.of(), "");
    String key = ModelCache.key(set, m);
    assertEquals(key, ModelCache.key(set.clone(), new Manifest(m.file(), "other_id", m.message(), m.descriptorSet(),
        "json", List.of("lazy"), "f00d")), "the id, lazy fields and fingerprint are not in the models");
    assertNotEquals(key, ModelCache.key(new byte[] {1, 2, 4}, m));
    assertNotEquals(key, ModelCache.key(set, new Manifest(m.file(), "x", "a.C", m.descriptorSet(), "json", List.of(), "")));
    assertNotEquals(key, ModelCache.key(set, new Manifest(m.file(), "x", "a.B", m.descriptorSet(), "proto", List.of(), "")));
  }

  private Path manifest(String name, String json) throws Exception {
    Path m = dir.resolve(name);
    Files.writeString(m, json);
    return m;
  }

  private static String failure(Path manifest) {
    return assertThrows(UserDataException.class, () -> UserDatasets.build(manifest)).getMessage();
  }

  @Test
  void aManifestTheWorkerCannotCarryIsOnePreciseMessageAndExit2() throws Exception {
    Path good = UserSchemas.write(dir.resolve("plain"), UserSchemas.PLAIN, "zz_bad", "zz.plain.v1.Plain", "json", List.of());
    Path set = good.resolveSibling("descriptors.binpb").toAbsolutePath();

    Path missing = dir.resolve("nowhere/dataset.json");
    assertEquals(missing + ": no such manifest file", failure(missing));

    Path noSet = manifest("no-set.json", "{\"id\": \"zz_bad\", \"message\": \"zz.plain.v1.Plain\", \"descriptorSet\": "
        + "\"missing.binpb\"}");
    assertEquals(noSet + ": descriptorSet " + dir.resolve("missing.binpb") + ": no such file", failure(noSet));

    Path noMessage = good.resolveSibling("no-message.json");
    Files.writeString(noMessage, "{\"id\": \"zz_bad\", \"message\": \"zz.plain.v1.Nope\", \"descriptorSet\": "
        + "\"descriptors.binpb\"}");
    assertEquals("message zz.plain.v1.Nope is not in " + noMessage + ": descriptorSet " + set
        + " (its messages: zz.plain.v1.Customer, zz.plain.v1.Line, zz.plain.v1.Plain)", failure(noMessage));

    Path names = manifest("names.json", "{\"id\": \"zz_bad\", \"message\": \"a.B\", \"descriptorSet\": \"d.binpb\", "
        + "\"fieldNames\": \"camel\"}");
    assertEquals(names + ": \"fieldNames\" is 'camel', not \"json\" or \"proto\"", failure(names));
    Path noKey = manifest("no-key.json", "{\"id\": \"zz_bad\", \"descriptorSet\": \"d.binpb\"}");
    assertEquals(noKey + ": \"message\" is missing", failure(noKey));
    Path badId = manifest("bad-id.json", "{\"id\": \"Orders!\", \"message\": \"a.B\", \"descriptorSet\": \"d.binpb\"}");
    assertTrue(failure(badId).startsWith(badId + ": \"id\" 'Orders!' is not 1 to 64 lowercase letters"));

    Files.write(dir.resolve("junk.binpb"), new byte[] {(byte) 0xff, 1, 2});
    Path junk = manifest("junk.json", "{\"id\": \"zz_bad\", \"message\": \"a.B\", \"descriptorSet\": \"junk.binpb\"}");
    assertTrue(failure(junk).startsWith(junk + ": descriptorSet " + dir.resolve("junk.binpb") + " is not a FileDescriptorSet: "),
        failure(junk));

    Run run = cli(good, noMessage);
    assertEquals(2, run.exit());
    assertTrue(run.out().startsWith("java: zz_bad (zz.plain.v1.Plain): "), run.out());
    assertEquals("java: " + failure(noMessage) + "\n", run.err(), "one line, the precise message");
  }

  @Test
  void aSchemaTheModelCannotHoldOrThatDoesNotBuildIsRefusedNamingWhy() throws Exception {
    Path loop = UserSchemas.write(dir.resolve("loop"), Map.of("zz/loop/v1/loop.proto", """
        syntax = "proto3";
        package zz.loop.v1;
        message Node {
          string name = 1;
          Edge out = 2;
          repeated Node children = 3;
        }
        message Edge {
          Node to = 1;
        }
        """), "zz_loop", "zz.loop.v1.Node", "json", List.of());
    assertTrue(failure(loop).endsWith(": message zz.loop.v1.Node contains itself through zz.loop.v1.Node.out -> "
        + "zz.loop.v1.Edge.to; the Java model holds an unset message as its default record, so it cannot hold this"),
        failure(loop));

    // A set written without its imports (protoc without --include_imports).
    Path partial = UserSchemas.write(dir.resolve("partial"), UserSchemas.EVERYTHING, "zz_partial",
        "zz.unknown.v1.Everything", "json", List.of());
    byte[] whole = Files.readAllBytes(partial.resolveSibling("descriptors.binpb"));
    var set = com.google.protobuf.DescriptorProtos.FileDescriptorSet.parseFrom(whole);
    Files.write(partial.resolveSibling("descriptors.binpb"), set.toBuilder()
        .removeFile(set.getFileList().indexOf(set.getFileList().stream()
            .filter(f -> f.getName().equals("zz/shared/v1/parts.proto")).findFirst().orElseThrow()))
        .build().toByteArray());
    assertTrue(failure(partial).endsWith(" does not build: it imports zz/shared/v1/parts.proto, which the set does "
        + "not hold (protoc --include_imports writes it)"), failure(partial));
  }
}
