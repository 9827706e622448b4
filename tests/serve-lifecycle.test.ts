import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../build/index.ts';
import problemSchema from '../build/schemas/problem.schema.json' with { type: 'json' };
import { WITH_V2 } from './fixtures/v2/serializer.ts';
import { clientAjv } from './helpers/ajv.ts';
import { hasChromium, launchChromium, warnIfNoChromium } from './helpers/chromium.ts';
import { type PagesDev, startProjectPagesDev } from './helpers/pages-dev.ts';
import { FIXTURE_CONFIG, md, snapshotDir, type TempSite, tempSite } from './helpers/site.ts';

// Everything here goes through `wrangler pages dev` (workerd): the generated _headers and _routes.json,
// the Pages Function on /api/*, and its clock, injected only here with a binding.

warnIfNoChromium('the cross-origin browser test');

const BUILT = new Date('2026-11-22T12:00:00Z');
const FILES = {
  'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }),
  'content/posts/hola.en.md': md({ title: 'Hello', slug: 'hello' }),
  'content/projects/motor.es.md': md({ title: 'Motor', technologies: ['Rust'] }),
  // Two hours after the build: left out until a build on or after that instant.
  'content/tips/pronto.es.md': md({ title: 'Pronto', date: '2026-11-22T14:00:00Z' }),
  // A site home page and no 404.html: Pages then answers unknown paths with this page (SPA fallback).
  'public/index.html': '<!doctype html><title>Código y Neuronas</title>',
};
const V2_LIFECYCLE = `export default ${JSON.stringify({
  versions: {
    v1: { published: '2025-01-15', sunset: '2027-11-01T00:00:00Z', documentation: '/docs/migrar-a-v2/' },
    v2: { published: '2026-11-01' },
  },
})};\n`;
const SUNSET = '2027-11-01T00:00:00Z';
const V2_URL = 'https://example.com/api/v2/content.json';

const clockArgs = (now: string) => ['--binding', `CONTENT_INDEX_TEST_NOW=${now}`];
const HOUR = 3600_000;
/** Name and description per language, as site.config.ts may give them. */
const LOCALIZED_CONFIG = {
  ...FIXTURE_CONFIG,
  name: { es: 'Neuronas', en: 'Neurons', 'pt-br': 'Neurônios' },
  description: { es: 'Artículos sobre IA.', en: 'Posts about AI.', 'pt-br': 'Artigos sobre IA.' },
};
const DEPRECATION_HEADERS = ['deprecation', 'sunset', 'link'];

// biome-ignore lint/suspicious/noExplicitAny: bodies of several shapes; the assertions check them
async function get(server: PagesDev, path: string): Promise<{ response: Response; body: any }> {
  const response = await fetch(`${server.url}${path}`);
  const text = await response.text();
  return { response, body: text ? JSON.parse(text) : undefined };
}

function headersOf(response: Response, names: string[]): Record<string, string | null> {
  return Object.fromEntries(names.map((n) => [n, response.headers.get(n)]));
}

