import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROBLEM_NAMES } from '../../build/core/edge/problem-types.ts';
import { build } from '../../build/index.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const clock = () => new Date('2026-06-01T00:00:00Z');
const POST = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2025-01-01' }) };
/** What Hugo writes for a site with a docs section (`content/docs/_index.md`). */
const HUGO_DOCS = '<!doctype html><title>Docs</title><h1>Our own documentation</h1>\n';
const HUGO_OUTPUT = { 'public/docs/index.html': HUGO_DOCS, 'public/index.html': '<h1>Home</h1>\n' };

describe('a site with its own /docs/', () => {
  it('stops the build naming apiReference, and never tells the author to delete the page', async () => {
    site = await tempSite({ ...POST, ...HUGO_OUTPUT });
    const before = await site.snapshot();
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "public/docs/index.html: apiReference: is a page of the site's own, and the build writes the API reference at /docs/ (docs/index.html); nothing was written\n" +
        "  hint: keep your page and move the API reference: set apiReference in site.config.ts to a free folder, such as apiReference: '/api-docs/'",
    );
    expect(result.stderr).not.toContain('delete');
    expect(await site.snapshot()).toEqual(before);
  });

  it('builds with apiReference, keeping its page, and every link and problem type follows the move', async () => {
    site = await tempSite(
      { ...POST, ...HUGO_OUTPUT },
      { ...FIXTURE_CONFIG, apiReference: '/api-docs/', landingPage: false },
    );
    const result = await build({ root: site.root, clock });
    const paths = result.files.map((f) => f.path);
    expect(paths).toContain('api-docs/index.html');
    expect(paths).toContain('api-docs/redoc.standalone.js');
    expect(paths.filter((p) => p.startsWith('docs/'))).toEqual([]);
    expect(await readFile(join(site.out, 'docs/index.html'), 'utf8')).toBe(HUGO_DOCS);

    const moved = 'https://example.com/api-docs/';
    const index = await site.readJson<{ documentation: string }>('api/v1/content.json');
    expect(index.documentation).toBe(moved);
    const manifest = await site.readJson<{ documentation: string; reference: string }>('api/versions.json');
    expect(manifest).toMatchObject({ documentation: moved, reference: moved });
    const plugin = await site.readJson<{ legal_info_url: string }>('.well-known/ai-plugin.json');
    expect(plugin.legal_info_url).toBe(moved);
    const openapi = await site.readJson<{
      externalDocs: { url: string };
      info: { license: { url: string } };
    }>('openapi.json');
    expect(openapi.externalDocs.url).toBe(moved);
    expect(openapi.info.license.url).toBe(moved);
    const openapiText = await readFile(join(site.out, 'openapi.json'), 'utf8');
    for (const name of PROBLEM_NAMES) expect(openapiText).toContain(`${moved}#${name}`);
    expect(await readFile(join(site.out, 'llms.txt'), 'utf8')).toContain(`(${moved})`);
    // Nothing the build wrote still points at /docs/.
    for (const file of result.files) expect(file.content, file.path).not.toContain('example.com/docs/');

    // The page's own links climb one folder per level of its address.
    const page = await readFile(join(site.out, 'api-docs/index.html'), 'utf8');
    expect(page).toContain('<redoc spec-url="../openapi.json"');
  });

  it('places the reference as deep as asked, with its links relative to that depth, and on the landing page', async () => {
    site = await tempSite(POST, { ...FIXTURE_CONFIG, apiReference: '/reference/api/', landingPage: true });
    await build({ root: site.root, clock });
    const page = await readFile(join(site.out, 'reference/api/index.html'), 'utf8');
    expect(page).toContain('<redoc spec-url="../../openapi.json"');
    expect(page).toContain('href="../../llms.txt"');
    expect(await readFile(join(site.out, 'index.html'), 'utf8')).toContain(
      '<a href="./reference/api/">/reference/api/</a>',
    );
  });

  it('keeps documentation when it is set: the reference moves, the documentation link stays', async () => {
    site = await tempSite(POST, {
      ...FIXTURE_CONFIG,
      apiReference: '/api-docs/',
      documentation: 'https://docs.example.org/',
    });
    await build({ root: site.root, clock });
    const manifest = await site.readJson<{ documentation: string; reference: string }>('api/versions.json');
    expect(manifest).toEqual(
      expect.objectContaining({
        documentation: 'https://docs.example.org/',
        reference: 'https://example.com/api-docs/',
      }),
    );
  });

  it.each([
    'api-docs/',
    '/api-docs',
    '/',
    'https://example.com/api-docs/',
    '/api/docs/',
    '/mcp/docs/',
    '/a/../b/',
  ])('refuses apiReference %j, saying what it must be', async (value) => {
    site = await tempSite(POST, { ...FIXTURE_CONFIG, apiReference: value });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'site.config.ts: apiReference: must be a folder on the site, from / to a closing /, such as /api-docs/',
    );
    expect(result.stderr).toContain('hint: where the build writes the API reference page (default /docs/)');
  });
});
