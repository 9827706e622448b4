import { execFile } from 'node:child_process';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isContentIndexError } from '../../build/core/errors.ts';
import { type BuildOptions, type BuildResult, build } from '../../build/index.ts';
import { FragmentStore, STORE_DIR } from '../../build/stages/fragment-store.ts';
import { sourcesUnchanged } from '../../build/stages/items.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../../build/stages/load.ts';
import { CACHE_DIR, ParseCache } from '../../build/stages/parse-cache.ts';
import { bytesOf } from '../../build/stages/stored-bytes.ts';
import { d1ImportSql } from '../helpers/d1.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const NOW = new Date('2026-06-01T00:00:00Z');

/** YAML, TOML and JSON front matter, a translation, a draft. */
const FILES = {
  'content/posts/uno.es.md': md({
    title: 'Uno',
    description: 'El primero',
    date: '2025-01-10',
    tags: ['ia'],
  }),
  'content/posts/uno.en.md': md({ title: 'One', description: 'The first', date: '2025-01-10', slug: 'one' }),
  'content/posts/dos.es.md': md({ title: 'Dos', date: '2025-02-01' }),
  'content/projects/tres.es.md': [
    '+++',
    "title = 'Tres'",
    'date = 2025-03-01',
    "technologies = ['Rust', 'Go']",
    '+++',
    'Cuerpo.',
    '',
  ].join('\n'),
  'content/tips/cuatro.es.md': '{\n  "title": "Cuatro",\n  "date": "2025-04-01"\n}\nCuerpo.\n',
  // `true ` and `false` have the same length: the toggle below keeps the file's size.
  'content/posts/borrador.es.md': md('title: "Borrador"\ndate: "2025-05-01"\ndraft: true '),
};

type Outcome = { ok: true; tree: Record<string, string>; mcp: string[] } | { ok: false; problems: string[] };

async function outcome(options: BuildOptions, seen?: (result: BuildResult) => void): Promise<Outcome> {
  let result: BuildResult;
  try {
    result = await build({ clock: () => NOW, ...options });
    seen?.(result);
  } catch (error) {
    if (!isContentIndexError(error)) throw error;
    return { ok: false, problems: error.problems.map((p) => JSON.stringify(p)) };
  }
  return {
    ok: true,
    tree: await snapshotDir(result.outDir),
    mcp: await Promise.all(
      (result.mcp?.files ?? []).map(async (f) => {
        // A D1 file a build before wrote, which this one found there and did not make again.
        if (f.named?.kept) return `${f.path}\n${await readFile(join(options.root ?? '', f.path), 'utf8')}`;
        const text =
          typeof f.content === 'string' ? f.content : Buffer.concat(f.content.map(bytesOf)).toString('utf8');
        return `${f.path}\n${text}`;
      }),
    ),
  };
}

/**
 * The cached build (into public/, reading and writing .content-index/cache) and a cold one (into
 * cold/, no cache at all) of the same sources: every byte of their outputs, or every problem, the same.
 */
async function expectSameAsCold(
  s: TempSite,
  cached: () => BuildOptions,
  seen?: (result: BuildResult) => void,
): Promise<Outcome> {
  const warm = await outcome({ root: s.root, ...cached() }, seen);
  const cold = await outcome({ root: s.root, out: 'cold', cache: false });
  expect(warm).toEqual(cold);
  return warm;
}

/** Rewrites a file in place and sets its times back as they were with `touch -r` (to the nanosecond). */
async function editKeepingTimes(path: string, edit: (text: string) => string): Promise<void> {
  const before = await stat(path);
  const reference = `${path}.times`;
  await run('touch', ['-r', path, reference]);
  await writeFile(path, edit(await readFile(path, 'utf8')));
  await run('touch', ['-r', reference, path]);
  await rm(reference);
  const after = await stat(path);
  expect(after.mtimeMs).toBe(before.mtimeMs);
  expect(after.size).toBe(before.size);
}

async function contentTitles(s: TempSite): Promise<string[]> {
  const index = await s.readJson<{ content: { title: string }[] }>('api/v1/content.json');
  return index.content.map((i) => i.title).sort();
}

