import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LAYOUT } from '../../build/core/config/site-config.ts';
import { isContentIndexError } from '../../build/core/errors.ts';
import { readSources, readUnreadBodies } from '../../build/stages/load.ts';
import { CACHE_DIR, ParseCache, RACY_MS, type Stamp } from '../../build/stages/parse-cache.ts';
import { parseFiles } from '../../build/stages/parse-files.ts';
import { RowSpool } from '../../build/stages/row-spool.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-parse-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const titleOf = (outcome: unknown) => (outcome as { data?: { title: string } }).data?.title;
const MAX = 1e6;

async function file(name: string, content: string) {
  const absolute = join(dir, name);
  await writeFile(absolute, content);
  return { path: name, absolute };
}

/** A file system whose times lie: every file has this stamp, whatever is written to it. */
const frozen = (stamp: Stamp) => () => stamp;
const STAMP: Stamp = { size: 19, mtimeMs: 1_000_000, ctimeMs: 1_000_000, ino: 7 };

const bodyOf = (outcome: unknown) => (outcome as { body?: string }).body;

describe('parseFiles with bodies (MCP search)', () => {
  it('reads each body reduced to its words, and keeps it: an unchanged file is not read again', async () => {
    const task = await file(
      'a.es.md',
      '---\ntitle: Uno\n---\n# Arranque\n\nEl **bootloader** carga el [núcleo](/k).\n',
    );
    const cache = new ParseCache(undefined, { stat: frozen(STAMP), now: () => 5_000_000, bodies: true });
    const [first] = await parseFiles([task], { maxFileBytes: MAX, cache, bodies: true });
    expect(bodyOf(first)).toBe('Arranque El bootloader carga el núcleo.');
    // The same stamp: the outcome, body included, comes from the cache, whatever the file says now.
    await writeFile(task.absolute, '---\ntitle: Uno\n---\nOtro texto.\n');
    const [again] = await parseFiles([task], { maxFileBytes: MAX, cache, bodies: true });
    expect(bodyOf(again)).toBe('Arranque El bootloader carga el núcleo.');
  });

  it('reads a file again when only its body changed: the hash is of the whole file', async () => {
    const task = await file('a.es.md', '---\ntitle: Uno\n---\nPrimero.\n');
    let stamp = STAMP;
    const cache = new ParseCache(undefined, { stat: () => stamp, now: () => 5_000_000, bodies: true });
    await parseFiles([task], { maxFileBytes: MAX, cache, bodies: true });
    await writeFile(task.absolute, '---\ntitle: Uno\n---\nSegundo.\n');
    stamp = { ...STAMP, mtimeMs: STAMP.mtimeMs + 1 };
    const [changed] = await parseFiles([task], { maxFileBytes: MAX, cache, bodies: true });
    expect(bodyOf(changed)).toBe('Segundo.');
  });

  it('reads no body without bodies, and a cache of heads does not serve a build that wants bodies', async () => {
    const task = await file('a.es.md', '---\ntitle: Uno\n---\nTexto.\n');
    const cache = new ParseCache(undefined, { stat: frozen(STAMP), now: () => 5_000_000 });
    const [head] = await parseFiles([task], { maxFileBytes: MAX, cache });
    expect(bodyOf(head)).toBeUndefined();
    expect(cache.size).toBe(1);
    const [whole] = await parseFiles([task], { maxFileBytes: MAX, cache, bodies: true });
    expect(bodyOf(whole)).toBe('Texto.');
  });
  it('keeps no body text on disk: a cache read back reads a body from its file only when it is asked for', async () => {
    const task = await file('a.es.md', '---\ntitle: Uno\n---\nEl bootloader carga el núcleo.\n');
    const empty = await file('b.es.md', '---\ntitle: Dos\n---\n');
    const options = { maxFileBytes: MAX, stat: frozen(STAMP), now: () => 5_000_000, bodies: true };
    const first = ParseCache.open(dir, options);
    await parseFiles([task, empty], { maxFileBytes: MAX, cache: first, bodies: true });
    await first.save();
    const shards = join(dir, CACHE_DIR, 'parse');
    const kept = await Promise.all(
      (await readdir(shards)).map((name) => readFile(join(shards, name), 'utf8')),
    );
    expect(kept.join('')).toContain('Uno');
    expect(kept.join('')).not.toContain('bootloader');

    // Read back by the next process: the same stamps, so no file is read to answer.
    const next = ParseCache.open(dir, options);
    const [hit, bare] = await parseFiles([task, empty], { maxFileBytes: MAX, cache: next, bodies: true });
    const lazy = hit as { body?: string; bodyOf?: () => string };
    expect(lazy.body).toBeUndefined();
    expect(bodyOf(bare)).toBeUndefined();
    expect((bare as { bodyOf?: unknown }).bodyOf).toBeUndefined();
    // Asked for, the body is the file's, read then (and kept).
    expect(lazy.bodyOf?.()).toBe('El bootloader carga el núcleo.');
    expect(lazy.body).toBe('El bootloader carga el núcleo.');

    // A file with a known text under another name (a rename): read and hashed, its body read when asked.
    const moved = await file('c.es.md', '---\ntitle: Uno\n---\nEl bootloader carga el núcleo.\n');
    const [renamed] = await parseFiles([moved], {
      maxFileBytes: MAX,
      cache: ParseCache.open(dir, options),
      bodies: true,
    });
    expect(titleOf(renamed)).toBe('Uno');
    expect(bodyOf(renamed)).toBeUndefined();
    await writeFile(moved.absolute, '---\ntitle: Uno\n---\nOtro texto.\n');
    expect((renamed as { bodyOf?: () => string }).bodyOf?.()).toBe('Otro texto.');
  });
});

