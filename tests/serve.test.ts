import { mkdtemp, rm } from 'node:fs/promises';
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
