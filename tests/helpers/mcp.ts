import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { build } from '../../build/index.ts';
import { PROJECT_ROOT } from './site.ts';

/** Fixed, so cursors and `generated` are the same in every run. */
export const GENERATED = new Date('2026-04-01T12:00:00Z');

export interface BuiltSample {
  out: string;
  index: ContentIndexV1;
  dispose(): Promise<void>;
}

/** The sample site built into a temporary output folder. */
export async function buildSample(): Promise<BuiltSample> {
  const out = join(await mkdtemp(join(tmpdir(), 'content-index-mcp-')), 'public');
  await build({ root: PROJECT_ROOT, out, clock: () => GENERATED });
  const index = JSON.parse(await readFile(join(out, 'api/v1/content.json'), 'utf8')) as ContentIndexV1;
  return { out, index, dispose: () => rm(dirname(out), { recursive: true, force: true }) };
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

/** node:http rather than fetch: fetch does not let a caller set the Host header, which these tests must. */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
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
