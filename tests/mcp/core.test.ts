import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createMcpFetch, MAX_REQUEST_BYTES } from '../../build/core/mcp/http.ts';
import { MCP_DATA_PATH, type McpData } from '../../build/core/mcp/mcp-data.ts';
import { buildSearchIndex } from '../../build/core/mcp/search-index.ts';
import { render } from '../../build/core/render.ts';
import { build } from '../../build/index.ts';
import { GENERATED, JSON_RPC_HEADERS } from '../helpers/mcp.ts';
import { md, PROJECT_ROOT, tempSite } from '../helpers/site.ts';

async function sampleData(generated = GENERATED): Promise<McpData> {
  const { model, config } = await build({ root: PROJECT_ROOT, dryRun: true, clock: () => generated });
  const file = render(model, { config, now: generated }).files.find((f) => f.path === MCP_DATA_PATH);
  return JSON.parse(file?.content ?? 'null');
}

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

describe('the prepared data', () => {
  it('is searched as the build prepared it: a cold start loads the index, it does not rebuild it', async () => {
    const data = await sampleData();
    const first = data.entries[0];
    // An index that knows a single word for the first item, and nothing else the entries contain.
    data.search = buildSearchIndex([
      { id: 0, text: { es: { title: 'zzprepared', tags: [] } }, tags: [], technologies: [] },
    ]);
    const client = await connect(createMcpFetch({ loadData: async () => data, log: () => undefined }));
    expect(await search(client, 'zzprepared')).toEqual([first?.item.url]);
    expect(await search(client, 'rust')).toEqual([]);
    await client.close();
  });

  it('is loaded once for every request, and again only after a failed load', async () => {
    const data = await sampleData();
    let loads = 0;
    const serve = createMcpFetch({
      loadData: async () => {
        loads++;
        if (loads === 1) throw new Error('asset fetch failed');
        return data;
      },
      log: () => undefined,
    });
    const failed = await serve(new Request('https://example.com/mcp', { headers: { host: 'example.com' } }));
    expect(failed.status).toBe(503);
    const client = await connect(serve);
    for (const query of ['rust', 'python', 'rag'])
      expect((await search(client, query)).length).toBeGreaterThan(0);
    await client.close();
    expect(loads).toBe(2);
  });

  it("answers 503 with a JSON body, not 500, when the file is missing or is the site's HTML page", async () => {
    const logged: string[] = [];
    const serve = createMcpFetch({
      loadData: async () => '<!doctype html><title>Home</title>',
      log: (m) => logged.push(m),
    });
    const response = await serve(
      new Request('https://example.com/mcp', { headers: { host: 'example.com' } }),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: 'mcp_unavailable',
      message: 'The MCP server has no data to serve yet; the site needs a rebuild.',
    });
    expect(logged).toEqual([
      'content-index mcp: mcp/data.json is missing or has another format (expected format 2); rebuild the site with content-index build',
    ]);
  });

  it('is the same bytes for the same sources, whenever it is built', async () => {
    const a = await sampleData(new Date('2026-04-01T00:00:00Z'));
    const b = await sampleData(new Date('2026-05-01T00:00:00Z'));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('lists the hosts the endpoint answers for: the site, then the configured ones', async () => {
    expect((await sampleData()).site.hosts).toEqual([
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
    const data = await sampleData();
    const serve = createMcpFetch({ loadData: async () => data, log: () => undefined });
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
