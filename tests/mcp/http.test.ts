import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_LIMITS } from '../../build/core/edge/mcp/budget.ts';
import { MAX_REQUEST_BYTES } from '../../build/core/edge/mcp/http.ts';
import {
  type BuiltSample,
  buildSample,
  connectV1_12Http,
  connectV1Http,
  connectV2Http,
  INITIALIZE,
  JSON_RPC_HEADERS,
  type RawResponse,
  raw,
} from '../helpers/mcp.ts';
import { type PagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';
import { toolSuite } from './tool-suite.ts';

let sample: BuiltSample;
let server: PagesDev;
let endpoint: string;

beforeAll(async () => {
  sample = await buildSample();
  server = await startProjectPagesDev(sample.out, [], sample.root);
  endpoint = `${server.url}/mcp`;
});
afterAll(async () => {
  await server?.stop();
  await sample?.dispose();
});

toolSuite(
  '@modelcontextprotocol/client v2 over HTTP',
  () => connectV2Http(endpoint),
  () => sample.index,
  '2026-07-28',
);
toolSuite(
  '@modelcontextprotocol/sdk v1 Client with StreamableHTTPClientTransport',
  () => connectV1Http(endpoint),
  () => sample.index,
  '2025-11-25',
);
toolSuite(
  '@modelcontextprotocol/sdk 1.12 Client (revision 2025-03-26)',
  () => connectV1_12Http(endpoint),
  () => sample.index,
  '2025-03-26',
);

/** The JSON-RPC message in a response body, whether it came as JSON or as one SSE event. */
function message(body: string): {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
} {
  const data = body.includes('data: ')
    ? body
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6)
    : body;
  return JSON.parse(data ?? 'null');
}

