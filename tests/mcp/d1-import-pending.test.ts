import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltSample, buildSample, JSON_RPC_HEADERS, raw } from '../helpers/mcp.ts';
import { type PagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';

// A D1 site served before its build's tables are in the database: `content-index dev` starts wrangler
// while its local import still runs, and any `wrangler pages dev` can be started before
// `content-index d1 import --local`. /mcp says to come back (503, Retry-After) until they are there,
// never a tool error, and serves as soon as they are.

let d1: BuiltSample;
let state: string;
let server: PagesDev;
let endpoint: string;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'content-index-d1-pending-'));
  d1 = await buildSample('d1');
  server = await startProjectPagesDev(d1.out, [], d1.root, { persistTo: state });
  endpoint = `${server.url}/mcp`;
}, 240_000);
afterAll(async () => {
  await server?.stop();
  await d1?.dispose();
  if (state) await rm(state, { recursive: true, force: true });
});

const SEARCH = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'search_content', arguments: { query: 'rust' } },
});

it('answers 503 with Retry-After until the tables are imported, then serves the search', async () => {
  for (const request of [
    { method: 'POST', headers: JSON_RPC_HEADERS, body: SEARCH },
    { method: 'GET', headers: {} },
  ]) {
    const pending = await raw(endpoint, request);
    expect(pending.status, pending.body).toBe(503);
    expect(pending.headers['retry-after']).toBe('5');
    const body = JSON.parse(pending.body) as { error: string; message: string };
    expect(body.error).toBe('mcp_unavailable');
    expect(body.message).toMatch(
      /^The search tables of this build \(g[0-9a-f]{12}\) are not in the D1 database/,
    );
  }
  await d1.importD1(state);
  const served = await raw(endpoint, { method: 'POST', headers: JSON_RPC_HEADERS, body: SEARCH });
  expect(served.status, served.body).toBe(200);
  expect(served.body).not.toContain('isError');
  expect(served.body).toContain('"structuredContent"');
}, 240_000);
