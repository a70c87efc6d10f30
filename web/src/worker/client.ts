import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { WorkerService } from "../gen/codecbench/v1/worker_service_pb";

// The worker's view of control: WorkerService over whatever transport the caller gives (gRPC-web
// on the page, an in-memory router in tests).
export type WorkerClient = Client<typeof WorkerService>;

export function workerClient(transport: Transport): WorkerClient {
  return createClient(WorkerService, transport);
}