describe('with only v1 published', () => {
  let site: TempSite;
  let server: PagesDev;
  beforeAll(async () => {
    site = await tempSite(FILES, LOCALIZED_CONFIG);
    await build({ root: site.root, clock: () => BUILT });
    server = await startProjectPagesDev(site.out, clockArgs(BUILT.toISOString()), site.root);
  });
  afterAll(async () => {
    await server?.stop();
    await site?.dispose();
  });

  it('sends no Deprecation, Sunset or Link anywhere, and versions.deprecation is null', async () => {
    for (const path of ['/api/v1/content.json', '/api/content.json', '/api/v1/schema.json']) {
      const { response, body } = await get(server, path);
      expect(response.status, path).toBe(200);
      expect(headersOf(response, DEPRECATION_HEADERS), path).toEqual({
        deprecation: null,
        sunset: null,
        link: null,
      });
      if (path !== '/api/v1/schema.json') expect(body.versions).toEqual({ current: 'v1', deprecation: null });
    }
  });

  it('sends the API headers from the generated _headers on the static routes', async () => {
    for (const path of ['/api/v1/content.json', '/api/content.json', '/api/versions.json']) {
      const { response } = await get(server, path);
      expect(
        headersOf(response, [
          'content-type',
          'access-control-allow-origin',
          'access-control-expose-headers',
          'x-content-type-options',
          'cache-control',
        ]),
        path,
      ).toEqual({
        'content-type': 'application/json; charset=utf-8',
        'access-control-allow-origin': '*',
        'access-control-expose-headers': 'ETag, Deprecation, Sunset, Link',
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=300, stale-while-revalidate=3600',
      });
    }
  });

  it('answers an unknown file under /api/ with a 404 problem, not the site HTML labelled as JSON', async () => {
    for (const path of ['/api/typo.json', '/api/contents.json']) {
      const { response, body } = await get(server, path).catch(() => ({
        response: undefined,
        body: undefined,
      }));
      expect(response?.status, path).toBe(404);
      expect(response?.headers.get('content-type'), path).toBe('application/problem+json; charset=utf-8');
      expect(body?.type, path).toBe('https://example.com/docs/#not-found');
    }
  });

  it('answers every unknown path under /api/, next to the current version’s files too, with a JSON 404 naming the current version (site with index.html and no 404.html)', async () => {
    const paths = [
      '/api/v1/nope.json',
      '/api/v1/content.jsn',
      '/api/v1/',
      '/api/v1',
      '/api/v1/content.json/extra',
      '/api/',
      '/api',
    ];
    for (const path of paths) {
      const response = await fetch(`${server.url}${path}`);
      const text = await response.text();
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toBe('application/problem+json; charset=utf-8');
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
      const body = JSON.parse(text);
      expect(body, path).toMatchObject({
        type: 'https://example.com/docs/#not-found',
        status: 404,
        instance: path,
        current_version: 'v1',
        current_url: 'https://example.com/api/v1/content.json',
      });
      expect(clientAjv().validate(problemSchema, body), path).toBe(true);
    }
    const head = await fetch(`${server.url}/api/v1/nope.json`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type')]).toEqual([
      404,
      'application/problem+json; charset=utf-8',
    ]);
    // _routes.json matches a static file with a trailing slash too: that address is sent to the file.
    const slash = await fetch(`${server.url}/api/v1/content.json/`, { redirect: 'manual' });
    expect([slash.status, slash.headers.get('location')]).toEqual([308, '/api/v1/content.json']);
  });

  it('answers a CORS preflight on the Function’s paths with 204; the static files are Cloudflare’s (405)', async () => {
    const preflight = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'if-none-match',
        },
      });
    for (const path of ['/api/v9/content.json', '/api/v1/nope.json']) {
      const response = await preflight(path);
      expect(response.status, path).toBe(204);
      expect(
        headersOf(response, [
          'access-control-allow-origin',
          'access-control-allow-methods',
          'access-control-allow-headers',
          'access-control-max-age',
        ]),
        path,
      ).toEqual({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': '*',
        'access-control-max-age': '86400',
      });
    }
    // The known limit (docs/api.md): the static asset handler refuses every method but GET and HEAD, and
    // _routes.json cannot send OPTIONS alone to the Function. Plain GETs need no preflight.
    expect((await preflight('/api/v1/content.json')).status).toBe(405);
    const post = await fetch(`${server.url}/api/v9/content.json`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
  });

  it('opens each llms.txt with that language’s name and description', async () => {
    const opening = async (path: string) =>
      (await (await fetch(`${server.url}${path}`)).text()).split('\n').slice(0, 3);
    expect(await opening('/llms.txt')).toEqual(['# Neuronas', '', '> Artículos sobre IA.']);
    expect(await opening('/en/llms.txt')).toEqual(['# Neurons', '', '> Posts about AI.']);
    expect(await opening('/pt-br/llms.txt')).toEqual(['# Neurônios', '', '> Artigos sobre IA.']);
    // content.json keeps the canonical (Spanish) values.
    const { body } = await get(server, '/api/v1/content.json');
    expect([body.name, body.description]).toEqual(['Neuronas', 'Artículos sobre IA.']);
  });

  it('answers an unknown version with a 404 problem body, not an HTML page', async () => {
    const { response, body } = await get(server, '/api/v9/content.json');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(body).toEqual({
      type: 'https://example.com/docs/#version-unknown',
      title: 'Unknown API version',
      status: 404,
      detail:
        'There is no version v9 of this API. The current version is v1: https://example.com/api/v1/content.json',
      instance: '/api/v9/content.json',
      version: 'v9',
      current_version: 'v1',
      current_url: 'https://example.com/api/v1/content.json',
    });
    expect(clientAjv().validate(problemSchema, body)).toBe(true);
  });

  it('wrangler accepts the generated _headers, _redirects and _routes.json as they are', async () => {
    expect(server.output()).toContain('Parsed 6 valid header rules.');
    // Every rule the build wrote: one per file the build publishes, asked for with a trailing slash.
    const rules = (await readFile(join(site.out, '_redirects'), 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(rules.length).toBeGreaterThan(10);
    expect(server.output()).toContain(`Parsed ${rules.length} valid redirect rules.`);
    expect(server.output()).not.toMatch(
      /invalid (header|redirect) rule|Invalid _routes\.json|Ignoring provided _routes/i,
    );
  });

  // Last in this group: it rebuilds the served folder.
  it('a rebuild of the same sources an hour later serves the same bytes and ETags; a post coming due changes them', async () => {
    const served = async () => {
      const results: Record<string, { etag: string | null; body: string }> = {};
      for (const path of ['/api/v1/content.json', '/api/content.json', '/llms.txt', '/openapi.json']) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(200);
        results[path] = { etag: response.headers.get('etag'), body: await response.text() };
      }
      return results;
    };
    const first = await served();
    const files = await site.snapshot();
    expect(JSON.parse(first['/api/v1/content.json']?.body ?? '').generated).toBe('2026-01-01T00:00:00Z');

    await build({ root: site.root, clock: () => new Date(BUILT.getTime() + HOUR) });
    expect(await site.snapshot()).toEqual(files);
    expect(await served()).toEqual(first);

    // 14:00 has come: the tip is published, and `generated` moves to its date.
    await build({ root: site.root, clock: () => new Date(BUILT.getTime() + 3 * HOUR) });
    const later = await served();
    const body = JSON.parse(later['/api/v1/content.json']?.body ?? '');
    expect(body.generated).toBe('2026-11-22T14:00:00Z');
    expect(body.content.map((i: { title: string }) => i.title)).toContain('Pronto');
    for (const path of ['/api/v1/content.json', '/api/content.json', '/llms.txt']) {
      expect(later[path]?.etag, path).not.toBe(first[path]?.etag);
    }
    expect(later['/api/content.json']?.etag).toBe(later['/api/v1/content.json']?.etag);
  });
});