describe('parseFiles on two threads', () => {
  it('shares the files between the threads as it goes, and puts every outcome in its place', async () => {
    const tasks = [];
    for (let i = 0; i < 1500; i++) {
      const text =
        i % 97 === 0 ? '---\ntitle: [roto\n---\n' : `---\ntitle: Post ${i}\n---\nCuerpo **${i}**.\n`;
      tasks.push(await file(`p${String(i).padStart(4, '0')}.es.md`, text));
    }
    const alone = await parseFiles(tasks, { maxFileBytes: MAX, bodies: true });
    // What the worker is handed: a fixed share gave it the last 45 % in one go, answered in one message
    // while the main thread waited, whichever thread was faster.
    const batches: number[] = [];
    const post = Worker.prototype.postMessage;
    const spy = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (
      this: Worker,
      value,
      list,
    ) {
      if (Array.isArray(value)) batches.push(value.length);
      return post.call(this, value, list);
    });
    try {
      const shared = await parseFiles(tasks, { maxFileBytes: MAX, bodies: true, parallelThreshold: 2 });
      expect(shared).toEqual(alone);
    } finally {
      spy.mockRestore();
    }
    expect(alone.map(titleOf).slice(1, 4)).toEqual(['Post 1', 'Post 2', 'Post 3']);
    expect(alone.filter((outcome) => 'code' in outcome)).toHaveLength(16);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...batches)).toBeLessThanOrEqual(256);
    expect(batches.reduce((a, b) => a + b, 0)).toBeLessThan(tasks.length);
  });
});

