import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedMcp } from '../../build/core/edge/mcp/backend.ts';
import { serverIdentity } from '../../build/core/edge/mcp/server.ts';
import { instructionsFor, siteLanguages } from '../../build/core/edge/mcp/site-languages.ts';
import { listContent, searchContent } from '../../build/core/edge/mcp/tools.ts';
import { build } from '../../build/index.ts';
import {
  type Connection,
  connectV2Http,
  INITIALIZE,
  JSON_RPC_HEADERS,
  loadProjectMcp,
  raw,
} from '../helpers/mcp.ts';
import { type PagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';
import { D1_WRANGLER, d1Import } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

// A site whose canonical language is English, served by both MCP backends: the item (title, url) is the
// English page's, and the Spanish translation, which v1's item has no field for, is still listed, found
// and filtered on, with its own address.
const FILES = {
  'content/posts/hello.md': md({ title: 'Hello world', description: 'A first post.' }),
  'content/posts/hello.es.md': md({ title: 'Hola mundo', slug: 'hola-mundo', description: 'Un saludo.' }),
  'content/posts/only.md': md({ title: 'Only in English' }),
};
const CONFIG = { ...FIXTURE_CONFIG, languages: ['en', 'es'], canonicalLanguage: 'en' };
const SPANISH = {
  lang: 'es',
  title: 'Hola mundo',
  description: 'Un saludo.',
  url: 'https://example.com/es/blog/hola-mundo/',
};

let embedded: TempSite;
let d1: TempSite;
let state: string;
let server: PagesDev;
let client: Connection;
let mcp: LoadedMcp;

beforeAll(async () => {
  [embedded, d1] = await Promise.all([
    tempSite(FILES, CONFIG),
    tempSite(FILES, { ...CONFIG, mcp: { backend: 'd1' } }),
  ]);
  await build({ root: embedded.root });
  mcp = await loadProjectMcp(embedded.root);
  const wrangler = await readFile(join(PROJECT_ROOT, 'wrangler.toml'), 'utf8');
  await writeFile(join(d1.root, 'wrangler.toml'), `${wrangler}${D1_WRANGLER}`);
  await build({ root: d1.root });
  state = await mkdtemp(join(tmpdir(), 'content-index-d1-en-'));
  await d1Import(d1.root, state);
  server = await startProjectPagesDev(d1.out, [], d1.root, { persistTo: state });
  client = await connectV2Http(`${server.url}/mcp`);
}, 240_000);
afterAll(async () => {
  await client?.close();
  await server?.stop();
  await embedded?.dispose();
  await d1?.dispose();
  if (state) await rm(state, { recursive: true, force: true });
});

const structured = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool(name, args)).structuredContent as { items: Record<string, unknown>[] };

describe.each([
  ['embedded', (args: Record<string, unknown>) => listContent(mcp, args)],
  ['d1', (args: Record<string, unknown>) => structured('list_content', args)],
] as const)('list_content on the %s backend', (_backend, list) => {
  it('lists the English items with their English title and url, and the Spanish page under lang es', async () => {
    const all = await list({});
    expect(all.items.map((i) => [i.title, i.url, i.url_en])).toEqual([
      ['Hello world', 'https://example.com/blog/hello/', 'https://example.com/blog/hello/'],
      ['Only in English', 'https://example.com/blog/only/', 'https://example.com/blog/only/'],
    ]);
    const spanish = await list({ lang: 'es' });
    expect(spanish.items).toHaveLength(1);
    expect(spanish.items[0]).toMatchObject({ url: 'https://example.com/blog/hello/', translation: SPANISH });
  });
});

describe.each([
  ['embedded', (args: Record<string, unknown>) => searchContent(mcp, args as { query: string })],
  ['d1', (args: Record<string, unknown>) => structured('search_content', args)],
] as const)('search_content on the %s backend', (_backend, search) => {
  it('finds the Spanish page by its Spanish words, with its address', async () => {
    const found = await search({ query: 'saludo', lang: 'es' });
    expect(found.items.map((i) => (i as { translation?: unknown }).translation)).toEqual([SPANISH]);
  });
});

describe('the server speaks of the languages this site has (en canonical, es), never of pt-br', () => {
  it('instructions, identity, tool descriptions and the lang argument, over HTTP (D1) and from the embedded data', async () => {
    const response = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: INITIALIZE,
    });
    const text = response.body;
    const result = JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}')).result;
    expect(result.instructions).toContain('content index of a bilingual site (en canonical, es).');
    expect(result.serverInfo.description).toMatch(/ in en and es\.$/);
    const tools = await client.listTools();
    const described = tools
      .map((tool) => `${tool.description} ${JSON.stringify(tool.inputSchema)}`)
      .join('\n');
    expect(described).not.toMatch(/pt-br|Portuguese/i);
    expect(described).toContain('only items available in one language (en, es)');
    expect(described).toContain('in English and Spanish at once');
    // A blog of posts alone: the server speaks of posts.
    expect(described).toContain('List the posts of the site');
    expect(result.serverInfo.description).toMatch(/^Search and list the posts of /);
    const list = tools.find((tool) => tool.name === 'list_content');
    const defs = list?.inputSchema.$defs as Record<string, { pattern: string }>;
    expect(defs.LanguageArgument?.pattern).toBe('^([Ee][Nn]|[Ee][Ss])$');
    // A language the site does not have is refused by the schema, naming the site's.
    const refused = await client.callTool('list_content', { lang: 'pt-br' });
    expect(refused.isError).toBe(true);
    // The embedded backend's data says the same.
    expect(serverIdentity(mcp.info).description).toMatch(/ in en and es\.$/);
    expect(instructionsFor(siteLanguages(mcp.info.site))).toContain('(en canonical, es)');
  });
});
