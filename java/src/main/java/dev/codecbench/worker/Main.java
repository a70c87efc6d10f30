package dev.codecbench.worker;

import dev.codecbench.worker.userdata.UserDataException;
import dev.codecbench.worker.userdata.UserDatasets;
import io.grpc.DecompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;

/**
 * Entry point: {@code java -jar codecbench-java-worker.jar --control http://HOST:PORT --name java
 * [--user-dataset dataset.json]...}, {@code java -jar codecbench-java-worker.jar vectors DIR} to
 * write Java's golden vectors, or {@code java -jar codecbench-java-worker.jar build-user-datasets
 * dataset.json...} to build user datasets' models ahead of a worker's start.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("vectors")) {
      System.exit(Vectors.main(args));
      return;
    }
    if (args.length > 0 && args[0].equals("build-user-datasets")) {
      System.exit(UserDatasets.main(args));
      return;
    }
    Options options;
    try {
      options = Options.parse(args, System.getenv());
    } catch (Options.UsageException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println("codecbench-java-worker: " + e.getMessage());
      }
      System.err.print(Options.USAGE);
      System.exit(e.getMessage().isEmpty() ? 0 : 2);
      return;
    }
    // A user's dataset is registered before any codec is built (each builds its mappings then).
    for (java.nio.file.Path manifest : options.userDatasets()) {
      try {
        UserDatasets.Loaded loaded = UserDatasets.load(manifest);
        WorkerLoop.log(loaded.line());
        loaded.fingerprintWarning().ifPresent(w -> WorkerLoop.log("warning: " + w));
      } catch (UserDataException e) {
        System.err.println("codecbench-java-worker: " + e.getMessage());
        System.exit(2);
        return;
      }
    }
    // grpc-java advertises gzip for answers on every call unless told otherwise, and control
    // compresses for a client that does: every call but a gzip transfer leg goes on a channel
    // that advertises nothing (identity), the gzip legs on a second one (BlobClient).
    ManagedChannel channel = channel(options, DecompressorRegistry.emptyInstance());
    ManagedChannel gzipChannel = channel(options, DecompressorRegistry.getDefaultInstance());
    String why;
    try {
      why = new WorkerLoop(options, channel, gzipChannel).run();
    } finally {
      for (ManagedChannel c : new ManagedChannel[] {channel, gzipChannel}) {
        c.shutdownNow();
      }
      try {
        channel.awaitTermination(2, TimeUnit.SECONDS);
        gzipChannel.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    WorkerLoop.log(why);
    System.exit(1);
  }

  private static ManagedChannel channel(Options options, DecompressorRegistry answers) {
    ManagedChannelBuilder<?> builder =
        ManagedChannelBuilder.forTarget(options.target()).usePlaintext().decompressorRegistry(answers);
    if (!options.token().isEmpty()) {
      // Control requires its token on every call (docs/operating.md, "the token").
      Metadata auth = new Metadata();
      auth.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + options.token());
      builder.intercept(MetadataUtils.newAttachHeadersInterceptor(auth));
    }
    return builder.build();
  }
}
