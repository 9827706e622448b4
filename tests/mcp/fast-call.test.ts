import { McpServer } from '@modelcontextprotocol/server';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createEmbeddedBackend, embeddedData } from '../../build/core/edge/mcp/embedded.ts';
import { createMcpFetch, type McpHttpOptions } from '../../build/core/edge/mcp/http.ts';
import { CURRENT_PROTOCOL_VERSION, prepareServer } from '../../build/core/edge/mcp/server.ts';
import type { LoadedMcp } from '../../build/core/edge/mcp/tools.ts';
import { build } from '../../build/index.ts';
import { GENERATED } from '../helpers/mcp.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

/**
 * The ordinary tools/call of the current revision is answered without the SDK's per-request server
 * (build/core/edge/mcp/fast-call.ts). Every request here is sent both ways, to the endpoint and to the
 * same endpoint with the SDK answering everything, and the two answers must be the same bytes: the
 * ordinary ones answered by the fast path, every other one left to the SDK.
 */
let mcp: LoadedMcp;
beforeAll(async () => {
  const { mcpPrepared } = await build({ root: PROJECT_ROOT, dryRun: true, clock: () => GENERATED });
  const data = embeddedData(mcpPrepared);
  mcp = { info: data.info, backend: createEmbeddedBackend(data) };
});