describe('the parse cache', () => {
  // Builds right after an edit find every file's times within RACY_MS of the build and check those
  // files by their hash; with racyMs 0 the stamps alone decide, which is what a later build does.
  for (const mode of ['racy window (default)', 'stamps alone'] as const) {
    it(`gives the bytes of a cold build after edits, renames and deletes (${mode})`, async () => {
      // The MCP data in both forms: embedded in one run, the D1 import in the other.
      site =
        mode === 'stamps alone'
          ? await tempSite(
              { ...FILES, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
              { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
            )
          : await tempSite(FILES);
      const s = site;
      const cacheDir = join(s.root, CACHE_DIR, 'parse');
      let parallel = false;
      // By default each build reads .content-index/cache and writes it back; the other mode keeps one
      // cache in memory from build to build, as dev does.
      const memory = ParseCache.open(s.root, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, racyMs: 0 });
      const cached = (): BuildOptions => {
        // Every other build shares the parsing with the worker thread, which gets the known hashes too.
        parallel = !parallel;
        const options: BuildOptions = parallel ? { parallelThreshold: 2 } : {};
        return mode === 'stamps alone' ? { ...options, cache: memory } : options;
      };
      const path = (p: string) => join(s.root, p);

      await expectSameAsCold(s, cached);
      expect(await contentTitles(s)).toEqual(['Cuatro', 'Dos', 'Tres', 'Uno']);
      const backend =
        mode === 'stamps alone'
          ? d1ImportSql(s.root)
          : readFile(join(s.root, '.content-index/worker/mcp-data.bin'), 'utf8');
      await expect(backend).resolves.toContain('Cuatro');
      if (mode === 'stamps alone') expect(memory.size).toBe(Object.keys(FILES).length);
      else {
        const shards = await Promise.all(
          (await readdir(cacheDir)).map((f) => readFile(join(cacheDir, f), 'utf8')),
        );
        expect(shards.join('\n')).toContain('content/posts/uno.es.md');
      }

      // Same size, times set back: only the change time tells (or the hash, inside the racy window).
      await editKeepingTimes(path('content/posts/uno.es.md'), (t) =>
        t.replace('title: "Uno"', 'title: "Una"'),
      );
      await expectSameAsCold(s, cached);
      expect(await contentTitles(s)).toEqual(['Cuatro', 'Dos', 'Tres', 'Una']);

      // A rename: the same text under another name (its address changes with its name).
      await rename(path('content/posts/dos.es.md'), path('content/posts/dos-nuevo.es.md'));
      await expectSameAsCold(s, cached);
      expect(JSON.stringify(await s.readJson('api/v1/content.json'))).toContain('/blog/dos-nuevo/');

      // A translation deleted, then back with another title.
      await s.remove('content/posts/uno.en.md');
      await expectSameAsCold(s, cached);
      expect(JSON.stringify(await s.readJson('api/v1/content.json'))).not.toContain('url_en');
      await s.write('content/posts/uno.en.md', md({ title: 'First', date: '2025-01-10', slug: 'first' }));
      await expectSameAsCold(s, cached);
      expect(JSON.stringify(await s.readJson('api/v1/content.json'))).toContain('/en/blog/first/');

      // TOML and JSON front matter, edited in place with their times kept.
      await editKeepingTimes(path('content/projects/tres.es.md'), (t) =>
        t.replace('2025-03-01', '2025-03-09'),
      );
      await editKeepingTimes(path('content/tips/cuatro.es.md'), (t) => t.replace('Cuatro', 'Cuarto'));
      await expectSameAsCold(s, cached);
      expect(await contentTitles(s)).toEqual(['Cuarto', 'Dos', 'Tres', 'Una']);

      // A draft published, then a draft again (same size, times kept): it never leaks.
      await editKeepingTimes(path('content/posts/borrador.es.md'), (t) =>
        t.replace('draft: true ', 'draft: false'),
      );
      await expectSameAsCold(s, cached);
      expect(await contentTitles(s)).toContain('Borrador');
      await editKeepingTimes(path('content/posts/borrador.es.md'), (t) =>
        t.replace('draft: false', 'draft: true '),
      );
      await expectSameAsCold(s, cached);
      expect(await contentTitles(s)).not.toContain('Borrador');

      // A file that cannot be parsed: the same problems, cached or not; then fixed.
      const broken = await readFile(path('content/posts/dos-nuevo.es.md'), 'utf8');
      await s.write('content/posts/dos-nuevo.es.md', broken.replace('title: "Dos"', 'title: [Dos'));
      const failed = await expectSameAsCold(s, cached);
      expect(failed.ok).toBe(false);
      await s.write('content/posts/dos-nuevo.es.md', broken);
      await expectSameAsCold(s, cached);

      // Every file rewritten as it was (new times, as a fresh checkout gives), and a body-only edit.
      for (const file of Object.keys(FILES).filter((f) => !f.includes('dos') && !f.endsWith('uno.en.md'))) {
        await s.write(file, await readFile(path(file), 'utf8'));
      }
      await editKeepingTimes(path('content/posts/uno.es.md'), (t) => t.replace('Texto.', 'Textó'));
      await expectSameAsCold(s, cached);
      expect(await contentTitles(s)).toEqual(['Cuarto', 'Dos', 'Tres', 'Una']);
    });
  }

  it("keeps no body text, and reads the kept files' bodies again, on both threads, for the items made again", async () => {
    const bodies = Object.fromEntries(
      Object.entries(FILES).map(([file, text], i) => [file, `${text}Zanahoria${i} morada.\n`]),
    );
    site = await tempSite(bodies);
    const s = site;
    const parallel = (): BuildOptions => ({ parallelThreshold: 2 });
    await expectSameAsCold(s, parallel);
    const cacheDir = join(s.root, CACHE_DIR, 'parse');
    const shards = (
      await Promise.all((await readdir(cacheDir)).map((f) => readFile(join(cacheDir, f), 'utf8')))
    ).join('\n');
    expect(shards).toContain('content/projects/tres.es.md');
    expect(shards).not.toContain('Zanahoria');

    // The item store gone (another version of the tool wrote it) and another description: every item is
    // assembled again from the kept outcomes, whose bodies are read from the files (six of them: on the
    // worker thread too).
    await rm(join(s.root, STORE_DIR), { recursive: true });
    await s.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...FIXTURE_CONFIG, description: 'Otra descripción' }, null, 2)};\n`,
    );
    const warm = await expectSameAsCold(s, parallel);
    expect(warm.ok && warm.mcp.join('')).toContain('zanahoria3');
  });
});

describe('an entry whose files did not change', () => {
  it('is found unchanged without its bodies read; a changed one has them read at once, on both threads', async () => {
    // More files than a build reads directly (256), so that they go through the parse cache, which
    // keeps no body text.
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++)
      files[`content/posts/p${String(i).padStart(3, '0')}.es.md`] = md(
        { title: `Nota ${i}`, date: '2025-01-10' },
        `Zanahoria${i} morada.\n`,
      );
    site = await tempSite(files);
    const s = site;
    const configWith = (more: object) =>
      s.write(
        'site.config.ts',
        `export default ${JSON.stringify({ ...FIXTURE_CONFIG, ...more }, null, 2)};\n`,
      );
    let counts: BuildResult['incremental'] | undefined;
    const seen = (result: BuildResult) => {
      counts = result.incremental;
    };
    const parallel = (): BuildOptions => ({ parallelThreshold: 2 });
    await expectSameAsCold(s, parallel);
    // Another description: every item is assembled again, and found unchanged by its key (its files'
    // hashes stand for its body), so no body is read.
    await configWith({ description: 'Otra descripción' });
    await expectSameAsCold(s, parallel, seen);
    expect(counts).toMatchObject({ assembled: 300, redone: 0, bodies: 0 });
    // Another address for every page: every entry changed, and its body is read, all at once.
    await configWith({ description: 'Otra descripción', site: 'https://otro.example.com/' });
    const moved = await expectSameAsCold(s, parallel, seen);
    expect(counts).toMatchObject({ assembled: 300, redone: 300, bodies: 300 });
    expect(moved.ok && moved.mcp.join('')).toContain('zanahoria299');
  });
});

describe("dev's builds that take the watcher's word", () => {
  it('read only the files named changed, and sourcesUnchanged tells when something else changed', async () => {
    site = await tempSite(FILES);
    const s = site;
    const cache = ParseCache.open(s.root, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, racyMs: 0 });
    // Dev's: its items kept in memory, and stamps trusted at once (no racy window).
    const store = FragmentStore.memory({ racyMs: 0 });
    const path = (p: string) => join(s.root, p);
    const built = await build({ root: s.root, cache, store, clock: () => NOW });
    // What build() hands the listing: it is the last build's only for the same options.
    const options = {
      root: s.root,
      layout: built.config.content,
      maxFileBytes: DEFAULT_MAX_FILE_BYTES,
      store,
      exclude: [built.outDir, join(s.root, '.content-index')],
    };
    expect(await sourcesUnchanged(options)).toBe(true);

    // Two saves, the watcher reported one: the build reads that one alone.
    await s.write('content/posts/uno.es.md', md({ title: 'Uno editado', date: '2025-01-10' }));
    await s.write('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' }));
    await build({
      root: s.root,
      cache,
      store,
      clock: () => NOW,
      changed: new Set([path('content/posts/uno.es.md')]),
    });
    expect(await contentTitles(s)).toEqual(['Cuatro', 'Dos', 'Tres', 'Uno editado']);
    // Dev's look when idle finds the other one; a full build then gives what a cold one gives.
    expect(await sourcesUnchanged(options)).toBe(false);
    await expectSameAsCold(s, () => ({ cache, store }));
    expect(await contentTitles(s)).toEqual(['Cuatro', 'Dos editado', 'Tres', 'Uno editado']);
    expect(await sourcesUnchanged(options)).toBe(true);

    // A file the last build did not read (a new one) makes the build list the folders again.
    await s.write('content/posts/cinco.es.md', md({ title: 'Cinco', date: '2025-06-01' }));
    await build({
      root: s.root,
      cache,
      store,
      clock: () => NOW,
      changed: new Set([path('content/posts/cinco.es.md')]),
    });
    expect(await contentTitles(s)).toContain('Cinco');
  });
});
