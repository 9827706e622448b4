import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startPagesDev } from './pages-dev.ts';

// Two starts given the same free port: the second one's wrangler fails on "Address already in use",
// while the first one's server answers any probe. The helper must not take that server for its own
// (live-check.test.ts once ran its checks against another test's site so).
describe('startPagesDev', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('does not take another server answering on its port for its own wrangler', async () => {
    const port = await freePort();
    const other: Server = createServer((_, response) => response.end('another site'));
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => other.close(resolve)));
    const dir = await mkdtemp(join(tmpdir(), 'content-index-pages-dev-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>This site</title>');

    await expect(startPagesDev(dir, [], dir, undefined, { port })).rejects.toThrow(/Address already in use/);
  });

  it('serves its own site on a port of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'content-index-pages-dev-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>This site</title>');
    const server = await startPagesDev(dir, [], dir);
    cleanups.push(() => server.stop());
    expect(await (await fetch(`${server.url}/`)).text()).toContain('<title>This site</title>');
  });
});
