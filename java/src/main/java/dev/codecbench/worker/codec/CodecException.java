package dev.codecbench.worker.codec;

/** A codec rejected its input or could not write its output; the message is the codec's. */
public final class CodecException extends Exception {
  public CodecException(String message) {
    super(message);
  }

  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Wraps a library failure, keeping the library's own message. */
  static CodecException wrap(String codec, String what, Throwable e) {
    String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    // Jackson puts the location on a second line; a failure message is one line.
    detail = detail.replaceAll("\\s*\\R\\s*", " ");
    return new CodecException(codec + " " + what + ": " + detail, e);
  }

  /** A lazy decode found no value for the field in one record. */
  static CodecException missingField(String codec, int record, String field) {
    return new CodecException(codec + " lazy decode: record " + record + " has no field '" + field + "'");
  }
}