describe('with a fixture v2 published and v1 deprecated', () => {
  let site: TempSite;
  let server: PagesDev;
  beforeAll(async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': V2_LIFECYCLE });
    await build({ root: site.root, clock: () => BUILT, serializers: WITH_V2 });
    server = await startProjectPagesDev(site.out, clockArgs(BUILT.toISOString()), site.root);
  });
  afterAll(async () => {
    await server?.stop();
    await site?.dispose();
  });

  it('v1 still answers 200 with the same shape, the three headers with exact values, and announces v2', async () => {
    const { response, body } = await get(server, '/api/v1/content.json');
    expect(response.status).toBe(200);
    expect(headersOf(response, DEPRECATION_HEADERS)).toEqual({
      deprecation: '@1793491200',
      sunset: 'Mon, 01 Nov 2027 00:00:00 GMT',
      link: `<${V2_URL}>; rel="successor-version", <https://example.com/docs/migrar-a-v2/>; rel="deprecation"; type="text/html"`,
    });
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(body.content.map((i: { url: string }) => i.url)).toEqual([
      'https://example.com/blog/hola/',
      'https://example.com/proyectos/motor/',
    ]);
    expect(body.versions).toEqual({
      current: 'v2',
      deprecation: {
        version: 'v1',
        successor: 'v2',
        successor_url: V2_URL,
        deprecated_at: '2026-11-01T00:00:00Z',
        sunset_at: SUNSET,
        documentation: 'https://example.com/docs/migrar-a-v2/',
      },
    });
  });

  it('sends a deprecated version’s file asked for with a trailing slash to the file (308), as while it was current', async () => {
    for (const path of ['/api/v1/content.json', '/api/v1/schema.json', '/api/v2/content.json']) {
      const slash = await fetch(`${server.url}${path}/`, { redirect: 'manual' });
      expect([slash.status, slash.headers.get('location')], path).toEqual([308, path]);
    }
    const query = await fetch(`${server.url}/api/v1/content.json/?x=1`, { redirect: 'manual' });
    expect([query.status, query.headers.get('location')]).toEqual([308, '/api/v1/content.json?x=1']);
    // A path that is no file stays a 404.
    expect((await fetch(`${server.url}/api/v1/nope.json/`, { redirect: 'manual' })).status).toBe(404);
  });

  it('v2 and the alias carry none of those headers and serve v2', async () => {
    const v2 = await get(server, '/api/v2/content.json');
    const alias = await get(server, '/api/content.json');
    for (const { response, body } of [v2, alias]) {
      expect(response.status).toBe(200);
      expect(headersOf(response, DEPRECATION_HEADERS)).toEqual({
        deprecation: null,
        sunset: null,
        link: null,
      });
      expect(body.versions).toEqual({ current: 'v2', deprecation: null });
      expect(body.items[0].urls).toEqual({
        es: 'https://example.com/blog/hola/',
        en: 'https://example.com/en/blog/hello/',
      });
    }
    expect(alias.body).toEqual(v2.body);
  });

  it.skipIf(!hasChromium)(
    'a page on another origin reads the deprecated version and its signals in Chromium, revalidating through the preflighted Function',
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        // The site's own home page, on another origin than the API: localhost vs 127.0.0.1.
        const api = server.url;
        await page.goto(api.replace('127.0.0.1', 'localhost'));
        const seen = await page.evaluate(async (api) => {
          const read = (response: Response, names: string[]) =>
            Object.fromEntries(names.map((n) => [n, response.headers.get(n)]));
          const v1 = await fetch(`${api}/api/v1/content.json`);
          const signals = read(v1, ['etag', 'deprecation', 'sunset', 'link']);
          const body = await v1.json();
          // A custom header makes this a preflighted request: the Function answers the preflight.
          const revalidated = await fetch(`${api}/api/v1/content.json`, {
            headers: { 'If-None-Match': signals.etag ?? '' },
          });
          // Static files: plain GETs, whose ETag a script may read too.
          const statics: Record<string, string | null> = {};
          for (const path of ['/api/v2/content.json', '/api/content.json', '/openapi.json', '/llms.txt']) {
            statics[path] = (await fetch(`${api}${path}`)).headers.get('etag');
          }
          // The MCP endpoint, with the JSON body that makes a POST preflighted.
          const mcp = await fetch(`${api}/mcp`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
          });
          return {
            origin: location.origin,
            signals,
            successor: body.versions.deprecation.successor,
            revalidated: revalidated.status,
            statics,
            mcp: mcp.status,
          };
        }, api);
        expect(seen.origin).not.toBe(api);
        expect(seen.signals).toEqual({
          etag: expect.stringMatching(/^"[0-9a-f]+"$/),
          deprecation: '@1793491200',
          sunset: 'Mon, 01 Nov 2027 00:00:00 GMT',
          link: `<${V2_URL}>; rel="successor-version", <https://example.com/docs/migrar-a-v2/>; rel="deprecation"; type="text/html"`,
        });
        expect(seen.successor).toBe('v2');
        expect(seen.revalidated).toBe(304);
        for (const [path, etag] of Object.entries(seen.statics)) expect(etag, path).toMatch(/^"[0-9a-f]+"$/);
        expect(seen.mcp).toBe(200);
      } finally {
        await browser.close();
      }
    },
  );

  it('both bodies validate against their own published schemas', async () => {
    const ajv = clientAjv();
    for (const version of ['v1', 'v2']) {
      const schema = (await get(server, `/api/${version}/schema.json`)).body;
      const { body } = await get(server, `/api/${version}/content.json`);
      expect(schema.$id).toBe(`https://example.com/api/${version}/schema.json`);
      expect(ajv.validate(schema, body), JSON.stringify(ajv.errors)).toBe(true);
    }
    // …and not against each other's: the versions really differ in shape.
    const v1Schema = (await get(server, '/api/v1/schema.json')).body;
    expect(clientAjv().validate(v1Schema, (await get(server, '/api/v2/content.json')).body)).toBe(false);
  });
});

