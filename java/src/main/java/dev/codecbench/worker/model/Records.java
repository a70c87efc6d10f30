package dev.codecbench.worker.model;

import java.util.List;

/**
 * The payload's logical value in every codec: {@code {"records": [r0, r1, ...]}}. BSON has no
 * top-level array, so every codec carries the same wrapper.
 */
public record Records<R>(List<R> records) {}
