import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../build/core/mcp/http.ts';
import {
  type BuiltSample,
  buildSample,
  INITIALIZE,
  JSON_RPC_HEADERS,
  type RawResponse,
  raw,
} from '../helpers/mcp.ts';
import { type PagesDev, startPagesDev } from '../helpers/pages-dev.ts';

// Malformed HTTP to /mcp through `wrangler pages dev`: each gets the protocol's error with a 4xx (or, for
// a 2025-era client, its JSON-RPC error on a 200 stream, as that revision answers every request), never
// a 5xx. Exact statuses and bodies: the error texts come from the pinned SDK.
let sample: BuiltSample;
let server: PagesDev;
let endpoint: string;

beforeAll(async () => {
  sample = await buildSample();
  server = await startPagesDev(sample.out);
  endpoint = `${server.url}/mcp`;
});
afterAll(async () => {
  await server?.stop();
  await sample?.dispose();
});

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
      rpcError(-32600, 'Invalid Request: Batch must not exceed 100 messages'),
    );
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
