import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V1_12Client } from '@modelcontextprotocol/sdk-1-12/client/index.js';
import { StreamableHTTPClientTransport as V1_12Transport } from '@modelcontextprotocol/sdk-1-12/client/streamableHttp.js';
import type { Transport as V1_12TransportType } from '@modelcontextprotocol/sdk-1-12/shared/transport.js';
import type { LoadedMcp } from '../../build/core/edge/mcp/backend.ts';
import { createEmbeddedBackend, embeddedTables } from '../../build/core/edge/mcp/embedded.ts';
import type { McpEntry } from '../../build/core/edge/mcp/mcp-data.ts';
import { MCP_MODULE_PATH, parseMcpModule } from '../../build/core/edge/mcp/worker-module.ts';
import { readMcpModule } from '../../build/runtime/read-mcp-module.ts';
import { type SampleProject, sampleProject } from './project.ts';
import { PROJECT_ROOT } from './site.ts';

export { GENERATED } from './project.ts';

export type BuiltSample = SampleProject;

/** The sample site, built as a project of its own (tests/helpers/project.ts). */
export function buildSample(backend: 'embedded' | 'd1' = 'embedded'): Promise<BuiltSample> {
  return sampleProject({ backend });
}

export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What the shared tool tests need from a connected client, whichever SDK and transport it uses. */
export interface Connection {
  protocolVersion: string | undefined;
  listTools(): Promise<ListedTool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

function fromV2(client: Client): Connection {
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

/** `@modelcontextprotocol/client` v2, negotiating the current revision (2026-07-28). */
export async function connectV2Http(endpoint: string): Promise<Connection> {
  const client = new Client(
    { name: 'content-index-tests', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return fromV2(client);
}

/** `@modelcontextprotocol/sdk` v1 `Client`: a 2025-era client (2025-11-25). */
export async function connectV1Http(endpoint: string): Promise<Connection> {
  const client = new V1Client({ name: 'content-index-tests-v1', version: '1.0.0' });
  const transport = new V1Transport(new URL(endpoint));
  await client.connect(transport);
  return {
    protocolVersion: transport.protocolVersion,
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

/**
 * `@modelcontextprotocol/sdk` 1.12 `Client`: a client of revision 2025-03-26, which refuses a server that
 * answers its `initialize` in any revision it does not know. It does not tell the revision it
 * negotiated, so the `initialize` answer is read on its way in.
 */
export async function connectV1_12Http(endpoint: string): Promise<Connection> {
  const client = new V1_12Client({ name: 'content-index-tests-1.12', version: '1.0.0' });
  const transport = new V1_12Transport(new URL(endpoint));
  let protocolVersion: string | undefined;
  const watched = new Proxy(transport, {
    set(target, property, value) {
      if (property === 'onmessage' && typeof value === 'function') {
        target.onmessage = (message, ...rest) => {
          const result = (message as { result?: { protocolVersion?: unknown } }).result;
          if (typeof result?.protocolVersion === 'string') protocolVersion = result.protocolVersion;
          (value as NonNullable<V1_12TransportType['onmessage']>)(message, ...rest);
        };
        return true;
      }
      return Reflect.set(target, property, value);
    },
  });
  await client.connect(watched);
  return {
    protocolVersion,
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

export interface StdioConnection extends Connection {
  stderr(): string;
}

/** Spawns `bin/content-index.js <args>` and talks to it with the SDK's stdio client. */
export async function connectStdio(args: string[], cwd = PROJECT_ROOT): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(PROJECT_ROOT, 'bin', 'content-index.js'), ...args],
    cwd,
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  const client = new Client(
    { name: 'content-index-tests', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  return { ...fromV2(client), stderr: () => stderr };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * What `wrangler pages dev`'s own proxy answers a POST that was under way when wrangler replaced the
 * worker's runtime (it retries GET and HEAD itself, and asks every other request to be sent again).
 * It comes from the local server, never from Cloudflare or the Function.
 */
const WRANGLER_RESTARTED = /^Your worker restarted mid-request\. Please try sending the request again\./;

/**
 * node:http rather than fetch: fetch does not let a caller set the Host header, which these tests must.
 * A request cut by wrangler's restart of the runtime is sent again, once, as wrangler asks.
 */
export async function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const first = await rawOnce(url, options);
  if (first.status !== 503 || !WRANGLER_RESTARTED.test(first.body)) return first;
  await new Promise((resolve) => setTimeout(resolve, 500));
  return rawOnce(url, options);
}

function rawOnce(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

export const JSON_RPC_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

/** The MCP data a project's last build wrote for its Function, loaded as the Function loads it. */
export async function loadProjectMcp(root: string): Promise<LoadedMcp> {
  const file = join(root, MCP_MODULE_PATH);
  const data = parseMcpModule(await readMcpModule(file));
  if (data.backend !== 'embedded') throw new Error(`${file}: built for the ${data.backend} backend`);
  return { info: data.info, backend: createEmbeddedBackend(data) };
}

/** The entries a project's last build gave its /mcp Function (embedded backend), in index order. */
export async function projectEntries(root: string): Promise<McpEntry[]> {
  const file = join(root, MCP_MODULE_PATH);
  const data = parseMcpModule(await readMcpModule(file));
  if (data.backend !== 'embedded') throw new Error(`${file}: built for the ${data.backend} backend`);
  const tables = embeddedTables(data);
  return Array.from({ length: tables.count }, (_, i) => JSON.parse(tables.entryLine(i)) as McpEntry);
}
