package dev.codecbench.worker.bench;

import java.util.List;
import java.util.OptionalDouble;

/**
 * What the kept rounds of one operation measured, and how the warm-up went. {@code warmupMs} is
 * everything before the kept rounds (warm-up, calibration, rounds done again); {@code jitQuiet}
 * is false when the cap was reached with the JIT still compiling; {@code roundsRepeated} counts
 * sets of rounds discarded because the JIT compiled during them; {@code jitMs} is compilation
 * time during the kept rounds (-1 where the JVM does not report it).
 */
public record Sample(
    List<Double> roundNsPerOp,
    long opsPerRound,
    OptionalDouble allocBytesPerOp,
    double warmupMs,
    boolean jitQuiet,
    int roundsRepeated,
    double gcMs,
    long gcCount,
    long jitMs) {}
