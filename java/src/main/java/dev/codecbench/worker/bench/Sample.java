package dev.codecbench.worker.bench;

import java.util.List;
import java.util.OptionalDouble;

/** What the rounds of one operation measured. */
public record Sample(
    List<Double> roundNsPerOp,
    long opsPerRound,
    OptionalDouble allocBytesPerOp,
    double warmupMs,
    double gcMs,
    long gcCount) {}
