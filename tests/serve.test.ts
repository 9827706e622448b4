import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { build } from '../build/index.ts';
import { type PagesDev, startPagesDev } from './helpers/pages-dev.ts';
import { PROJECT_ROOT } from './helpers/site.ts';

let out: string;
let server: PagesDev;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'content-index-serve-'));
  await build({ root: PROJECT_ROOT, out });
  server = await startPagesDev(out);
});
afterAll(async () => {
  await server?.stop();
  await rm(out, { recursive: true, force: true });
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

it('serves the renderer script the docs page loads, as JavaScript', async () => {
  const response = await fetch(`${server.url}/docs/redoc.standalone.js`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/javascript/);
});