describe("the kept files' bodies, read when their entries changed", () => {
  const post = async (name: string, body: string) => {
    const task = await file(`${name}.es.md`, `---\ntitle: ${name}\n---\n${body}\n`);
    return { ...task, location: { type: 'post' as const, name, dir: '', lang: 'es' as const } };
  };
  const options = { maxFileBytes: MAX, stat: frozen(STAMP), now: () => 5_000_000, bodies: true };
  const kept = async (tasks: Awaited<ReturnType<typeof post>>[]) => {
    const first = ParseCache.open(dir, options);
    await readSources(tasks, { layout: DEFAULT_LAYOUT, maxFileBytes: MAX, bodies: true, cache: first });
    await first.save();
    // The next process: the same stamps, every outcome from the cache, no body read yet.
    const cache = ParseCache.open(dir, options);
    const read = await readSources(tasks, { layout: DEFAULT_LAYOUT, maxFileBytes: MAX, bodies: true, cache });
    return { cache, files: read.files, hashes: read.hashes };
  };

  it('reads them all at once, on both threads, each under the hash its file had', async () => {
    const tasks = await Promise.all(['a', 'b', 'c'].map((name) => post(name, `Cuerpo de ${name}.`)));
    const { files, hashes } = await kept(tasks);
    expect(files.map((f) => f.bodyKey)).toEqual(tasks.map((t) => hashes.get(t.path)));
    const done = await readUnreadBodies(files, { maxFileBytes: MAX, parallelThreshold: 2 });
    expect(done.read).toBe(3);
    expect(done.moved.size).toBe(0);
    // Read: the files' later text is no longer what they answer.
    for (const task of tasks) await writeFile(task.absolute, '---\ntitle: x\n---\nOtro.\n');
    expect(files.map((f) => f.body)).toEqual(['Cuerpo de a.', 'Cuerpo de b.', 'Cuerpo de c.']);
  });

  it('puts them in the spool as they come in when they are many, and gives them from there', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const tasks = await Promise.all(names.map((name) => post(name, `Cuerpo de ${name}, con ñandúes.`)));
    const { files } = await kept(tasks);
    const spool = RowSpool.open(join(dir, 'spool'), 'bodies') as RowSpool;
    const spooling = { spool: () => spool, from: 3, spooled: 0 };
    const done = await readUnreadBodies(files, { maxFileBytes: MAX, parallelThreshold: 2, spooling });
    expect(done.read).toBe(5);
    expect(spooling.spooled).toBe(5);
    // In the spool, they are not read again (a dev session's next change of configuration).
    expect((await readUnreadBodies(files, { maxFileBytes: MAX, spooling })).read).toBe(0);
    // Given from the spool, not from the files, whose later text is no longer what they answer.
    const [edited] = tasks;
    await writeFile(edited?.absolute as string, '---\ntitle: x\n---\nOtro.\n');
    expect(files.map((f) => f.body)).toEqual(names.map((name) => `Cuerpo de ${name}, con ñandúes.`));
    // The spool closed (its store dropped): read again, each by its hash, an edited file told apart.
    const keyBefore = files[0]?.bodyKey;
    spool.close();
    const reread = await readUnreadBodies(files, { maxFileBytes: MAX });
    expect(reread.read).toBe(5);
    expect([...reread.moved]).toEqual([files[0]]);
    expect(files[0]?.body).toBe('Otro.');
    expect(files[0]?.bodyKey).not.toBe(keyBefore);
    expect(files.slice(1).map((f) => f.body)).toEqual(
      names.slice(1).map((name) => `Cuerpo de ${name}, con ñandúes.`),
    );
    // Fewer than `from`: held, not spooled.
    const few = { spool: () => RowSpool.open(join(dir, 'spool'), 'bodies'), from: 6, spooled: 0 };
    const again = await kept(await Promise.all(names.map((name) => post(name, `Otro ${name}.`))));
    await readUnreadBodies(again.files, { maxFileBytes: MAX, spooling: few });
    expect(few.spooled).toBe(0);
    expect(again.files.map((f) => f.body)).toEqual(names.map((name) => `Otro ${name}.`));
  });

  it('keys a body read from a file edited since it was hashed by what was read, and never gives it for the old text', async () => {
    const [a, b] = [await post('a', 'Primero.'), await post('b', 'Segundo.')];
    const { cache, files, hashes } = await kept([a, b]);
    const before = hashes.get(a.path) as string;
    // Edited while the build runs, after its stamp and hash were taken.
    await writeFile(a.absolute, '---\ntitle: a\n---\nEditado.\n');
    const done = await readUnreadBodies(files, { maxFileBytes: MAX });
    const [fileA] = files;
    expect([...done.moved]).toEqual([fileA]);
    expect(fileA?.body).toBe('Editado.');
    expect(fileA?.bodyKey).not.toBe(before);
    // The cache's outcome for the old text is not given the edited body: read again, from a file that
    // holds the old text once more (an undo), it is that text's.
    await writeFile(a.absolute, '---\ntitle: a\n---\nPrimero.\n');
    const again = cache.outcomeOf(before, a.absolute, MAX) as { body?: string; bodyOf?: () => string };
    expect(again.body ?? again.bodyOf?.()).toBe('Primero.');
  });

  it('fails the build, naming the file, when a kept file is gone when its body is read', async () => {
    const [a, b] = [await post('a', 'Primero.'), await post('b', 'Segundo.')];
    const { files } = await kept([a, b]);
    await rm(b.absolute);
    const failed = await readUnreadBodies(files, { maxFileBytes: MAX }).catch((error: unknown) => error);
    expect(isContentIndexError(failed) && failed.problems.map((p) => [p.code, p.file])).toEqual([
      ['source_gone', 'b.es.md'],
    ]);
  });
});