describe('GET /mcp', () => {
  it('answers a browser or crawler with a JSON description of the server', async () => {
    const response = await raw(endpoint, {
      headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const description = JSON.parse(response.body);
    expect(description).toMatchObject({
      name: 'com.example/content-index',
      title: 'Código y Neuronas',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      endpoint,
      transport: { type: 'streamable-http', methods: ['POST'], sse: false },
      protocol_versions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'],
      server_card: `${endpoint}/server-card`,
      content_index: 'https://example.com/api/content.json',
      generated: sample.index.generated,
    });
    expect(Object.values(description.client_configuration.http.mcpServers)).toEqual([
      { type: 'http', url: endpoint },
    ]);
    expect(Object.values(description.client_configuration.stdio.mcpServers)).toEqual([
      { command: 'npx', args: ['content-index', 'mcp'] },
    ]);
  });

  it('answers 405 to a GET that asks for an event stream (there is none)', async () => {
    const response = await raw(endpoint, { headers: { Accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });

  it('says which methods it answers the same way in the preflight and in every 405', async () => {
    const methods = 'GET, HEAD, POST, OPTIONS';
    const preflight = await raw(endpoint, {
      method: 'OPTIONS',
      headers: { Origin: 'http://127.0.0.1', 'Access-Control-Request-Method': 'DELETE' },
    });
    expect([preflight.status, preflight.headers['access-control-allow-methods']]).toEqual([204, methods]);
    // DELETE as a client ends a session, and others; without a body, which wrangler's local server would
    // leave unread on the connection for the next request.
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      const refused = await raw(endpoint, { method, headers: { 'Mcp-Session-Id': 'none' } });
      expect([refused.status, refused.headers.allow], method).toEqual([405, methods]);
      expect(JSON.parse(refused.body).error.code, method).toBe(-32000);
    }
    const stream = await raw(endpoint, { headers: { Accept: 'text/event-stream' } });
    expect([stream.status, stream.headers.allow]).toEqual([405, methods]);
    // The plain GET the preflight and the Allow list: answered.
    expect((await raw(endpoint)).status).toBe(200);
    const card = `${endpoint}/server-card`;
    const cardPreflight = await raw(card, {
      method: 'OPTIONS',
      headers: { Origin: 'http://127.0.0.1', 'Access-Control-Request-Method': 'GET' },
    });
    expect(cardPreflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect((await raw(card, { method: 'DELETE' })).headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('describes exactly the tools the server lists, and so does the server card', async () => {
    const description = JSON.parse((await raw(endpoint)).body);
    const cardResponse = await raw(`${endpoint}/server-card`);
    expect(cardResponse.status).toBe(200);
    expect(cardResponse.headers['content-type']).toMatch(/^application\/mcp-server-card\+json/);
    const card = JSON.parse(cardResponse.body);
    const client = await connectV2Http(endpoint);
    const listed = await client.listTools();
    await client.close();
    expect(description.tools).toEqual(
      listed.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        annotations: t.annotations,
      })),
    );
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: description.name,
      version: description.version,
      title: description.title,
      description: description.description,
      websiteUrl: 'https://example.com/',
      remotes: [
        { type: 'streamable-http', url: endpoint, supportedProtocolVersions: description.protocol_versions },
      ],
      _meta: { 'com.example/tools': listed.map((t) => t.name) },
    });
    // The server card extension's own limits.
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(card.description.length).toBeLessThanOrEqual(100);
  });

  it('identifies itself at connection as the card does', async () => {
    const initialized = message(
      (await raw(endpoint, { method: 'POST', headers: JSON_RPC_HEADERS, body: INITIALIZE })).body,
    );
    const card = JSON.parse((await raw(`${endpoint}/server-card`)).body);
    expect(initialized.result?.serverInfo).toMatchObject({
      name: card.name,
      version: card.version,
      title: card.title,
    });
  });
});

describe('protocol revisions', () => {
  it('lets 2026-07-28 clients and shared caches keep the tool list for five minutes', async () => {
    const client = new Client({ name: 'cache', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    expect(await client.listTools()).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    await client.close();
  });

  const initializeAs = async (protocolVersion: string) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    const response = await raw(endpoint, { method: 'POST', headers: JSON_RPC_HEADERS, body });
    expect(response.status).toBe(200);
    return message(response.body).result as {
      protocolVersion: string;
      capabilities: Record<string, unknown>;
    };
  };

  it('answers an initialize in the revision the client asks for, each one it lists', async () => {
    const listed = JSON.parse((await raw(endpoint)).body).protocol_versions as string[];
    expect(listed).toContain('2025-03-26');
    for (const version of listed.slice(1)) {
      expect((await initializeAs(version)).protocolVersion, version).toBe(version);
    }
    // A revision it does not know: the newest 2025-era one, for the client to accept or not.
    expect((await initializeAs('2024-01-01')).protocolVersion).toBe('2025-11-25');
  });

  it('does not advertise tools.listChanged: a stateless server can never send the notification', async () => {
    for (const version of ['2025-03-26', '2025-11-25']) {
      const { capabilities } = await initializeAs(version);
      expect(capabilities.tools, version).toEqual({ listChanged: false });
    }
    const client = new Client({ name: 'caps', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    await client.close();
  });
});

describe('hosts and origins', () => {
  const initialize = (headers: Record<string, string>) =>
    raw(endpoint, { method: 'POST', headers: { ...JSON_RPC_HEADERS, ...headers }, body: INITIALIZE });

  it("accepts the site's host from any origin, with CORS open to all", async () => {
    const cases: Record<string, string>[] = [
      { Host: 'example.com' },
      { Host: 'example.com', Origin: 'https://agents.example.net' },
    ];
    for (const headers of cases) {
      const response = await initialize(headers);
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(message(response.body).result?.protocolVersion).toBe('2025-11-25');
    }
  });

  it('accepts the configured extra hosts, wildcards included', async () => {
    for (const host of ['content-index.pages.dev', '7e25467.content-index.pages.dev']) {
      expect((await initialize({ Host: host })).status, host).toBe(200);
    }
  });

  it('refuses any other host with 403 and no CORS headers', async () => {
    for (const host of ['evil.example.com', 'evilcontent-index.pages.dev', 'example.com.evil.net']) {
      const response = await initialize({ Host: host, Origin: `http://${host}` });
      expect(response.status, host).toBe(403);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      expect(JSON.parse(response.body)).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: `Invalid Host: ${host}` },
        id: null,
      });
    }
    expect((await raw(endpoint, { headers: { Host: 'evil.example.com' } })).status).toBe(403);
    expect((await raw(`${endpoint}/server-card`, { headers: { Host: 'evil.example.com' } })).status).toBe(
      403,
    );
  });

  it('on a loopback host, refuses pages from other origins', async () => {
    const port = new URL(server.url).port;
    const refused = await initialize({ Host: `localhost:${port}`, Origin: 'https://evil.example.com' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toBe('Invalid Origin: evil.example.com');
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      expect((await initialize({ Host: `127.0.0.1:${port}`, Origin: origin })).status, origin).toBe(200);
    }
  });

  it('answers CORS preflights on the public host', async () => {
    const response = await raw(endpoint, {
      method: 'OPTIONS',
      headers: {
        Host: 'example.com',
        Origin: 'https://agents.example.net',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-methods']).toContain('POST');
    expect(response.headers['access-control-allow-headers']).toBe('content-type, mcp-protocol-version');
  });
});

describe('never a 500', () => {
  it('answers malformed and unexpected requests with 4xx or a JSON-RPC error', async () => {
    const call = (params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params });
    const requests: {
      name: string;
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }[] = [
      { name: 'invalid JSON', method: 'POST', headers: JSON_RPC_HEADERS, body: '{"jsonrpc":' },
      { name: 'not JSON-RPC', method: 'POST', headers: JSON_RPC_HEADERS, body: '[1,2,3]' },
      {
        name: 'wrong content type',
        method: 'POST',
        headers: { ...JSON_RPC_HEADERS, 'Content-Type': 'text/plain' },
        body: INITIALIZE,
      },
      {
        name: 'unknown method',
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: '{"jsonrpc":"2.0","id":1,"method":"nope"}',
      },
      {
        name: 'unknown tool',
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: call({ name: 'nope', arguments: {} }),
      },
      {
        name: 'limit 1000',
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: call({ name: 'list_content', arguments: { limit: 1000 } }),
      },
      {
        name: 'arguments not an object',
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: call({ name: 'list_content', arguments: 'x' }),
      },
      {
        name: 'huge query',
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: call({ name: 'search_content', arguments: { query: 'é'.repeat(10_000) } }),
      },
      {
        name: 'forged cursor',
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: call({ name: 'list_content', arguments: { cursor: '%%%' } }),
      },
      { name: 'PUT', method: 'PUT', headers: JSON_RPC_HEADERS, body: INITIALIZE },
      { name: 'DELETE', method: 'DELETE' },
      { name: 'unknown path', path: '/mcp/nothing' },
      { name: 'POST to the card', method: 'POST', path: '/mcp/server-card', body: '{}' },
    ];
    for (const request of requests) {
      const response = await raw(`${server.url}${request.path ?? '/mcp'}`, request);
      expect(response.status, `${request.name}: ${response.body}`).toBeLessThan(500);
      expect(response.body, request.name).not.toMatch(/\bat .+\.(ts|js):\d+/);
    }
  });

  it('answers an unknown tool with the protocol invalid-params error', async () => {
    const client = await connectV2Http(endpoint);
    await expect(client.callTool('nope', {})).rejects.toMatchObject({
      code: -32602,
      message: 'Tool nope not found',
    });
    await client.close();
  });
});

describe('the Pages Function', () => {
  // Last in this file: by now every test above has sent requests to the same isolate.
  it('loaded the embedded data once, at startup, and never fetched a file for it', () => {
    const loads = server.output().match(/content-index mcp: \d+ items embedded/g) ?? [];
    expect(loads).toEqual([`content-index mcp: ${sample.index.content.length} items embedded`]);
    expect(server.output()).not.toMatch(/GET \/mcp\/data\.json/);
  });
});

// Malformed HTTP to /mcp through `wrangler pages dev`: each gets the protocol's error with a 4xx (or, for
// a 2025-era client, its JSON-RPC error on a 200 stream, as that revision answers every request), never
// a 5xx. Exact statuses and bodies: the error texts come from the pinned SDK.

const post = (body: string, headers: Record<string, string> = JSON_RPC_HEADERS) =>
  raw(endpoint, { method: 'POST', headers, body });

/** A JSON-RPC error answer, as the SDK words it (no id when the request's could not be read). */
const rpcError = (code: number, message: string, id: number | null = null) =>
  id === null
    ? { jsonrpc: '2.0', error: { code, message }, id }
    : { jsonrpc: '2.0', id, error: { code, message } };

function expectJson(response: RawResponse, status: number, body: unknown): void {
  expect(response.status, response.body).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  expect(JSON.parse(response.body)).toEqual(body);
}

const TOO_LARGE = rpcError(
  -32000,
  `Payload Too Large: Request body must not exceed ${MAX_REQUEST_BYTES} bytes`,
);

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'malformed', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Streams `bytes` of a JSON string as a chunked body (no Content-Length), then answers what came back. */
function postChunked(bytes: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      endpoint,
      { method: 'POST', headers: { ...JSON_RPC_HEADERS, 'Transfer-Encoding': 'chunked' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          answered = true;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    // The server may close its side once it has answered; that is not a failure of the request.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    req.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
    const pump = () => {
      while (!answered && sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end('"}}');
    };
    pump();
  });
}

describe('malformed HTTP to /mcp', () => {
  it('answers invalid JSON with 400 and the JSON-RPC parse error', async () => {
    expectJson(await post('{"jsonrpc":'), 400, rpcError(-32700, 'Parse error: Invalid JSON'));
    // The same from a 2026-07-28 client: the body decides, and it cannot be read.
    const modern = { ...JSON_RPC_HEADERS, 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' };
    expectJson(await post('{"jsonrpc":', modern), 400, rpcError(-32700, 'Parse error: Invalid JSON'));
  });

  it('answers a wrong Content-Type with 415', async () => {
    expectJson(
      await post(INITIALIZE, { ...JSON_RPC_HEADERS, 'Content-Type': 'text/plain' }),
      415,
      rpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json'),
    );
  });

  it('answers a batch of 1,000 requests with 400 and the invalid-request error, running none', async () => {
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'search_content', arguments: { query: 'rust' } },
    }));
    const body = JSON.stringify(batch);
    // Under the body limit, so it is the batch rule that answers.
    expect(body.length).toBeLessThan(MAX_REQUEST_BYTES);
    expectJson(
      await post(body),
      400,
      rpcError(
        -32600,
        `Invalid Request: Batch must not exceed ${REQUEST_LIMITS.batch} messages (this one has 1000); none was run. Send them in several requests.`,
      ),
    );
  });

  it('refuses a batch under the revisions that have none (2025-06-18, 2025-11-25), runs it under 2025-03-26', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    for (const revision of ['2025-06-18', '2025-11-25']) {
      expectJson(
        await post(batch, { ...JSON_RPC_HEADERS, 'MCP-Protocol-Version': revision }),
        400,
        rpcError(
          -32600,
          `Invalid Request: protocol revision ${revision} has no JSON-RPC batches (only 2025-03-26 had them); none was run. Send one message per request.`,
        ),
      );
    }
    for (const headers of [{ ...JSON_RPC_HEADERS, 'MCP-Protocol-Version': '2025-03-26' }, JSON_RPC_HEADERS]) {
      const answered = await post(batch, headers);
      expect(answered.status, answered.body).toBe(200);
      expect(answered.body).toContain('"id":2');
    }
  });

  it('answers a body over 256 KiB with 413, declared or streamed', async () => {
    expect(MAX_REQUEST_BYTES).toBe(256 * 1024);
    const declared = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(5 << 20) },
    });
    expectJson(await post(declared), 413, TOO_LARGE);
    // No Content-Length: the limit holds on what arrives.
    expectJson(await postChunked(8 << 20), 413, TOO_LARGE);
  });

  it('answers an unknown method with the method-not-found error, in each protocol era', async () => {
    // 2025 revisions: a JSON-RPC error inside the one-event stream they answer every request with.
    const legacy = await post('{"jsonrpc":"2.0","id":1,"method":"nope"}');
    expect(legacy.status).toBe(200);
    expect(legacy.headers['content-type']).toBe('text/event-stream');
    expect(legacy.body).toBe(
      `event: message\ndata: ${JSON.stringify(rpcError(-32601, 'Method not found', 1))}\n\n`,
    );
    // 2026-07-28: a 404 with the same error.
    const modern = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nope', params: { _meta: MODERN_META } }),
      {
        ...JSON_RPC_HEADERS,
        'Mcp-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'nope',
      },
    );
    expectJson(modern, 404, rpcError(-32601, 'Method not found', 1));
  });

  it('keeps serving afterwards: no request above broke the isolate', async () => {
    const response = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'search_content', arguments: { query: 'rust' }, _meta: MODERN_META },
      }),
      {
        ...JSON_RPC_HEADERS,
        'Mcp-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'search_content',
      },
    );
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).result.structuredContent.total).toBeGreaterThan(0);
    // wrangler logs each request as `POST /mcp 413 Payload Too Large (3ms)`.
    expect(server.output()).toMatch(/POST \/mcp 413 /);
    expect(server.output()).not.toMatch(/\/mcp\S* 5\d\d |Uncaught/);
  });
});

