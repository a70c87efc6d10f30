package dev.codecbench.worker;

import codecbench.v1.WorkerServiceOuterClass.Task;

/** Where a trial runs: a forked JVM ({@link ForkedTrials}) in the worker; in process in unit tests. */
@FunctionalInterface
public interface Trials {
  /**
   * Runs one trial. A failure the trial itself reports (decode, verification...) comes back in
   * the outcome; a trial that could not run to the end (crash, timeout) throws.
   */
  Trial.Outcome run(Task task, byte[] canonicalBlob, byte[] payload) throws TaskFailure;

  /**
   * In this JVM: no fresh JIT, heap or allocator state. For tests of everything around the fork.
   * Nothing is pinned (Task.cpus cannot apply to the worker's own JVM); trial_cpus says where this
   * JVM may run.
   */
  static Trials inProcess(long jvmMinWarmupMs) {
    return (task, canonical, payload) ->
        Trial.run(task, canonical, payload, jvmMinWarmupMs).withTrialCpus(TrialMain.cpusAllowed());
  }
}
