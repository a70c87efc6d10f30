package dev.codecbench.worker;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Command line of the worker. {@code token} is empty when control requires none. */
record Options(URI control, String name, long minWarmupMs, long reconnectTimeoutMs, String token, boolean inProcessTrials,
    List<Path> userDatasets) {
  static final String USAGE =
      """
      usage: java -jar codecbench-java-worker.jar [--control URL] [--name NAME]
                                                  [--min-warmup-ms MS] [--reconnect-timeout-s S]
                                                  [--token-file FILE] [--trials fork|in-process]
                                                  [--user-dataset DATASET_JSON]...
             java -jar codecbench-java-worker.jar build-user-datasets DATASET_JSON...
        --control URL          control's address, http://HOST:PORT (default: $CODECBENCH_CONTROL,
                               else http://127.0.0.1:7600)
        --name NAME            worker name; control makes the id unique (default: java)
        --min-warmup-ms MS     JVM minimum warm-up per operation (default: 250); the warm-up
                               goes on past it while the JIT is still compiling
        --reconnect-timeout-s S
                               give up when control cannot be reached for this long, at start
                               or after losing it (default: 3600: a control that crashed or is
                               being upgraded comes back, and the worker should be there)
        --token-file FILE      a file holding control's token, when control requires one
                               (default: $CODECBENCH_TOKEN_FILE, else the token in
                               $CODECBENCH_TOKEN, else none)
        --trials fork|in-process
                               where trials run: a fresh JVM each (default), or this JVM
                               (in-process: fast but each trial inherits the JIT state of the
                               ones before; for soak and smoke runs, not for measurements)
        --user-dataset DATASET_JSON
                               carry a user's dataset: its manifest (proto/README.md), whose
                               models are built at start-up, or taken from the cache beside it
                               (build-user-datasets builds that cache ahead); repeatable
      """;

  /** Never printed: a record's own toString would show the token. */
  @Override
  public String toString() {
    return "Options[control=" + control + ", name=" + name + ", token=" + (token.isEmpty() ? "none" : "set")
        + ", trials=" + (inProcessTrials ? "in-process" : "fork") + ", userDatasets=" + userDatasets + "]";
  }

  static final String DEFAULT_CONTROL = "http://127.0.0.1:7600";

  /** Thrown for a bad command line; the message says what was wrong. */
  static final class UsageException extends Exception {
    UsageException(String message) {
      super(message);
    }
  }

  static Options parse(String[] args, Map<String, String> env) throws UsageException {
    String control = env.getOrDefault("CODECBENCH_CONTROL", DEFAULT_CONTROL);
    String name = "java";
    long minWarmupMs = 250;
    long reconnectTimeoutS = 3600;
    String tokenFile = env.get("CODECBENCH_TOKEN_FILE");
    String trials = "fork";
    List<Path> userDatasets = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      switch (flag) {
        case "--control" -> control = value(args, ++i, flag);
        case "--name" -> name = value(args, ++i, flag);
        case "--min-warmup-ms" -> minWarmupMs = number(value(args, ++i, flag), flag);
        case "--reconnect-timeout-s" -> reconnectTimeoutS = number(value(args, ++i, flag), flag);
        case "--token-file" -> tokenFile = value(args, ++i, flag);
        case "--trials" -> trials = value(args, ++i, flag);
        case "--user-dataset" -> userDatasets.add(Path.of(value(args, ++i, flag)));
        case "-h", "--help" -> throw new UsageException("");
        default -> throw new UsageException("unknown argument '" + flag + "'");
      }
    }
    if (name.isBlank()) {
      throw new UsageException("--name must not be empty");
    }
    if (!trials.equals("fork") && !trials.equals("in-process")) {
      throw new UsageException("--trials must be fork or in-process, got '" + trials + "'");
    }
    String token = env.getOrDefault("CODECBENCH_TOKEN", "");
    if (tokenFile != null && !tokenFile.isEmpty()) {
      try {
        token = Files.readString(Path.of(tokenFile));
      } catch (IOException | RuntimeException e) {
        throw new UsageException("cannot read the token file '" + tokenFile + "': " + e);
      }
    }
    token = token.strip();
    if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new UsageException("the token must be printable ASCII without spaces");
    }
    return new Options(controlUri(control), name, minWarmupMs, reconnectTimeoutS * 1000, token, trials.equals("in-process"),
        List.copyOf(userDatasets));
  }

  /** host:port for the gRPC channel. */
  String target() {
    return control.getHost() + ":" + control.getPort();
  }

  private static URI controlUri(String s) throws UsageException {
    URI uri;
    try {
      uri = URI.create(s.contains("://") ? s : "http://" + s);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--control '" + s + "' is not a URL: " + e.getMessage());
    }
    if (!"http".equals(uri.getScheme())) {
      throw new UsageException("--control '" + s + "': only http:// (plaintext gRPC) is supported");
    }
    if (uri.getHost() == null || uri.getPort() < 0) {
      throw new UsageException("--control '" + s + "' must name a host and a port, e.g. " + DEFAULT_CONTROL);
    }
    return uri;
  }

  private static String value(String[] args, int i, String flag) throws UsageException {
    if (i >= args.length) {
      throw new UsageException(flag + " needs a value");
    }
    return args[i];
  }

  private static long number(String s, String flag) throws UsageException {
    try {
      long v = Long.parseLong(s);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " needs a non-negative whole number, got '" + s + "'");
    }
  }
}