describe('at the sunset instant, without a rebuild', () => {
  let site: TempSite;
  let server: PagesDev | undefined;
  let built: Record<string, string>;
  beforeAll(async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': V2_LIFECYCLE });
    await build({ root: site.root, clock: () => BUILT, serializers: WITH_V2 });
    built = await snapshotDir(site.out);
  });
  afterAll(async () => {
    await server?.stop();
    await site?.dispose();
  });

  it('one second before the sunset v1 still answers 200, cacheable for that second only', async () => {
    server = await startProjectPagesDev(site.out, clockArgs('2027-10-31T23:59:59Z'), site.root);
    const { response, body } = await get(server, '/api/v1/content.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('sunset')).toBe('Mon, 01 Nov 2027 00:00:00 GMT');
    expect(response.headers.get('cache-control')).toBe('public, max-age=1');
    expect(body.versions.deprecation.successor).toBe('v2');
    await server.stop();
    server = undefined;
  });

  it('from the sunset instant v1 answers 410 Gone with a problem body and the successor link', async () => {
    server = await startProjectPagesDev(site.out, clockArgs(SUNSET), site.root);
    expect(await snapshotDir(site.out)).toEqual(built); // the same files: no rebuild in between
    for (const path of ['/api/v1/content.json', '/api/v1/schema.json']) {
      const { response, body } = await get(server, path);
      expect(response.status, path).toBe(410);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(response.headers.get('link')).toBe(`<${V2_URL}>; rel="successor-version"`);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(body).toEqual({
        type: 'https://example.com/docs/#version-withdrawn',
        title: 'API version withdrawn',
        status: 410,
        detail: `Version v1 was withdrawn on ${SUNSET}. Use v2: ${V2_URL}`,
        instance: path,
        version: 'v1',
        withdrawn_at: SUNSET,
        current_version: 'v2',
        current_url: V2_URL,
      });
      expect(clientAjv().validate(problemSchema, body)).toBe(true);
    }
    const v2 = await get(server, '/api/v2/content.json');
    expect(v2.response.status).toBe(200);
  });
});

