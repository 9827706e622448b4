import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createD1Backend, type D1DatabaseLike } from '../../build/core/edge/mcp/d1-backend.ts';
import {
  createEmbeddedBackend,
  type EmbeddedData,
  embeddedData,
} from '../../build/core/edge/mcp/embedded.ts';
import { createMcpFunction } from '../../build/core/edge/mcp/function.ts';
import { createMcpFetch, MAX_REQUEST_BYTES } from '../../build/core/edge/mcp/http.ts';
import { MCP_DATA_FORMAT, type McpInfo } from '../../build/core/edge/mcp/mcp-data.ts';
import { packEmbedded } from '../../build/core/edge/mcp/packed-data.ts';
import { buildSearchIndex } from '../../build/core/edge/mcp/search-index.ts';
import { searchTerms } from '../../build/core/edge/mcp/text.ts';
import { MCP_MODULE_PATH } from '../../build/core/edge/mcp/worker-module.ts';
import { build } from '../../build/index.ts';
import { GENERATED, JSON_RPC_HEADERS } from '../helpers/mcp.ts';
import { md, PROJECT_ROOT, tempSite } from '../helpers/site.ts';

async function sampleData(generated = GENERATED): Promise<EmbeddedData> {
  const { mcpPrepared } = await build({ root: PROJECT_ROOT, dryRun: true, clock: () => generated });
  return embeddedData(mcpPrepared);
}

const loaded = (data: EmbeddedData) => ({ info: data.info, backend: createEmbeddedBackend(data) });

/** The endpoint the Function mounts, driven in-process by the v2 client through a fetch that never leaves Node. */
async function connect(serve: (request: Request) => Promise<Response>): Promise<Client> {
  const client = new Client(
    { name: 'in-process', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const request = new Request(url, init);
    const headers = new Headers(request.headers);
    headers.set('host', new URL(request.url).host);
    return serve(new Request(request, { headers }));
  };
  await client.connect(new StreamableHTTPClientTransport(new URL('https://example.com/mcp'), { fetch }));
  return client;
}

const search = async (client: Client, query: string) =>
  (
    (await client.callTool({ name: 'search_content', arguments: { query } })).structuredContent as {
      items: { url: string }[];
    }
  ).items.map((i) => i.url);

describe('the embedded data', () => {
  it('is searched as the build prepared it: a cold start loads the index, it does not rebuild it', async () => {
    const data = await sampleData();
    const first = JSON.parse(data.entries.split('\n')[0] ?? '{}');
    // An index that knows a single word for the first item, and nothing else the entries contain.
    const index = buildSearchIndex([
      { id: 0, text: { es: { title: 'zzprepared', tags: [] } }, tags: [], technologies: [] },
    ]);
    data.searchTerms = index.terms;
    data.searchOffsets = index.offsets;
    data.searchPostings = index.postings;
    data.searchLengths = index.lengths;
    const client = await connect(createMcpFetch({ mcp: loaded(data), log: () => undefined }));
    expect(await search(client, 'zzprepared')).toEqual([first.item.url]);
    expect(await search(client, 'rust')).toEqual([]);
    await client.close();
  });

  it('is set up once for every request, and again only after a failed set-up', async () => {
    const data = await sampleData();
    let setUps = 0;
    const serve = createMcpFetch({
      mcp: () => {
        setUps++;
        if (setUps === 1) throw new Error('binding missing');
        return loaded(data);
      },
      log: () => undefined,
    });
    const failed = await serve(new Request('https://example.com/mcp', { headers: { host: 'example.com' } }));
    expect(failed.status).toBe(503);
    expect(failed.headers.get('x-content-type-options')).toBe('nosniff');
    const client = await connect(serve);
    for (const query of ['rust', 'python', 'rag'])
      expect((await search(client, query)).length).toBeGreaterThan(0);
    await client.close();
    expect(setUps).toBe(2);
  });

  it('answers 503 with a JSON body, not 500, when the module comes from another release', async () => {
    const logged: string[] = [];
    const onRequest = createMcpFunction({ format: 2, entries: [] }, { log: (m) => logged.push(m) });
    const response = await onRequest({
      request: new Request('https://example.com/mcp', { headers: { host: 'example.com' } }),
      env: {},
    });
    expect(response.status).toBe(503);
    const message = `${MCP_MODULE_PATH} has another format (expected ${MCP_DATA_FORMAT}): it was written by another version of content-index; rebuild the site with content-index build`;
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({ error: 'mcp_unavailable', message });
    expect(logged).toEqual([`content-index mcp: ${message}`, `content-index mcp: ${message}`]);
  });

  it('answers 503 naming the binding when a D1 build is deployed without its database', async () => {
    const { mcpPrepared } = await build({ root: PROJECT_ROOT, dryRun: true, clock: () => GENERATED });
    const { d1Data } = await import('../../build/core/edge/mcp/d1-backend.ts');
    const data = d1Data(mcpPrepared, {
      binding: 'CONTENT_INDEX_DB',
      database: 'content-index',
      generation: 'g0123456789ab',
    });
    const onRequest = createMcpFunction(data);
    const response = await onRequest({
      request: new Request('https://example.com/mcp', { headers: { host: 'example.com' } }),
      env: {},
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await response.json()).message).toBe(
      'The D1 binding CONTENT_INDEX_DB (database content-index) is missing from this deployment: add it to wrangler.toml as [[d1_databases]] binding = "CONTENT_INDEX_DB", database_name = "content-index", and deploy again.',
    );
  });

  it('says what to do when a D1 deploy reads tables that were never imported', async () => {
    const { mcpPrepared } = await build({ root: PROJECT_ROOT, dryRun: true, clock: () => GENERATED });
    const { d1Data } = await import('../../build/core/edge/mcp/d1-backend.ts');
    const data = d1Data(mcpPrepared, {
      binding: 'CONTENT_INDEX_DB',
      database: 'content-index',
      generation: 'g0123456789ab',
    });
    /** A database where the import's record of the generation is there or not, and no item table is. */
    const database = (recorded: boolean) => ({
      prepare: (sql: string) => ({
        bind() {
          return this;
        },
        all: async () => {
          if (recorded && sql.includes('content_index_generations')) return { results: [{ state: 'live' }] };
          throw new Error('D1_ERROR: no such table: ci_g0123456789ab_items: SQLITE_ERROR');
        },
      }),
    });
    // Never imported (or its import still running): the Function says to come back, before any tool runs.
    const pending = await createMcpFunction(data)({
      request: new Request('https://example.com/mcp', { headers: { host: 'example.com' } }),
      env: { CONTENT_INDEX_DB: database(false) },
    });
    expect(pending.status).toBe(503);
    expect(pending.headers.get('retry-after')).toBe('5');
    expect((await pending.json()).message).toBe(
      'The search tables of this build (g0123456789ab) are not in the D1 database content-index yet: a deploy imports them before it publishes, content-index dev imports them into the local database as it builds (wait for its "✓ D1 (local)" line), and content-index d1 import --local does it by hand.',
    );
    // Imported, then its tables dropped by hand: a tool error that says what to do.
    const onRequest = createMcpFunction(data);
    const client = await connect((request) =>
      onRequest({ request, env: { CONTENT_INDEX_DB: database(true) } }),
    );
    const result = await client.callTool({ name: 'list_content', arguments: {} });
    expect(result).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'The search tables of this build (g0123456789ab) are not in the D1 database content-index: the deploy imports them (content-index deploy), and content-index d1 import --local does it for a local server.',
        },
      ],
    });
    // content_stats needs no table: the build worked it out.
    expect((await client.callTool({ name: 'content_stats', arguments: {} })).isError ?? false).toBe(false);
    await client.close();
  });

  it('is the same bytes for the same sources, whenever it is built', async () => {
    // `generated` is when the content last changed, not when it was built (only capped by the clock, so
    // both clocks are past every change): the same module, byte for byte.
    const a = await sampleData(new Date('2031-04-01T00:00:00Z'));
    const b = await sampleData(new Date('2032-05-01T00:00:00Z'));
    expect(packEmbedded(a)).toBe(packEmbedded(b));
  });

  it("lists the hosts the endpoint answers for: the site's, then its Pages project's (wrangler.toml name)", async () => {
    expect((await sampleData()).info.site.hosts).toEqual([
      'example.com',
      'content-index.pages.dev',
      '*.content-index.pages.dev',
    ]);
  });
});

