package dev.codecbench.worker;

/**
 * Why a task failed, as reported to control: the message starts with the step that failed
 * ("decode failed: ...", "verification failed: record 3 field email: ...").
 */
final class TaskFailure extends Exception {
  private TaskFailure(String message, Throwable cause) {
    super(message, cause);
  }

  /** A message that already names its step (a trial's failure, passed on as it is). */
  TaskFailure(String message) {
    super(message);
  }

  static TaskFailure at(String step, String detail) {
    return new TaskFailure(step + " failed: " + detail, null);
  }

  static TaskFailure at(String step, Throwable cause) {
    String detail = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    return new TaskFailure(step + " failed: " + detail, cause);
  }
}