describe('parseFiles with a parse cache', () => {
  it('answers from the cache while a file keeps its stamp, and reads it again when the stamp changes', async () => {
    const task = await file('a.es.md', '---\ntitle: Uno\n---\n');
    let stamp = STAMP;
    const cache = new ParseCache(undefined, { stat: () => stamp, now: () => 5_000_000 });
    expect(titleOf((await parseFiles([task], { maxFileBytes: MAX, cache }))[0])).toBe('Uno');

    // The stamp is all the cache looks at for a file last changed long before it was read.
    await writeFile(task.absolute, '---\ntitle: Dos\n---\n');
    expect(titleOf((await parseFiles([task], { maxFileBytes: MAX, cache }))[0])).toBe('Uno');

    for (const change of [{ ctimeMs: 1_000_001 }, { mtimeMs: 1_000_001 }, { ino: 8 }, { size: 20 }]) {
      await writeFile(task.absolute, `---\ntitle: ${JSON.stringify(JSON.stringify(change))}\n---\n`);
      stamp = { ...STAMP, ...change };
      expect(titleOf((await parseFiles([task], { maxFileBytes: MAX, cache }))[0])).toBe(
        JSON.stringify(change),
      );
    }
  });

  it('checks a file changed within RACY_MS of its reading by its content: a coarse clock cannot hide an edit', async () => {
    const task = await file('a.es.md', '---\ntitle: Uno\n---\n');
    // The file was written in the same tick it was read in, and the file system keeps that stamp.
    let now = STAMP.mtimeMs + 10;
    const cache = new ParseCache(undefined, { stat: frozen(STAMP), now: () => now });
    expect(titleOf((await parseFiles([task], { maxFileBytes: MAX, cache }))[0])).toBe('Uno');
    await writeFile(task.absolute, '---\ntitle: Dos\n---\n');
    now = STAMP.mtimeMs + RACY_MS + 10;
    expect(titleOf((await parseFiles([task], { maxFileBytes: MAX, cache }))[0])).toBe('Dos');
    // Read long after its last change, the stamp is trusted from then on.
    await writeFile(task.absolute, '---\ntitle: Tres\n---\n');
    expect(titleOf((await parseFiles([task], { maxFileBytes: MAX, cache }))[0])).toBe('Dos');
  });

  it('reuses the parse of a known front matter under new stamps or another name (a checkout, a rename)', async () => {
    const a = await file('a.es.md', '---\ntitle: Uno\ntags: [x]\n---\nCuerpo\n');
    const cache = new ParseCache(undefined, { now: () => Date.now() + 60_000 });
    const [first] = await parseFiles([a], { maxFileBytes: MAX, cache });
    const b = await file('b.es.md', '---\ntitle: Uno\ntags: [x]\n---\nOtro cuerpo, más largo\n');
    const [again] = await parseFiles([b], { maxFileBytes: MAX, cache });
    expect(again).toBe(first); // the same outcome object: read, hashed, not parsed again
    expect(cache.size).toBe(1); // a.es.md is no longer listed
  });

  it('keeps TOML and JSON front matter too (TOML tables have no prototype; JSON gives them one)', async () => {
    const toml = await file('t.es.md', "+++\ntitle = 'Uno'\n[params]\nx = 1\n+++\n");
    const json = await file('j.es.md', '{ "title": "Dos", "params": { "x": [1, "a"] } }\n');
    const cache = new ParseCache(undefined, { now: () => Date.now() + 60_000 });
    const first = await parseFiles([toml, json], { maxFileBytes: MAX, cache });
    expect(cache.size).toBe(2);
    expect(JSON.parse(JSON.stringify(first))).toEqual(
      JSON.parse(JSON.stringify(await parseFiles([toml, json], { maxFileBytes: MAX, cache }))),
    );
  });

  it('keeps no failure and no value JSON cannot hold, and reads those files every time', async () => {
    const bad = await file('bad.es.md', '---\ntitle: [Uno\n---\n');
    const nan = await file('nan.es.md', '---\ntitle: Uno\nweight: .nan\n---\n');
    const ok = await file('ok.es.md', '---\ntitle: Uno\n---\n');
    const cache = new ParseCache(undefined, { now: () => Date.now() + 60_000 });
    const [problem, notANumber] = await parseFiles([bad, nan, ok], { maxFileBytes: MAX, cache });
    expect(problem).toMatchObject({ code: 'yaml_invalid', file: 'bad.es.md' });
    expect((notANumber as { data: { weight: number } }).data.weight).toBeNaN();
    expect(cache.size).toBe(1);
    await writeFile(bad.absolute, '---\ntitle: Uno\n---\n');
    expect(titleOf((await parseFiles([bad], { maxFileBytes: MAX, cache }))[0])).toBe('Uno');
  });

  it('is written to .content-index/cache and read back by the next process; another identity or a damaged shard is ignored', async () => {
    const task = await file('a.es.md', '---\ntitle: Uno\n---\n');
    const later = () => Date.now() + 60_000;
    const first = ParseCache.open(dir, { maxFileBytes: MAX, now: later });
    await parseFiles([task], { maxFileBytes: MAX, cache: first });
    await first.save();
    const shards = join(dir, CACHE_DIR, 'parse');
    const [shard] = await readdir(shards);
    const cacheFile = join(shards, shard ?? '');
    expect((await readFile(cacheFile, 'utf8')).split('\n')[0]).toMatch(/^6:/);

    expect(ParseCache.open(dir, { maxFileBytes: MAX }).size).toBe(1);
    expect(ParseCache.open(dir, { maxFileBytes: MAX, identity: 'another parser' }).size).toBe(0);
    expect(ParseCache.open(dir, { maxFileBytes: 2 * MAX }).size).toBe(0); // the size limit changes outcomes
    const text = await readFile(cacheFile, 'utf8');
    await writeFile(cacheFile, text.slice(0, text.length / 2));
    expect(ParseCache.open(dir, { maxFileBytes: MAX }).size).toBe(0);
    await writeFile(cacheFile, `${text.split('\n')[0]}\n[["a.es.md", "not a size"]]`);
    const damaged = ParseCache.open(dir, { maxFileBytes: MAX, now: later });
    expect(damaged.size).toBe(0);
    // The next build writes the damaged shard again.
    await parseFiles([task], { maxFileBytes: MAX, cache: damaged });
    await damaged.save();
    expect(ParseCache.open(dir, { maxFileBytes: MAX }).size).toBe(1);
  });

  it('writes only the shards whose files changed, and nothing when no file changed', async () => {
    await mkdir(join(dir, 'c'));
    const tasks = await Promise.all(
      Array.from({ length: 40 }, (_, i) => file(`c/${i}.es.md`, `---\ntitle: T${i}\n---\n`)),
    );
    const options = { maxFileBytes: MAX, now: () => Date.now() + 60_000 };
    const cache = ParseCache.open(dir, options);
    await parseFiles(tasks, { maxFileBytes: MAX, cache });
    await cache.save();
    const shards = join(dir, CACHE_DIR, 'parse');
    const names = await readdir(shards);
    expect(names.length).toBeGreaterThan(5);
    // Dated in the past, so that a rewrite shows (a shard's bytes are sealed: marking them would damage it).
    const past = new Date('2020-01-01T00:00:00Z');
    for (const name of names) await utimes(join(shards, name), past, past);
    const marked = async () =>
      (
        await Promise.all(names.map(async (n) => (await stat(join(shards, n))).mtimeMs === past.getTime()))
      ).filter(Boolean).length;
    const next = ParseCache.open(dir, options);
    await parseFiles(tasks, { maxFileBytes: MAX, cache: next });
    await next.save();
    expect(await marked()).toBe(names.length);
    await writeFile(tasks[7]?.absolute ?? '', '---\ntitle: Siete\n---\n');
    await parseFiles(tasks, { maxFileBytes: MAX, cache: next });
    await next.save();
    expect(await marked()).toBe(names.length - 1);
  });
});