describe('mcp.allowedHosts', () => {
  it('must be host names: a URL is a configuration error', async () => {
    const site = await tempSite(
      { 'content/posts/hola.es.md': md({ title: 'Hola' }) },
      {
        site: 'https://example.com/',
        images: 'https://images.example.com/',
        mcp: { allowedHosts: ['https://preview.example.net/'] },
      },
    );
    try {
      const result = await site.cli('build');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'site.config.ts: mcp.allowedHosts.0: must be a host name without scheme or port, optionally starting with *.\n  hint: e.g. content-index.pages.dev, or *.content-index.pages.dev for every preview deployment',
      );
    } finally {
      await site.dispose();
    }
  });
});

describe('request bodies', () => {
  it('reads a body that never ends only up to the limit, then answers 413', async () => {
    const serve = createMcpFetch({ mcp: loaded(await sampleData()), log: () => undefined });
    const chunk = new Uint8Array(16 * 1024).fill(0x78);
    let pulled = 0;
    // No Content-Length, and no end: a handler that read it whole would never answer.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await serve(
      new Request('https://example.com/mcp', {
        method: 'POST',
        headers: { ...JSON_RPC_HEADERS, host: 'example.com' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Payload Too Large: Request body must not exceed ${MAX_REQUEST_BYTES} bytes`,
      },
      id: null,
    });
    // The limit, plus the chunk that crossed it and the stream's read-ahead.
    expect(pulled).toBeGreaterThan(MAX_REQUEST_BYTES);
    expect(pulled).toBeLessThanOrEqual(MAX_REQUEST_BYTES + 4 * chunk.byteLength);
  });
});

describe('the D1 backend', () => {
  it("writes a 200-character query's search in one statement well under D1's 100 KB", async () => {
    let sql = '';
    const db = {
      prepare: (text: string) => {
        sql = text;
        return { bind: () => ({ all: async () => ({ results: [] }) }) };
      },
    };
    const backend = createD1Backend(db as unknown as D1DatabaseLike, {
      format: MCP_DATA_FORMAT,
      backend: 'd1',
      info: { site: {} } as McpInfo,
      d1: { binding: 'CONTENT_INDEX_DB', database: 'content-index', generation: 'g0123456789ab' },
      counts: {},
    });
    // Words whose stems differ in each language, each one's typo look-ups spelled out per form.
    const words = ['evaluaciones', 'aprendizajes', 'arquitecturas', 'distribuciones', 'modelos', 'datos'];
    const query = Array.from({ length: 40 }, (_, i) => `${words[i % words.length]}${i}`)
      .join(' ')
      .slice(0, 200);
    await backend.search({ terms: searchTerms(query), limit: 100 });
    expect(Buffer.byteLength(sql)).toBeGreaterThan(10_000);
    // Each word's expression written once (the AND and the OR of them refer to it): 37.7 KB before.
    expect(Buffer.byteLength(sql)).toBeLessThan(30_000);
  });
});
