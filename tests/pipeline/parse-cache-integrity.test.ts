import { createHash } from 'node:crypto';
import { readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { CACHE_DIR } from '../../build/stages/parse-cache.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// The parse cache (.content-index/cache/parse/) is read, never trusted: a shard damaged or edited since
// the build that wrote it is dropped and its files parsed again; what a build publishes is what the
// files say. A build that finds the items it kept (.content-index/cache/items/) reads no cache at all:
// the tests forget the items where they want a build to read every file through the cache.

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const FILES = {
  'content/posts/bien.es.md': md({ title: 'Bien', date: '2025-01-01' }),
  'content/posts/otro.es.md': md({ title: 'Otro', date: '2025-01-02' }),
};

/** Every shard file of the cache, with its text. */
async function shards(root: string): Promise<Map<string, string>> {
  const dir = join(root, CACHE_DIR, 'parse');
  const found = new Map<string, string>();
  for (const name of await readdir(dir)) found.set(join(dir, name), await readFile(join(dir, name), 'utf8'));
  return found;
}

/** Replaces `from` with `to` in the shard that holds it, as an editor (or a damaged disk) would. */
async function editCache(root: string, from: string, to: string): Promise<void> {
  const edited = [...(await shards(root))].filter(([, text]) => text.includes(from));
  expect(edited.length, `the cache holds ${from}`).toBe(1);
  for (const [file, text] of edited) await writeFile(file, text.replace(from, to));
}

/** The items the builds before kept: the next build reads every file through the parse cache. */
async function forgetItems(root: string): Promise<void> {
  await rm(join(root, CACHE_DIR, 'items'), { recursive: true, force: true });
}

/** `touch` of every content file: new times, the same bytes (a fresh checkout does as much). */
async function touchAll(root: string): Promise<void> {
  const later = new Date(Date.now() + 60_000);
  for (const name of Object.keys(FILES)) await utimes(join(root, name), later, later);
}

const titles = async (s: TempSite) =>
  (await s.readJson<ContentIndexV1>('api/v1/content.json')).content.map((item) => item.title).sort();

it('drops a damaged shard row (data: null) instead of failing with an internal error', async () => {
  site = await tempSite(FILES);
  expect((await site.cli('build')).code).toBe(0);
  await editCache(site.root, '{"title":"Bien","date":"2025-01-01"}', 'null');
  await forgetItems(site.root);
  const result = await site.cli('build');
  expect(result.stderr).not.toContain('internal error');
  expect(result.code, result.stderr).toBe(0);
  expect(await titles(site)).toEqual(['Bien', 'Otro']);
});

it('publishes what the files say, not a value edited into the cache, when every file was touched', async () => {
  site = await tempSite(FILES);
  expect((await site.cli('build')).code).toBe(0);
  await editCache(site.root, '"title":"Bien"', '"title":"Falso"');
  await touchAll(site.root);
  await forgetItems(site.root);
  expect((await site.cli('build')).code).toBe(0);
  expect(await titles(site)).toEqual(['Bien', 'Otro']);
  // Unchanged files too: the edited shard is not read at all.
  await editCache(site.root, '"title":"Bien"', '"title":"Falso"');
  await forgetItems(site.root);
  expect((await site.cli('build')).code).toBe(0);
  expect(await titles(site)).toEqual(['Bien', 'Otro']);
});

it('drops a row that is not what the cache writes even in a shard whose seal holds (a bug, not an edit)', async () => {
  site = await tempSite(FILES);
  expect((await site.cli('build')).code).toBe(0);
  // Resealed as the cache seals a shard (identity, hash of the rows, rows): only the row check stands.
  const [file, text] = [...(await shards(site.root))].find(([, t]) => t.includes('"title":"Bien"')) ?? [];
  const [identity, , rows = ''] = (text ?? '').split('\n');
  const damaged = rows.replace('{"title":"Bien","date":"2025-01-01"}', 'null');
  const seal = createHash('sha256').update(Buffer.from(damaged)).digest('base64url');
  await writeFile(file ?? '', `${identity}\n${seal}\n${damaged}`);
  await forgetItems(site.root);
  const result = await site.cli('build');
  expect(result.code, result.stderr).toBe(0);
  expect(await titles(site)).toEqual(['Bien', 'Otro']);
  // The shard was written again without it.
  expect([...(await shards(site.root)).values()].join('')).toContain('{"title":"Bien","date":"2025-01-01"}');
});