describe('X-Content-Type-Options', () => {
  it('is nosniff on every answer of /mcp and /mcp/server-card, refusals and errors included', async () => {
    const port = new URL(server.url).port;
    const batch = JSON.stringify(
      Array.from({ length: REQUEST_LIMITS.batch + 1 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' })),
    );
    const cases: [string, number, string, Parameters<typeof raw>[1]][] = [
      ['description', 200, endpoint, {}],
      ['server card', 200, `${endpoint}/server-card`, {}],
      ['initialize', 200, endpoint, { method: 'POST', headers: JSON_RPC_HEADERS, body: INITIALIZE }],
      [
        'preflight',
        204,
        endpoint,
        { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': 'POST' } },
      ],
      ['event stream', 405, endpoint, { headers: { Accept: 'text/event-stream' } }],
      ['DELETE', 405, endpoint, { method: 'DELETE' }],
      ['POST to the card', 405, `${endpoint}/server-card`, { method: 'POST', body: '{}' }],
      ['unknown path', 404, `${server.url}/mcp/nothing`, {}],
      ['other host', 403, endpoint, { headers: { Host: 'evil.example.com' } }],
      [
        'other origin',
        403,
        endpoint,
        {
          method: 'POST',
          headers: { ...JSON_RPC_HEADERS, Host: `localhost:${port}`, Origin: 'https://evil.example.com' },
          body: INITIALIZE,
        },
      ],
      ['invalid JSON', 400, endpoint, { method: 'POST', headers: JSON_RPC_HEADERS, body: '{"jsonrpc":' }],
      ['batch too long', 400, endpoint, { method: 'POST', headers: JSON_RPC_HEADERS, body: batch }],
      [
        'wrong content type',
        415,
        endpoint,
        { method: 'POST', headers: { ...JSON_RPC_HEADERS, 'Content-Type': 'text/plain' }, body: INITIALIZE },
      ],
      [
        'too large',
        413,
        endpoint,
        { method: 'POST', headers: JSON_RPC_HEADERS, body: `{"pad":"${'x'.repeat(MAX_REQUEST_BYTES)}"}` },
      ],
    ];
    for (const [name, status, url, options] of cases) {
      const response = await raw(url, options);
      expect(response.status, `${name}: ${response.body.slice(0, 200)}`).toBe(status);
      expect(response.headers['x-content-type-options'], name).toBe('nosniff');
    }
  });
});

describe('the per-request budget', () => {
  const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  /** A 2025-03-26 batch (the one revision with batches): its answers, in id order. */
  const answers = async (calls: unknown[]) => {
    const response = await post(JSON.stringify(calls));
    expect(response.status, response.body.slice(0, 300)).toBe(200);
    return response.body
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 6)
      .map(
        (line) =>
          JSON.parse(line.slice(6)) as {
            id: number;
            result?: { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
          },
      )
      .sort((a, b) => a.id - b.id);
  };

  it("refuses the issue's request (100 ten-word searches, limit 100) as a whole, before any runs", async () => {
    const words = 'modelos datos python rust redes neuronales embeddings transformers inferencia rendimiento';
    const calls = Array.from({ length: 100 }, (_, i) =>
      toolCall(i, 'search_content', { query: `${words} ${i}`, limit: 100 }),
    );
    const body = JSON.stringify(calls);
    expect(body.length).toBeGreaterThan(15_000);
    expectJson(
      await post(body),
      400,
      rpcError(
        -32600,
        `Invalid Request: Batch must not exceed ${REQUEST_LIMITS.batch} messages (this one has 100); none was run. Send them in several requests.`,
      ),
    );
    // At the limit, a batch runs.
    const ten = await answers(
      Array.from({ length: REQUEST_LIMITS.batch }, (_, i) => toolCall(i, 'list_content', { limit: 1 })),
    );
    expect(ten.map((a) => a.result?.isError ?? false)).toEqual(Array(REQUEST_LIMITS.batch).fill(false));
  });

  it('refuses the calls of one request past 200 items in all, before they run', async () => {
    expect(REQUEST_LIMITS.items).toBe(200);
    const got = await answers([
      toolCall(1, 'search_content', { query: 'python', limit: 100 }),
      toolCall(2, 'list_content', { limit: 90 }),
      toolCall(3, 'search_content', { query: 'rust', limit: 20 }),
      toolCall(4, 'list_content', {}),
    ]);
    expect(got.map((a) => [a.id, a.result?.isError ?? false])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [4, true],
    ]);
    expect(got[2]?.result?.content[0]?.text).toBe(
      "Request budget: search_content: this request has already asked for 190 items, and one request may ask for at most 200 (the sum of its calls' limit). Send this call in another request, or lower limit to 10 or less.",
    );
    // list_content's default limit (20) counts too.
    expect(got[3]?.result?.content[0]?.text).toBe(
      "Request budget: list_content: this request has already asked for 190 items, and one request may ask for at most 200 (the sum of its calls' limit). Send this call in another request, or lower limit to 10 or less.",
    );
    // The next request has a budget of its own.
    expect(
      (await answers([toolCall(5, 'list_content', { limit: 100 })]))[0]?.result?.isError,
    ).toBeUndefined();
  });
});
