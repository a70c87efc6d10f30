package dev.codecbench.worker.userdata;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/** Compiles generated sources in this JVM (javax.tools), against the worker's own classpath. */
final class Javac {
  private Javac() {}

  static void compile(Path sources, Path classes) throws UserDataException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new UserDataException("the JVM at " + System.getProperty("java.home") + " has no Java compiler "
          + "(javax.tools): the worker compiles a user's models at start-up, so it needs a JDK, not a JRE");
    }
    List<Path> files;
    try (Stream<Path> all = Files.walk(sources)) {
      files = all.filter(p -> p.toString().endsWith(".java")).sorted().toList();
      Files.createDirectories(classes);
    } catch (IOException e) {
      throw new UserDataException("cannot list the generated sources in " + sources + ": " + e.getMessage());
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options = List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path"),
          "--release", "17", "-encoding", "UTF-8", "-proc:none", "-nowarn", "-Xlint:none");
      StringWriter out = new StringWriter();
      boolean ok = javac.getTask(out, fm, diagnostics, options, null, fm.getJavaFileObjectsFromPaths(files)).call();
      if (!ok) {
        Diagnostic<? extends JavaFileObject> first = diagnostics.getDiagnostics().stream()
            .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).findFirst().orElse(null);
        throw new UserDataException("javac failed on the generated models"
            + (first == null ? ": " + out.toString().strip()
                : " at " + (first.getSource() == null ? "?" : Path.of(first.getSource().toUri()).toString()) + ":"
                    + first.getLineNumber() + ": " + first.getMessage(Locale.ROOT)));
      }
    } catch (IOException e) {
      throw new UserDataException("javac: " + e.getMessage());
    }
  }
}
