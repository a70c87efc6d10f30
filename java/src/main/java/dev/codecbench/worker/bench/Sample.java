package dev.codecbench.worker.bench;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What one trial's timed rounds measured, and how its warm-up went: {@code warmupMs} and {@code
 * warmupRounds} cover calibration and warm-up; {@code steady} is true when warm-up ended at a
 * measured steady state and no JIT compilation finished during the timed rounds; {@code jitMs} is
 * compilation time during the timed rounds (-1 where the JVM does not report it); {@code gcMs} and
 * {@code gcCount} are all collectors' work during the timed rounds. {@code peakHeapBytes}: the heap
 * one more operation, run after the rounds, needed at once ({@link Sampler#peakHeapGrowth}: garbage
 * not yet collected included, an upper bound of the live peak); absent where allocations are not
 * counted (work on other threads). {@code roundsMs}: the timed rounds' wall time (Laps' {@code
 * rounds}).
 */
public record Sample(
    List<Double> roundNsPerOp,
    long opsPerRound,
    OptionalDouble allocBytesPerOp,
    double warmupMs,
    int warmupRounds,
    double roundsMs,
    boolean steady,
    double gcMs,
    long gcCount,
    long jitMs,
    OptionalLong peakHeapBytes) {}
