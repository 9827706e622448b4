import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import type { build as Build } from '../../build/index.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const NOW = new Date('2026-06-01T00:00:00Z');

async function d1Files(root: string): Promise<Record<string, string>> {
  const dir = join(root, '.content-index/d1');
  const files: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) files[name] = await readFile(join(dir, name), 'utf8');
  return files;
}

// The worker that makes part of the D1 rows runs the bundled code (dist/, which `npm test` builds
// first): from the sources it cannot start, and the rows are made on the main thread alone.
it('makes the D1 rows on two threads, in the bundled build, as on one: the same import, byte for byte', async () => {
  const files: Record<string, string> = { 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` };
  for (let i = 0; i < 9; i++) {
    const date = `2025-0${1 + (i % 9)}-1${i}`;
    files[`content/posts/p${i}.es.md`] = md(
      { title: `Nota ${i}`, date, tags: ['ia'] },
      `Cuerpo ${i} con zanahorias.\n`,
    );
    if (i % 2 === 0)
      files[`content/posts/p${i}.en.md`] = md(
        { title: `Note ${i}`, date, slug: `note-${i}` },
        `Body ${i} with carrots.\n`,
      );
  }
  site = await tempSite(files, { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } });
  const { build } = (await import(pathToFileURL(join(PROJECT_ROOT, 'dist/index.js')).href)) as {
    build: typeof Build;
  };
  const root = site.root;
  const made = async (parallelThreshold: number) => {
    await rm(join(root, '.content-index'), { recursive: true, force: true });
    const result = await build({
      root,
      out: `out-${parallelThreshold}`,
      clock: () => NOW,
      cache: false,
      parallelThreshold,
    });
    return { d1: await d1Files(root), tree: await snapshotDir(result.outDir), backend: result.mcp?.backend };
  };
  const one = await made(Number.POSITIVE_INFINITY);
  const two = await made(1);
  expect(one.backend).toBe('d1');
  expect(Object.values(one.d1).join('')).toContain('zanahorias');
  expect(two).toEqual(one);
});

it('starts no D1 rows worker when every item keeps its rows: a build that sent it nothing waited for ever', async () => {
  const files: Record<string, string> = { 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` };
  for (let i = 0; i < 3; i++)
    files[`content/posts/p${i}.es.md`] = md({ title: `Nota ${i}`, date: `2025-01-1${i}` }, `Cuerpo ${i}.\n`);
  site = await tempSite(files, { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } });
  const { build } = (await import(pathToFileURL(join(PROJECT_ROOT, 'dist/index.js')).href)) as {
    build: typeof Build;
  };
  const root = site.root;
  const options = { root, clock: () => NOW, parallelThreshold: 0 };
  await build(options);
  const sql = await d1Files(root);
  // A save dev tells of, its file unchanged: the build runs, and every item's rows are kept.
  const again = await build({ ...options, changed: new Set([join(root, 'content/posts/p0.es.md')]) });
  expect(again.incremental.redone).toBe(0);
  expect(await d1Files(root)).toEqual(sql);
}, 60_000);
