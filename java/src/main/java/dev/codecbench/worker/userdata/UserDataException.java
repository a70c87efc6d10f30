package dev.codecbench.worker.userdata;

/**
 * A user's dataset the worker cannot carry, with one precise line saying why (the manifest, the
 * file and the step: "orders: message acme.Order is not in descriptors.binpb (its messages: ...)").
 */
public final class UserDataException extends Exception {
  public UserDataException(String message) {
    super(message);
  }

  public UserDataException(String message, Throwable cause) {
    super(message, cause);
  }
}