const ENDPOINT = 'https://example.com/mcp';
const META = {
  'io.modelcontextprotocol/protocolVersion': CURRENT_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Call {
  label: string;
  body: unknown;
  headers?: Record<string, string | undefined>;
}

function call(
  label: string,
  name: string,
  args: unknown,
  change: { meta?: Record<string, unknown>; id?: unknown; headers?: Record<string, string | undefined> } = {},
): Call {
  return {
    label,
    body: {
      jsonrpc: '2.0',
      id: 'id' in change ? change.id : 7,
      method: 'tools/call',
      params: { name, ...(args !== undefined && { arguments: args }), _meta: change.meta ?? META },
    },
    ...(change.headers && { headers: change.headers }),
  };
}

function request({ body, headers = {} }: Call, name: string): Request {
  const all: Record<string, string | undefined> = {
    host: 'example.com',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': CURRENT_PROTOCOL_VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': name,
    ...headers,
  };
  const defined = Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return new Request(ENDPOINT, { method: 'POST', headers: defined, body: JSON.stringify(body) });
}

async function answers(calls: Call[], options: Partial<McpHttpOptions> = {}) {
  const fast = createMcpFetch({ mcp, log: () => undefined, ...options });
  const sdk = createMcpFetch({ mcp, log: () => undefined, ...options, fastCall: false });
  const prepared = prepareServer(mcp, {
    budget: 'request',
    ...(options.limits && { limits: options.limits }),
  });
  // The servers an endpoint builds for a request: the SDK's handler has the three tools registered on each.
  const registered = vi.spyOn(McpServer.prototype, 'registerTool');
  const built = async (answer: () => Promise<Response>) => {
    const before = registered.mock.calls.length;
    const response = await answer();
    return { response, servers: (registered.mock.calls.length - before) / 3 };
  };
  const out = [];
  try {
    for (const one of calls) {
      const name = ((one.body as { params?: { name?: string } }).params?.name ?? '') as string;
      const viaFast = await built(() => fast(request(one, name)));
      const viaSdk = await built(() => sdk(request(one, name)));
      const sent = request(one, name);
      const answeredFast = await prepared.fastCall.answer(one.body, {
        protocolVersion: sent.headers.get('mcp-protocol-version'),
        method: sent.headers.get('mcp-method'),
        name: sent.headers.get('mcp-name'),
        accept: sent.headers.get('accept'),
      });
      // What the fast path answers, the endpoint answered without a server where the SDK built one;
      // anything else, both the same way.
      expect([viaFast.servers, viaSdk.servers], one.label).toEqual(
        answeredFast === undefined ? [viaSdk.servers, viaSdk.servers] : [0, 1],
      );
      const [a, b] = [viaFast.response, viaSdk.response];
      out.push({
        label: one.label,
        fast: answeredFast !== undefined,
        got: { status: a.status, headers: [...a.headers], body: await a.text() },
        want: { status: b.status, headers: [...b.headers], body: await b.text() },
      });
    }
  } finally {
    registered.mockRestore();
  }
  return out;
}

describe('the ordinary tools/call, answered without a server per request', () => {
  it('answers each tool as the SDK does, byte for byte', async () => {
    const calls = [
      call('search', 'search_content', { query: 'python' }),
      call('search, filters', 'search_content', { query: 'aprendizaje', lang: 'ES', type: 'post', limit: 2 }),
      call('search, nothing found', 'search_content', { query: 'zzqxjv' }),
      call('search, a typo', 'search_content', { query: 'pyhton' }),
      call('list', 'list_content', { limit: 2 }),
      call('list, no arguments', 'list_content', undefined),
      call('list, a technology', 'list_content', { technology: 'Python', limit: 1 }),
      call('stats', 'content_stats', {}),
      call('a string id', 'content_stats', {}, { id: 'a-1' }),
      call('id 0', 'content_stats', {}, { id: 0 }),
      call('a forged cursor (a tool error)', 'list_content', { cursor: 'bm90LWEtY3Vyc29y' }),
      call('a query of stop words only (a tool error)', 'search_content', { query: 'de la' }),
      call(
        'a client with capabilities',
        'search_content',
        { query: 'rust' },
        {
          meta: {
            ...META,
            'io.modelcontextprotocol/clientCapabilities': {
              roots: { listChanged: true },
              sampling: {},
              elicitation: { form: {}, url: {} },
            },
          },
        },
      ),
      call(
        'capabilities the revision defines, and one it does not',
        'content_stats',
        {},
        {
          meta: {
            ...META,
            'io.modelcontextprotocol/clientCapabilities': {
              experimental: { feature: { on: true } },
              extensions: { 'io.example/x': {} },
              sampling: { context: {}, tools: {}, other: 1 },
              elicitation: { form: { applyDefaults: true }, url: {} },
              roots: {},
              future: 3,
            },
          },
        },
      ),
      call(
        'a client with a title',
        'content_stats',
        {},
        {
          meta: {
            ...META,
            'io.modelcontextprotocol/clientInfo': { name: 't', title: 'T', version: '2' },
          },
        },
      ),
      call('Accept: application/json', 'content_stats', {}, { headers: { accept: 'application/json' } }),
    ];
    const results = await answers(calls);
    for (const result of results) {
      expect(result.fast, result.label).toBe(true);
      expect(result.got, result.label).toEqual(result.want);
      expect(result.got.status, result.label).toBe(200);
    }
    // Tool errors are the SDK's: an isError result naming the problem.
    const forged = results.find((r) => r.label.startsWith('a forged cursor'));
    expect(JSON.parse(forged?.got.body ?? '{}').result.isError).toBe(true);
  });

  it('answers a budget refusal as the SDK does', async () => {
    const results = await answers(
      [
        call('past the search work', 'search_content', { query: 'python' }),
        call('past the items', 'list_content', { limit: 5 }),
      ],
      { limits: { batch: 10, items: 3, resultBytes: 512 * 1024, searchWork: 1 } },
    );
    for (const result of results) {
      expect(result.fast, result.label).toBe(true);
      expect(result.got, result.label).toEqual(result.want);
      expect(JSON.parse(result.got.body).result.content[0].text, result.label).toMatch(/^Request budget: /);
    }
  });

  it('leaves every other request to the SDK, which answers it as before', async () => {
    const { 'io.modelcontextprotocol/clientInfo': _, ...withoutClient } = META;
    const calls = [
      call(
        'another revision in the header',
        'content_stats',
        {},
        {
          headers: { 'mcp-protocol-version': '2025-11-25' },
        },
      ),
      call(
        'no protocol version header',
        'content_stats',
        {},
        {
          headers: { 'mcp-protocol-version': undefined },
        },
      ),
      call('no Mcp-Method', 'content_stats', {}, { headers: { 'mcp-method': undefined } }),
      call('Mcp-Name of another tool', 'content_stats', {}, { headers: { 'mcp-name': 'list_content' } }),
      call('no Mcp-Name', 'content_stats', {}, { headers: { 'mcp-name': undefined } }),
      call('Accept: text/event-stream', 'content_stats', {}, { headers: { accept: 'text/event-stream' } }),
      call('no Accept', 'content_stats', {}, { headers: { accept: undefined } }),
      call('an unknown tool', 'no_such_tool', {}),
      call('arguments the schema refuses', 'list_content', { limit: 0 }),
      call('an unknown argument', 'search_content', { query: 'x', extra: 1 }),
      call('arguments that are a list', 'search_content', ['python']),
      call('a null id', 'content_stats', {}, { id: null }),
      call('a fractional id', 'content_stats', {}, { id: 1.5 }),
      call('a progress token', 'content_stats', {}, { meta: { ...META, progressToken: 1 } }),
      call('no client info', 'content_stats', {}, { meta: withoutClient }),
      call(
        'capabilities { experimental: { x: true } }',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { experimental: { x: true } } },
        },
      ),
      call(
        'capabilities { experimental: { listChanged: true } }',
        'content_stats',
        {},
        {
          meta: {
            ...META,
            'io.modelcontextprotocol/clientCapabilities': { experimental: { listChanged: true } },
          },
        },
      ),
      call(
        'capabilities { extensions: { subscribe: false } }',
        'content_stats',
        {},
        {
          meta: {
            ...META,
            'io.modelcontextprotocol/clientCapabilities': { extensions: { subscribe: false } },
          },
        },
      ),
      call(
        'capabilities { roots: { listChanged: {} } }',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: {} } } },
        },
      ),
      call(
        'capabilities { roots: true }',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { roots: true } },
        },
      ),
      call(
        'capabilities { elicitation: { form: { applyDefaults: {} } } }',
        'content_stats',
        {},
        {
          meta: {
            ...META,
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: { applyDefaults: {} } } },
          },
        },
      ),
      call(
        'capabilities { elicitation: { url: 1 } }',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: 1 } } },
        },
      ),
      call(
        'capabilities { sampling: { context: [] } }',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { sampling: { context: [] } } },
        },
      ),
      call(
        'capabilities []',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': [] },
        },
      ),
      call(
        'an older envelope version',
        'content_stats',
        {},
        {
          meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' },
        },
      ),
      {
        label: 'a key JSON-RPC does not have',
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'content_stats', _meta: META },
          x: 1,
        },
      },
      { label: 'tools/list', body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } } },
    ];
    const results = await answers(calls);
    for (const result of results) {
      expect(result.fast, result.label).toBe(false);
      expect(result.got, result.label).toEqual(result.want);
    }
    // Not all of them are errors: the SDK still answers what it accepts.
    expect(results.filter((r) => r.got.status === 200).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.got.status !== 200).length).toBeGreaterThan(0);
  });
});
