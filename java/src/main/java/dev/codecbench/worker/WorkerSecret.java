package dev.codecbench.worker;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.Set;

/**
 * Adds the current attachment's report secret to every blob call as {@code
 * codecbench-report-secret} (proto/README.md): control then counts the worker's uploads against an
 * allowance of its own instead of the one the anonymous clients share, which any local client
 * could fill (control's clients.rs). Other calls go without it.
 */
final class WorkerSecret implements ClientInterceptor {
  static final Metadata.Key<String> HEADER =
      Metadata.Key.of("codecbench-report-secret", Metadata.ASCII_STRING_MARSHALLER);
  /** The WorkerService calls control counts uploads for. */
  private static final Set<String> BLOB_METHODS = Set.of("GetBlob", "PutBlob", "UploadBlob");

  /** Empty until attached; the task thread reads what the attach thread set. */
  private volatile String secret = "";

  /** Set by each `attached` (a new attachment has a new secret). */
  void set(String secret) {
    this.secret = secret == null ? "" : secret;
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    String current = secret;
    if (current.isEmpty() || !BLOB_METHODS.contains(method.getBareMethodName())) {
      return next.newCall(method, options);
    }
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        headers.put(HEADER, current);
        super.start(listener, headers);
      }
    };
  }
}
