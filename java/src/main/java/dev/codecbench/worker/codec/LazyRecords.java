package dev.codecbench.worker.codec;

/** Shared parsing of the lazy-field argument, so every codec addresses records the same way. */
final class LazyRecords {
  private LazyRecords() {}

  /** The element index a lazy field names inside an array record, or -1 if it names a key. */
  static int arrayIndex(String field) {
    if (field.isEmpty() || !field.chars().allMatch(Character::isDigit) || field.length() > 9) {
      return -1;
    }
    return Integer.parseInt(field);
  }

  static CodecException missing(String codec, int record, String field) {
    return new CodecException(codec + " lazy decode: record " + record + " has no field '" + field + "'");
  }
}
