import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedMcp } from '../../build/core/edge/mcp/backend.ts';
import { listContent, searchContent } from '../../build/core/edge/mcp/tools.ts';
import { runScenario, SCENARIOS, verdicts } from '../helpers/conformance.ts';
import {
  type BuiltSample,
  buildSample,
  type Connection,
  connectV1_12Http,
  connectV1Http,
  connectV2Http,
  loadProjectMcp,
} from '../helpers/mcp.ts';
import { type ConformanceTools, conformanceTools } from '../helpers/node22.ts';
import { type PagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';
import { toolSuite } from './tool-suite.ts';

/**
 * The D1 backend through `wrangler pages dev` with wrangler's local D1 (a real SQLite with FTS5): the
 * sample site built with `mcp.backend: 'd1'`, imported with `content-index d1 import`, served. The
 * shared tool suite runs against it with both official clients, then every answer is compared with the
 * embedded backend's for the same site, and the conformance scenarios run against it.
 */
let d1: BuiltSample;
let embedded: LoadedMcp;
let state: string;
let imported: string;
let server: PagesDev;
let endpoint: string;
let tools: ConformanceTools;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'content-index-d1-'));
  let reference: BuiltSample;
  [d1, reference, tools] = await Promise.all([
    buildSample('d1'),
    buildSample('embedded'),
    conformanceTools(),
  ]);
  embedded = await loadProjectMcp(reference.root);
  await reference.dispose();
  imported = await d1.importD1(state);
  server = await startProjectPagesDev(d1.out, [], d1.root, { persistTo: state });
  endpoint = `${server.url}/mcp`;
}, 360_000);
afterAll(async () => {
  await server?.stop();
  await d1?.dispose();
  if (state) await rm(state, { recursive: true, force: true });
});

toolSuite(
  'D1 backend: @modelcontextprotocol/client v2 over HTTP',
  () => connectV2Http(endpoint),
  () => d1.index,
  '2026-07-28',
  { ranking: 'set' },
);
toolSuite(
  'D1 backend: @modelcontextprotocol/sdk v1 Client',
  () => connectV1Http(endpoint),
  () => d1.index,
  '2025-11-25',
  { ranking: 'set' },
);
toolSuite(
  'D1 backend: @modelcontextprotocol/sdk 1.12 Client (revision 2025-03-26)',
  () => connectV1_12Http(endpoint),
  () => d1.index,
  '2025-03-26',
  { ranking: 'set' },
);

describe('D1 backend against the embedded one', () => {
  let client: Connection;
  beforeAll(async () => {
    client = await connectV2Http(endpoint);
  });
  afterAll(() => client?.close());
  const call = async (tool: string, args: Record<string, unknown>) =>
    (await client.callTool(tool, args)).structuredContent as Record<string, unknown>;

  it('the import said what it did', () => {
    expect(imported).toMatch(
      /✓ D1 content-index \(local\): imported g[0-9a-f]{12} \(22 items\) in [\d.]+ s\n/,
    );
    expect(imported).toMatch(/✓ D1 content-index \(local\): g[0-9a-f]{12} is live\n/);
  });

  it('lists exactly the same pages, cursors included', async () => {
    const cases: Record<string, unknown>[] = [
      {},
      { limit: 7 },
      { type: 'post', lang: 'pt-br', limit: 2 },
      { lang: 'en', limit: 5 },
      { lang: 'es', limit: 100 },
      { technology: 'PYTHON', limit: 1 },
      { technology: 'rust', type: 'project', lang: 'en' },
      { technology: 'cobol' },
      { technology: 'c++', lang: 'EN' },
      { lang: 'PT_br', limit: 3 },
    ];
    for (const args of cases) {
      let page = await call('list_content', args);
      let reference = await listContent(embedded, args);
      expect(page, JSON.stringify(args)).toEqual(reference);
      // Every following page too, through the cursors each backend handed out.
      while (reference.next_cursor) {
        page = await call('list_content', { ...args, cursor: page.next_cursor });
        reference = await listContent(embedded, { ...args, cursor: reference.next_cursor });
        expect(page, JSON.stringify(args)).toEqual(reference);
      }
    }
  });

  it('finds the same items, in the same language and fields, for every kind of query', async () => {
    // Ranking may differ (FTS5's bm25 against the embedded index's, which weighs continuations and
    // typo variants half and counts only the entries a filter lets through): the sets, totals and per-item
    // answers must not. All hits are asked for, so the sets are whole.
    const queries: Record<string, unknown>[] = [
      { query: 'python' },
      { query: 'programacion' },
      { query: 'APRENDIZAJE automático' },
      { query: 'quantizacao' },
      { query: 'embed' },
      { query: 'embedings' },
      { query: 'transformrs' },
      { query: 'rast' },
      { query: 'neural networks' },
      { query: 'rust xyzzyq' },
      { query: 'aprendizado de maquina', lang: 'pt-br' },
      { query: 'rust', type: 'project' },
      { query: 'rust', lang: 'en', type: 'post' },
      { query: 'asistentes', lang: 'en' },
      { query: 'pyo3' },
      { query: 'rag modelos' },
      { query: 'vectores similitud coseno' },
      { query: 'ml' },
      { query: 'int8 int4' },
      { query: 'C++' },
      { query: 'c#' },
      { query: '.NET onnx' },
      { query: 'Node.js', lang: 'EN' },
      { query: 'c' },
      { query: 'onnx', lang: 'pt-BR' },
    ];
    for (const args of queries) {
      const byUrl = (items: { url: string }[]) =>
        Object.fromEntries(items.map((item) => [item.url, { ...item, score: undefined }]));
      const got = await call('search_content', { ...args, limit: 100 });
      const reference = await searchContent(embedded, { ...(args as { query: string }), limit: 100 });
      const what = JSON.stringify(args);
      expect(got.total, what).toBe(reference.total);
      expect(got.match, what).toBe(reference.match);
      expect(byUrl(got.items as { url: string }[]), what).toEqual(byUrl(reference.items));
      const scores = (got.items as { score: number }[]).map((i) => i.score);
      expect(
        [...scores].sort((a, b) => b - a),
        what,
      ).toEqual(scores);
    }
  });

  it('gives the same tool errors', async () => {
    for (const args of [{ query: ' ?! ' }, { query: 'de la THE' }]) {
      const result = await client.callTool('search_content', args);
      expect(result.isError).toBe(true);
      await expect(searchContent(embedded, args)).rejects.toThrow(result.content?.[0]?.text ?? '');
    }
  });

  it('set the backend up once, on the first request, and never loaded the items into the Function', () => {
    const setUps = server.output().match(/content-index mcp: \d+ items in D1 database content-index/g) ?? [];
    expect(setUps).toEqual([
      `content-index mcp: ${d1.index.content.length} items in D1 database content-index`,
    ]);
    expect(server.output()).not.toMatch(/items embedded/);
  });
});

describe('D1 backend: MCP conformance', () => {
  let results: string;
  beforeAll(async () => {
    results = await mkdtemp(join(tmpdir(), 'content-index-conformance-d1-'));
  });
  afterAll(() => rm(results, { recursive: true, force: true }));
  for (const scenario of SCENARIOS) {
    it(`passes the ${scenario} scenario`, async () => {
      const { got, passing } = verdicts(await runScenario(tools, endpoint, scenario, results));
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(passing);
    });
  }
});
