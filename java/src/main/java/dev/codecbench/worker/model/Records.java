package dev.codecbench.worker.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.util.List;

/**
 * The payload's logical value in every codec: {@code {"records": [r0, r1, ...]}}. BSON has no
 * top-level array, so every codec carries the same wrapper. Required as the generated records'
 * always-present fields are (ModelGenerator).
 */
public record Records<R>(@JsonProperty(required = true) @JsonSetter(nulls = Nulls.FAIL) List<R> records) {}
