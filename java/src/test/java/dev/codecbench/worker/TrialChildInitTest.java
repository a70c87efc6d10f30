package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.ScenarioOuterClass.Operation;
import codecbench.v1.ScenarioOuterClass.Sampling;
import codecbench.v1.WorkerServiceOuterClass.Task;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a trial's child JVM must not initialise, checked in fresh child JVMs with HotSpot's
 * class+init log through whole trials (dataset lookup, codec set-up, verification, warm-up,
 * rounds).
 *
 * <p>It never reads codecs/catalogue.yaml: the attached JVM checks a task's modes against it
 * (TaskRunner.checkModes), and parsing it cold costs a trial ~40 ms of start-up.
 *
 * <p>It never builds the built-ins' protobuf descriptors: building them parses the
 * embedded file descriptors through protobuf-java's own parsing code, which skews the JIT
 * profile the protobuf codec is then timed with (numeric's typed decode measured ×1.37 slower).
 * protobuf-java builds a file's descriptor in its outer class's static initialiser, so the check
 * is that {@code codecbench.v1.Datasets} (and the option's file) was never initialised.
 */
class TrialChildInitTest {
  private static final Sampling QUICK =
      Sampling.newBuilder().setWarmupMs(1).setMaxWarmupMs(300).setRounds(2).setMinRoundMs(1).build();

  @TempDir
  Path dir;

  private String childInitLog(Task task, byte[] payload, String name) throws Exception {
    Path log = dir.resolve(name + ".log");
    ForkedTrials trials = new ForkedTrials(0, List.of("-Xlog:class+init=info:file=" + log));
    Trial.Outcome o = trials.run(task, CanonicalVectors.pb(TestDatasets.NUMERIC), payload);
    assertEquals("", o.failure(), name);
    return Files.readString(log);
  }

  private static Task.Builder task(Operation op, String codec) {
    return Task.newBuilder().setId("t").setOperation(op).setDataset("numeric").setCodec(codec)
        .setRecordCount(CanonicalVectors.canonical(TestDatasets.NUMERIC).size()).setCanonicalBlobId("c")
        .setSampling(QUICK);
  }

  private static void noDescriptorBuilt(String log, String what) {
    assertFalse(log.contains("Initializing 'dev/codecbench/worker/codec/Catalogue"), what + " read the catalogue");
    // The record's message class was used (so the log is the trial's)...
    assertTrue(log.contains("Initializing 'codecbench/v1/Datasets$NumericDataset'"), what + ": no protobuf class used?");
    // ...and its file's outer class, whose static initialiser builds the descriptors, never was.
    assertFalse(log.contains("Initializing 'codecbench/v1/Datasets'"), what + " built datasets.proto's descriptor");
    assertFalse(log.contains("Initializing 'codecbench/v1/DatasetOptionsOuterClass'"), what
        + " built dataset_options.proto's descriptor");
  }

  @Test
  void aStreamingTrialReadsNoCatalogue() throws Exception {
    Trial.Outcome enc = Trial.run(task(Operation.OPERATION_ENCODE, "json").build(),
        CanonicalVectors.pb(TestDatasets.NUMERIC), null, 0);
    noDescriptorBuilt(childInitLog(task(Operation.OPERATION_ENCODE, "json").setDecodeMode("streaming").build(), null,
        "json-streaming-encode"), "json streaming encode");
    noDescriptorBuilt(childInitLog(task(Operation.OPERATION_DECODE, "json").setDecodeMode("streaming").build(),
        enc.payload(), "json-streaming-decode"), "json streaming decode");
  }

  @Test
  void protobufAndJsonTrialsBuildNoDescriptorOfTheBuiltIns() throws Exception {
    for (String codec : List.of("protobuf", "json")) {
      Trial.Outcome enc = Trial.run(task(Operation.OPERATION_ENCODE, codec).build(),
          CanonicalVectors.pb(TestDatasets.NUMERIC), null, 0);
      assertEquals("", enc.failure());
      noDescriptorBuilt(childInitLog(task(Operation.OPERATION_ENCODE, codec).build(), null, codec + "-encode"),
          codec + " encode");
      noDescriptorBuilt(childInitLog(task(Operation.OPERATION_DECODE, codec).setDecodeMode("typed").build(),
          enc.payload(), codec + "-typed"), codec + " typed decode");
    }
    Trial.Outcome enc = Trial.run(task(Operation.OPERATION_ENCODE, "json").build(),
        CanonicalVectors.pb(TestDatasets.NUMERIC), null, 0);
    noDescriptorBuilt(childInitLog(task(Operation.OPERATION_DECODE, "json").setDecodeMode("tree").build(),
        enc.payload(), "json-tree"), "json tree decode");
  }
}
