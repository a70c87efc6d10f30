package dev.codecbench.worker.userdata;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codecbench.worker.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A user's dataset as the harness describes it in {@code dataset.json} (proto/README.md, "A
 * user's dataset"): {@code {"id", "message", "descriptorSet", "fieldNames", "lazyFields",
 * "fingerprint"}}, the descriptor set's path relative to the manifest's folder. Keys it does not
 * know are ignored (a later harness may add some).
 *
 * @param file the manifest, absolute
 * @param fingerprint what the harness computed (the worker announces its own; empty if absent)
 */
public record Manifest(Path file, String id, String message, Path descriptorSet, String fieldNames,
    List<String> lazyFields, String fingerprint) {
  private static final Pattern ID = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  /** The folder holding the manifest, where the Java models are cached (in java/). */
  public Path folder() {
    return file.getParent();
  }

  public static Manifest read(Path path) throws UserDataException {
    Path file = path.toAbsolutePath().normalize();
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      throw new UserDataException(path + ": no such manifest file");
    } catch (JsonProcessingException e) {
      throw new UserDataException(path + ": not a JSON dataset manifest: " + e.getOriginalMessage()
          + " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    } catch (IOException e) {
      throw new UserDataException(path + ": cannot read the manifest: " + e);
    }
    if (root == null || !root.isObject()) {
      throw new UserDataException(path + ": a dataset manifest is a JSON object {\"id\", \"message\", "
          + "\"descriptorSet\", ...}");
    }
    String id = text(path, root, "id", null);
    if (!ID.matcher(id).matches()) {
      throw new UserDataException(path + ": \"id\" '" + id + "' is not 1 to 64 lowercase letters, digits and _, "
          + "starting with a letter");
    }
    String message = text(path, root, "message", null).replaceFirst("^\\.", "");
    String set = text(path, root, "descriptorSet", null);
    String names = text(path, root, "fieldNames", Dataset.JSON_NAMES);
    if (!names.equals(Dataset.JSON_NAMES) && !names.equals(Dataset.PROTO_NAMES)) {
      throw new UserDataException(path + ": \"fieldNames\" is '" + names + "', not \"json\" or \"proto\"");
    }
    List<String> lazy = new ArrayList<>();
    JsonNode lazyNode = root.get("lazyFields");
    if (lazyNode != null && !lazyNode.isNull()) {
      if (!lazyNode.isArray()) {
        throw new UserDataException(path + ": \"lazyFields\" is not an array of field paths");
      }
      for (JsonNode f : lazyNode) {
        if (!f.isTextual() || f.asText().isEmpty()) {
          throw new UserDataException(path + ": \"lazyFields\" holds " + f + ", not a field path");
        }
        lazy.add(f.asText());
      }
    }
    String fingerprint = text(path, root, "fingerprint", "");
    return new Manifest(file, id, message, file.getParent().resolve(set).normalize(), names, List.copyOf(lazy),
        fingerprint);
  }

  /** A string member, or {@code fallback} when absent (null: required). */
  private static String text(Path path, JsonNode root, String key, String fallback) throws UserDataException {
    JsonNode v = root.get(key);
    if (v == null || v.isNull()) {
      if (fallback == null) {
        throw new UserDataException(path + ": \"" + key + "\" is missing");
      }
      return fallback;
    }
    if (!v.isTextual() || v.asText().isEmpty() && fallback == null) {
      throw new UserDataException(path + ": \"" + key + "\" is " + v + ", not a non-empty string");
    }
    return v.asText();
  }
}
