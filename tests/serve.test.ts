import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { check } from '../build/index.ts';
import { clientAjv } from './helpers/ajv.ts';
import { type PagesDev, startPagesDev } from './helpers/pages-dev.ts';
import { GENERATED, type SampleProject, sampleProject } from './helpers/project.ts';

let project: SampleProject;
let out: string;
let server: PagesDev;

beforeAll(async () => {
  project = await sampleProject();
  out = project.out;
  // The site's own not-found page: Pages answers unknown static paths with it.
  await writeFile(join(out, '404.html'), '<!doctype html><title>No existe</title>');
  server = await startPagesDev(out, [], project.root);
});
afterAll(async () => {
  await server?.stop();
  await project?.dispose();
});

it('serves the versioned index and the alias with the same JSON body through workerd', async () => {
  const versioned = await fetch(`${server.url}/api/v1/content.json`);
  const alias = await fetch(`${server.url}/api/content.json`);
  for (const response of [versioned, alias]) {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  }
  const body = await versioned.text();
  expect(await alias.text()).toBe(body);
  expect(JSON.parse(body).content.length).toBeGreaterThanOrEqual(16);
  expect(alias.headers.get('etag')).toBe(versioned.headers.get('etag'));
});

it('serves the published JSON Schema', async () => {
  const response = await fetch(`${server.url}/api/v1/schema.json`);
  expect(response.status).toBe(200);
  expect((await response.json()).title).toBe('ContentIndex');
});

// The discovery documents, from the same server: one workerd start for the whole sample site.
it.each([
  ['/openapi.json', /^application\/json/, 'openapi.json'],
  ['/.well-known/ai-plugin.json', /^application\/json/, '.well-known/ai-plugin.json'],
  ['/llms.txt', /^text\/plain; charset=utf-8$/i, 'llms.txt'],
  ['/en/llms.txt', /^text\/plain; charset=utf-8$/i, 'en/llms.txt'],
  ['/pt-br/llms.txt', /^text\/plain; charset=utf-8$/i, 'pt-br/llms.txt'],
  ['/docs/', /^text\/html/, 'docs/index.html'],
])('serves %s through workerd with its Content-Type, open to any origin', async (path, type, file) => {
  const response = await fetch(`${server.url}${path}`, { headers: { Origin: 'https://agent.example' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(type);
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(await response.text()).toBe(await readFile(join(out, file), 'utf8'));
});

it('sends the address of every file the build writes, asked for with a trailing slash, to the file (308), never a 502', async () => {
  // wrangler pages dev answered `/openapi.json/` with 502 ENOTDIR (it looked for a folder of that name);
  // Pages would answer its not-found page. The build's own files, API ones included:
  const { files } = await check({ root: project.root, clock: () => GENERATED });
  const served = files
    .map((f) => f.path)
    .filter((p) => !['_headers', '_redirects', '_routes.json'].includes(p));
  expect(served).toEqual(
    expect.arrayContaining(['openapi.json', 'llms.txt', 'docs/redoc.standalone.js', 'index.html']),
  );
  for (const path of served) {
    const slashed = await fetch(`${server.url}/${path}/`, { redirect: 'manual' });
    const target = path.endsWith('index.html') ? `/${path.slice(0, -'index.html'.length)}` : `/${path}`;
    expect([slashed.status, slashed.headers.get('location')], path).toEqual([308, target]);
    const followed = await fetch(`${server.url}/${path}/`);
    expect(followed.status, path).toBe(200);
    if (!path.endsWith('.html'))
      expect(await followed.text(), path).toBe(await readFile(join(out, path), 'utf8'));
  }
});

it('serves the landing page at / (the sample site asks for one), and every address it links answers', async () => {
  const response = await fetch(`${server.url}/`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await response.text();
  expect(html).toBe(await readFile(join(out, 'index.html'), 'utf8'));
  const links = [...html.matchAll(/href="\.\/([^"]*)"/g)].map((m) => m[1] ?? '');
  expect(links).toEqual(
    expect.arrayContaining(['api/content.json', 'docs/', 'mcp', 'llms.txt', 'en/llms.txt']),
  );
  for (const link of links) expect((await fetch(`${server.url}/${link}`)).status, link).toBe(200);
});

it('serves the renderer script the docs page loads, as JavaScript', async () => {
  const response = await fetch(`${server.url}/docs/redoc.standalone.js`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/javascript/);
});

it('answers an unknown path under /api/ with a JSON 404 on a site with its own 404.html, which other paths get', async () => {
  const page = await fetch(`${server.url}/no-existe/`);
  expect([page.status, await page.text()]).toEqual([404, '<!doctype html><title>No existe</title>']);
  for (const path of ['/api/v1/nope.json', '/api/nope']) {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status, path).toBe(404);
    expect(response.headers.get('content-type'), path).toBe('application/problem+json; charset=utf-8');
    expect((await response.json()).current_version, path).toBe('v1');
  }
});

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read as plain JSON
type Json = any;

it('every path /openapi.json describes answers 200 with the declared media type and a body its schema accepts', async () => {
  const doc: Json = await (await fetch(`${server.url}/openapi.json`)).json();
  const ajv = clientAjv();
  ajv.addSchema(doc, 'urn:test:openapi');
  const checked: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const [media, { schema }] = Object.entries(item.get.responses['200'].content)[0] as [string, Json];
    const response = await fetch(`${server.url}${path}`);
    expect(response.status, path).toBe(200);
    expect(response.headers.get('content-type'), path).toMatch(
      new RegExp(`^${media.replace(/[+.]/g, '\\$&')}\\b`),
    );
    const text = await response.text();
    if (media === 'text/plain') continue;
    const pointer = ['paths', path, 'get', 'responses', '200', 'content', media, 'schema']
      .map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const validate = ajv.compile({ $ref: `urn:test:openapi#/${pointer}` });
    expect(validate(JSON.parse(text)), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(schema.$ref, path).toMatch(/^#\/components\/schemas\//);
    checked.push(path);
  }
  expect(checked).toEqual(
    expect.arrayContaining(['/mcp', '/mcp/server-card', '/api/versions.json', '/api/v1/schema.json']),
  );
  // …and every JSON file the build publishes is described.
  const published = (await readdir(out, { recursive: true }))
    .map((file) => `/${file.split('\\').join('/')}`)
    .filter((file) => file.endsWith('.json') && !file.startsWith('/mcp/') && file !== '/_routes.json');
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(published));
});
