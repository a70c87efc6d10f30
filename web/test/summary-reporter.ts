import type { Reporter, TestModule } from "vitest/node";

// Prints one plain closing line ("web: N passed, N failed, N skipped") after vitest's own output,
// the line CI reads to know tests ran.
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no tests but is still a failure.
      if (module.state() === "failed" && ![...module.children.allTests()].some((t) => t.result().state === "failed")) counts.failed++;
    }
    counts.failed += unhandledErrors.length;
    process.stdout.write(`web: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