describe('a current version is served without invoking a Function', () => {
  let site: TempSite;
  let noRoutes: string;
  const servers: PagesDev[] = [];
  beforeAll(async () => {
    site = await tempSite(FILES);
    await build({ root: site.root, clock: () => BUILT });
    // Rewrite the manifest so that the Function, were it invoked for v1, would answer 410.
    const manifestPath = join(site.out, 'api/versions.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    manifest.versions[0].sunset_at = '2026-01-01T00:00:00Z';
    await writeFile(manifestPath, JSON.stringify(manifest));
    // The same files without the generated _routes.json: wrangler then routes all of /api/* to it.
    noRoutes = await mkdtemp(join(tmpdir(), 'content-index-no-routes-'));
    await cp(site.out, noRoutes, { recursive: true, dereference: true });
    await rm(join(noRoutes, '_routes.json'));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await site?.dispose();
    await rm(noRoutes, { recursive: true, force: true });
  });

  it('with the generated _routes.json, v1 and the alias come straight from the static files', async () => {
    const server = await startProjectPagesDev(site.out, clockArgs(BUILT.toISOString()), site.root);
    servers.push(server);
    for (const path of ['/api/v1/content.json', '/api/content.json']) {
      const { response, body } = await get(server, path);
      expect(response.status, path).toBe(200);
      expect(body.versions.deprecation).toBeNull();
    }
    // Functions do run on this server: an unknown version gets the Function's problem body.
    expect((await get(server, '/api/v9/content.json')).body.title).toBe('Unknown API version');
  });

  it('without it the Function would have answered v1 itself (410 from the rewritten manifest)', async () => {
    const server = await startProjectPagesDev(noRoutes, clockArgs(BUILT.toISOString()), site.root);
    servers.push(server);
    expect((await get(server, '/api/v1/content.json')).response.status).toBe(410);
  });
});
