import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmbeddedData } from '../core/edge/mcp/embedded.ts';
import { MCP_DATA_FORMAT } from '../core/edge/mcp/mcp-data.ts';
import {
  type DevPointer,
  MCP_MODULE_PATH,
  MCP_MODULE_TYPES,
  MCP_MODULE_TYPES_PATH,
  renderMcpModule,
} from '../core/edge/mcp/worker-module.ts';
import { writePrivateFiles } from '../stages/write-private.ts';

export interface McpDataServer {
  /** Whether the module is the pointer to this server (a build's embedded data is being served). */
  readonly serving: boolean;
  /** Serves this build's data from now on, and makes the module the pointer to it if it is not (not once closed). */
  serve(data: EmbeddedData): Promise<void>;
  close(): Promise<void>;
}

/**
 * `content-index dev`'s /mcp data on a loopback port: the Function's module is written once as a
 * pointer here (worker-module.ts `DevPointer`), and each build's data is only handed to this server.
 * wrangler rebuilds and reloads the Function whenever the module changes and holds every request
 * meanwhile (about a second), so writing each save's data into the module held the save after it.
 */
export async function startMcpDataServer(root: string): Promise<McpDataServer> {
  let body = '';
  let version = 0;
  let serving = false;
  let closed = false;
  const server = createServer((request, response) => {
    const etag = `"${version}"`;
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, { ETag: etag }).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json', ETag: etag }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  const pointer: DevPointer = {
    format: MCP_DATA_FORMAT,
    backend: 'dev',
    url: `http://127.0.0.1:${port}/mcp-data`,
  };
  return {
    get serving() {
      return serving;
    },
    async serve(data) {
      // A rebuild that ends after dev stopped (and wrote the data into the module) leaves it there.
      if (closed) return;
      body = JSON.stringify(data);
      version++;
      // Unchanged bytes are not rewritten (write-private.ts): the pointer is written once, and again
      // only if a build of another command (a deploy) replaced it.
      await writePrivateFiles(root, [
        { path: MCP_MODULE_PATH, content: renderMcpModule(pointer) },
        { path: MCP_MODULE_TYPES_PATH, content: MCP_MODULE_TYPES },
      ]);
      serving = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
