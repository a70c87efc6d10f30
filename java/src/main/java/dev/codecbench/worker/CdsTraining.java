package dev.codecbench.worker;

import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceOuterClass.Task;
import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecRegistry;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class-data-sharing archive's training run (the Makefile's {@code java} target):
 * {@code java -XX:ArchiveClassesAtExit=codecbench-java-worker.jsa -cp JAR
 * dev.codecbench.worker.CdsTraining codecs/vectors} runs one tiny trial of every codec, every
 * dataset and every decode mode through {@link Trial}, the code a trial JVM runs, so the archive
 * holds the classes a trial loads. Each trial JVM then maps them instead of loading, verifying and
 * linking them again ({@link ForkedTrials#sharedArchive}): a fresh JVM per trial costs less
 * before its warm-up starts. What is timed is unchanged: the JIT still compiles from nothing in
 * every trial, and timing starts after a measured steady state.
 */
public final class CdsTraining {
  private CdsTraining() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: CdsTraining VECTORS_DIR (the canonical <dataset>.pb files of codecs/vectors)");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    Sampling tiny = Sampling.newBuilder().setWarmupMs(1).setMaxWarmupMs(20).setRounds(1).setMinRoundMs(1).build();
    int trials = 0;
    for (Dataset<?> d : Dataset.all()) {
      Path pb = dir.resolve(d.id() + ".pb");
      if (!Files.isRegularFile(pb)) {
        continue;
      }
      byte[] canonical = Files.readAllBytes(pb);
      for (Codec codec : new CodecRegistry().all()) {
        Task.Builder base = Task.newBuilder().setId("cds-training").setDataset(d.id()).setCodec(codec.id())
            .setRecordCount(d.parseCanonical(canonical).model().records().size()).setSampling(tiny);
        Trial.Outcome encoded =
            Trial.run(base.clone().setOperation(Operation.OPERATION_ENCODE).setStorePayload(true).build(), canonical, null, 0);
        trials++;
        if (encoded.payload() == null) {
          continue; // A codec that refuses this dataset: nothing to decode.
        }
        for (String mode : codec.decodeModes()) {
          Task.Builder decode = base.clone().setOperation(Operation.OPERATION_DECODE).setDecodeMode(mode);
          if (mode.equals(Codec.LAZY)) {
            decode.addAllLazyFields(d.lazyFields());
          }
          Trial.run(decode.build(), canonical, encoded.payload(), 0);
          trials++;
        }
      }
    }
    System.out.println("cds training: " + trials + " trials");
    System.exit(trials > 0 ? 0 : 1);
  }
}
