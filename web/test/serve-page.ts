import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

// Serves web/dist the way control does (or, for the refusal test, without the isolation
// headers), optionally answering gRPC-web paths with a handler. Listens on an ephemeral port.

export const distDir = fileURLToPath(new URL("../dist/", import.meta.url));

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

export const isolationHeaders = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
};

export function requireBuiltPage(): void {
  if (!existsSync(join(distDir, "index.html"))) throw new Error(`${distDir}index.html is missing: run \`npm run build\` in web/ before the browser tests`);
}

export interface PageServer {
  server: Server;
  origin: string;
  /** Paths of every request that reached the gRPC handler (or would have). */
  grpcRequests: string[];
  close(): Promise<void>;
}

export async function servePage(options: {
  isolated: boolean;
  grpc?: (request: IncomingMessage, response: ServerResponse) => void;
}): Promise<PageServer> {
  requireBuiltPage();
  const grpcRequests: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    if (path.startsWith("/codecbench.v1.")) {
      grpcRequests.push(path);
      if (options.grpc) return options.grpc(request, response);
      response.writeHead(404).end();
      return;
    }
    const file = normalize(join(distDir, path === "/" ? "index.html" : path));
    if (!file.startsWith(distDir) || !existsSync(file)) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, {
      "Content-Type": types[extname(file)] ?? "application/octet-stream",
      ...(options.isolated ? isolationHeaders : {}),
    });
    response.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    grpcRequests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
