package dev.codecbench.worker.e2e;

import codecbench.v1.HarnessServiceGrpc;
import codecbench.v1.HarnessServiceOuterClass.ListWorkersRequest;
import codecbench.v1.WorkerServiceGrpc;
import codecbench.v1.WorkerServiceOuterClass.WorkerInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real control, a Rust worker and the Java worker (the packaged jar), each a child process whose
 * output goes to target/e2e-logs. Closing it kills all three.
 */
final class Cluster implements AutoCloseable {
  static final Path RUST_BIN = Path.of("..", "rust", "target", "release");
  private static final Pattern LISTENING = Pattern.compile("codecbench-control listening on (\\S+:\\d+)");

  private final Path logs;
  private final List<Process> processes = new ArrayList<>();
  final String address;
  final ManagedChannel channel;
  final HarnessServiceGrpc.HarnessServiceBlockingStub harness;
  final WorkerServiceGrpc.WorkerServiceBlockingStub workers;

  /** Why the end-to-end tests cannot run here (binaries not built), or empty when they can. */
  static Optional<String> unavailable() {
    Path control = RUST_BIN.resolve("codecbench-control");
    Path rustWorker = RUST_BIN.resolve("codecbench-worker");
    if (!Files.isExecutable(control) || !Files.isExecutable(rustWorker)) {
      return Optional.of("end-to-end test skipped: " + control + " and " + rustWorker
          + " are not built (build the Rust workspace in release mode first)");
    }
    if (!Files.isRegularFile(workerJar())) {
      return Optional.of("end-to-end test skipped: " + workerJar() + " is not built (mvn package)");
    }
    return Optional.empty();
  }

  static Path workerJar() {
    return Path.of(System.getProperty("codecbench.workerJar", "target/codecbench-java-worker.jar"));
  }

  static Cluster start(Path stateDir, String name) throws Exception {
    return new Cluster(stateDir, name, RUST_BIN.resolve("codecbench-control"),
        RUST_BIN.resolve("codecbench-worker"), workerJar());
  }

  private Cluster(Path stateDir, String name, Path control, Path rustWorker, Path jar) throws Exception {
    this.logs = Path.of("target", "e2e-logs", name);
    Files.createDirectories(logs);
    try {
      Process c = spawn("control", control.toString(), "--listen", "127.0.0.1:0", "--state-dir", stateDir.toString());
      this.address = awaitListening(c, logs.resolve("control.out"));
      this.channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
      this.harness = HarnessServiceGrpc.newBlockingStub(channel);
      this.workers = WorkerServiceGrpc.newBlockingStub(channel);
      String url = "http://" + address;
      spawn("rust-worker", rustWorker.toString(), "--control", url, "--name", "rust");
      String javaBin = ProcessHandle.current().info().command().orElse("java");
      // The JIT minimum warm-up is lowered to keep the test short; it is recorded in extras.
      spawn("java-worker", javaBin, "-jar", jar.toString(), "--control", url, "--name", "java",
          "--min-warmup-ms", "100");
      awaitWorker("rust");
      awaitWorker("java");
    } catch (Exception | AssertionError e) {
      close();
      throw e;
    }
  }

  private Process spawn(String what, String... command) throws IOException {
    Process p = new ProcessBuilder(command)
        .redirectOutput(logs.resolve(what + ".out").toFile())
        .redirectError(logs.resolve(what + ".err").toFile())
        .start();
    processes.add(p);
    return p;
  }

  private String awaitListening(Process control, Path out) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(Files.readString(out));
      if (m.find()) {
        return m.group(1);
      }
      if (!control.isAlive()) {
        throw new AssertionError("control exited with " + control.exitValue()
            + " before listening; see " + logs.toAbsolutePath());
      }
      Thread.sleep(50);
    }
    throw new AssertionError("control did not print 'codecbench-control listening on' within 30 s; see "
        + logs.toAbsolutePath());
  }

  /** Waits until a worker of this language is attached and returns it. */
  WorkerInfo awaitWorker(String language) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Optional<WorkerInfo> w = worker(language);
      if (w.isPresent()) {
        return w.get();
      }
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new AssertionError("a child process exited with " + p.exitValue() + "; see " + logs.toAbsolutePath());
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no " + language + " worker attached within 60 s; see " + logs.toAbsolutePath());
  }

  Optional<WorkerInfo> worker(String language) {
    return harness.listWorkers(ListWorkersRequest.getDefaultInstance()).getWorkersList().stream()
        .filter(w -> w.getEnvironment().getLanguage().equals(language))
        .findFirst();
  }

  Path logs() {
    return logs.toAbsolutePath();
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.shutdownNow();
    }
    // Workers first, then control, so nobody logs a lost control as the cause of anything.
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process p = processes.get(i);
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroy();
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
