import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type ParseCache, parseFiles } from '../../build/stages/parse-files.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-parse-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const titleOf = (outcome: unknown) => (outcome as { data?: { title: string } }).data?.title;

it('reuses the outcome of a file whose size and mtime are unchanged, and re-reads one that changed', async () => {
  const file = join(dir, 'a.es.md');
  await writeFile(file, '---\ntitle: Uno\n---\n');
  const mtime = new Date('2026-01-01T00:00:00Z');
  await utimes(file, mtime, mtime);
  const tasks = [{ path: 'a.es.md', absolute: file }];
  const cache: ParseCache = new Map();
  expect(titleOf((await parseFiles(tasks, { maxFileBytes: 1e6, cache }))[0])).toBe('Uno');

  // Same size, same mtime: the cache answers (this is what makes a dev rebuild read one file, not all).
  await writeFile(file, '---\ntitle: Dos\n---\n');
  await utimes(file, mtime, mtime);
  expect(titleOf((await parseFiles(tasks, { maxFileBytes: 1e6, cache }))[0])).toBe('Uno');

  await utimes(file, mtime, new Date(mtime.getTime() + 1000));
  expect(titleOf((await parseFiles(tasks, { maxFileBytes: 1e6, cache }))[0])).toBe('Dos');

  await parseFiles([], { maxFileBytes: 1e6, cache });
  expect(cache.size).toBe(0); // deleted files drop out
});
