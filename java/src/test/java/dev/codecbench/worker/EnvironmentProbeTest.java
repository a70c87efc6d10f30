package dev.codecbench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.Results.Environment;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnvironmentProbeTest {
  @Test
  void saysWhatRan() {
    Environment env = EnvironmentProbe.probe(250, List.of("-Xmx1g", "-XX:+UseSerialGC"));
    assertEquals("java", env.getLanguage());
    assertEquals("jit", env.getBuildProfile());
    assertEquals(System.getProperty("java.vm.name"), env.getRuntime());
    assertFalse(env.getRuntimeVersion().isEmpty());
    assertFalse(env.getCpuModel().isEmpty());
    assertFalse(env.getHostname().isEmpty());
    assertTrue(env.getCores() >= 1);
    for (String key : new String[] {"jvm_vendor", "java_version", "max_heap_bytes", "gc", "jvm_flags",
        "jvm_min_warmup_ms", "trial_process", "lib_jackson-databind", "lib_bson4jackson", "lib_mongodb-bson", "lib_grpc-java"}) {
      assertTrue(env.getDetailsMap().containsKey(key), key + " in " + env.getDetailsMap());
    }
    assertFalse(env.getDetailsOrThrow("gc").isEmpty());
    assertEquals("-Xmx1g -XX:+UseSerialGC", env.getDetailsOrThrow("trial_jvm_flags"));
    assertTrue(env.getDetailsOrThrow("trial_process").startsWith("forked JVM per trial"));
    assertTrue(Long.parseLong(env.getDetailsOrThrow("max_heap_bytes")) > 0);
    // Filtered from pom.xml at build time, not left as a placeholder.
    assertTrue(env.getDetailsOrThrow("lib_jackson-databind").matches("\\d+\\.\\d+\\.\\d+"), env.getDetailsOrThrow("lib_jackson-databind"));
  }

  @Test
  void saysWhenTrialsShareTheWorkersJvm() {
    Environment env = EnvironmentProbe.probe(250, List.of("-Xmx1g"), true);
    assertTrue(env.getDetailsOrThrow("trial_process").contains("not for measurements"), env.getDetailsOrThrow("trial_process"));
    assertFalse(env.getDetailsMap().containsKey("trial_jvm_flags"));
  }
}
