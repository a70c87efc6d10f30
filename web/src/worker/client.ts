import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { WorkerService } from "../gen/codecbench/v1/worker_service_pb";

// The worker's view of control: WorkerService over whatever transport the caller gives (gRPC-web
// on the page, an in-memory router in tests).
export type WorkerClient = Client<typeof WorkerService>;

export function workerClient(transport: Transport): WorkerClient {
  return createClient(WorkerService, transport);
}

/** The header a blob call names its worker in (proto/README.md; control's clients.rs). */
export const SECRET_HEADER = "codecbench-report-secret";

/** The current attachment's report secret: empty until `attached`, replaced by each new one. */
export class WorkerSecret {
  value = "";
}

/**
 * `client` whose blob calls carry `secret.value`, once set, in SECRET_HEADER: control then
 * counts this worker's uploads against an allowance of its own, not the one every anonymous
 * client on the machine shares (and any of them can fill). Other calls go as they were.
 */
export function withWorkerSecret(client: WorkerClient, secret: WorkerSecret): WorkerClient {
  const named = (options?: CallOptions): CallOptions | undefined => {
    if (!secret.value) return options;
    const headers = new Headers(options?.headers);
    headers.set(SECRET_HEADER, secret.value);
    return { ...options, headers };
  };
  return {
    ...client,
    getBlob: (request, options) => client.getBlob(request, named(options)),
    putBlob: (request, options) => client.putBlob(request, named(options)),
    uploadBlob: (request, options) => client.uploadBlob(request, named(options)),
  };
}
