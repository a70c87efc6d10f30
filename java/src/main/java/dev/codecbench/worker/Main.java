package dev.codecbench.worker;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;

/**
 * Entry point: {@code java -jar codecbench-java-worker.jar --control http://HOST:PORT --name java},
 * or {@code java -jar codecbench-java-worker.jar vectors DIR} to write Java's golden vectors.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("vectors")) {
      System.exit(Vectors.main(args));
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
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(options.target()).usePlaintext();
    if (!options.token().isEmpty()) {
      // Control requires its token on every call (docs/DESIGN.md, "Access").
      Metadata auth = new Metadata();
      auth.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + options.token());
      builder.intercept(MetadataUtils.newAttachHeadersInterceptor(auth));
    }
    ManagedChannel channel = builder.build();
    String why;
    try {
      why = new WorkerLoop(options, channel).run();
    } finally {
      channel.shutdownNow();
      try {
        channel.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    WorkerLoop.log(why);
    System.exit(1);
  }
}
