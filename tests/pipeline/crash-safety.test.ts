import { spawn } from 'node:child_process';
import { cp, lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

const HELPER = join(PROJECT_ROOT, 'tests', 'helpers', 'build-until.mjs');
const clock = () => new Date('2026-06-01T00:00:00Z');

/** Builds the site at `root` in a child process that SIGKILLs itself after step `stopAt` (0: never). */
function buildUntil(root: string, stopAt: number): Promise<{ steps: string[]; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HELPER, root, String(stopAt)], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    // 'close', not 'exit': a process that wrote its last line and died at once may exit before its
    // pipe has been read to the end (under load, the line was missing).
    child.once('close', (code, signal) => {
      const last = stdout.trim().split('\n').at(-1);
      if (!last) reject(new Error(`build-until printed nothing (exit ${code}, ${signal}):\n${stderr}`));
      else resolve({ steps: JSON.parse(last) as string[], signal });
    });
  });
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Runs `task` for each item, `width` at a time (each is a child process on a shared machine). */
async function each<T>(items: readonly T[], task: (item: T) => Promise<void>, width = 3): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

const AUTHOR_FILES = {
  'public/robots.txt': 'User-agent: *\n',
  'public/docs/guide/index.html': '<h1>Guide</h1>\n',
  'public/blog/index.html': '<h1>Blog</h1>\n',
};

describe.each([
  ['a published output (a link to the previous generation)', 'link'],
  ['a first build over a real output folder', 'folder'],
] as const)('a build killed after each step of the publication, over %s', (_, kind) => {
  let site: TempSite;
  const copies: string[] = [];
  afterAll(async () => {
    await site?.dispose();
    await Promise.all(copies.map((c) => rm(c, { recursive: true, force: true })));
  });

  it('leaves exactly the old or exactly the new tree, the alias equal to the latest version, and the next build cleans up', async () => {
    site = await tempSite(
      {
        ...AUTHOR_FILES,
        'content/posts/primero.es.md': md({ title: 'Primero', date: '2025-01-01' }),
        'static/old.txt': 'published from static/',
        _redirects: '/viejo /nuevo 301\n',
      },
      { ...FIXTURE_CONFIG, static: 'static' },
    );
    if (kind === 'link') await build({ root: site.root, clock });
    const old = await snapshotDir(site.out);
    // The new build adds an item, drops a file it published (old.txt) and changes every index file.
    await site.write('content/posts/segundo.es.md', md({ title: 'Segundo', date: '2025-02-01' }));
    await site.remove('static/old.txt');
    await site.remove('_redirects');

    const copy = async () => {
      const dir = await mkdtemp(join(tmpdir(), 'content-index-crash-'));
      copies.push(dir);
      await cp(site.root, dir, { recursive: true, verbatimSymlinks: true });
      return dir;
    };
    const complete = await copy();
    const { steps } = await buildUntil(complete, 0);
    const fresh = await snapshotDir(join(complete, 'public'));
    expect(steps).toEqual(
      kind === 'link'
        ? ['recovered', 'staged', 'recorded', 'switched', 'reconciled', 'retired', 'cleaned', 'done']
        : ['recovered', 'staged', 'recorded', 'moved-aside', 'switched', 'reconciled', 'cleaned', 'done'],
    );
    expect(fresh).not.toEqual(old);
    expect(fresh['old.txt']).toBeUndefined();
    if (kind === 'link') expect(old['old.txt']).toBeDefined();
    for (const path of Object.keys(AUTHOR_FILES)) expect(fresh[path.slice('public/'.length)]).toBeDefined();

    const switched = steps.indexOf('switched') + 1;
    await each(
      steps.slice(0, -1).map((_, i) => i + 1),
      async (stopAt) => {
        const root = await copy();
        const out = join(root, 'public');
        const run = await buildUntil(root, stopAt);
        const where = `killed after ${run.steps.at(-1)}`;
        expect(run.signal, where).toBe('SIGKILL');
        expect(run.steps.length, where).toBe(stopAt);

        if (run.steps.at(-1) === 'moved-aside') {
          // The one window of the first build: the real folder is aside, the link not yet in place.
          expect(await exists(out), where).toBe(false);
          expect(await snapshotDir(join(root, '.public.content-index-previous')), where).toEqual(old);
        } else {
          const tree = await snapshotDir(out);
          expect(tree, where).toEqual(stopAt < switched ? old : fresh);
          // (A first build's old tree has no API yet.)
          if (tree['api/content.json'])
            expect(await readFile(join(out, 'api/content.json'), 'utf8'), where).toBe(
              await readFile(join(out, 'api/v1/content.json'), 'utf8'),
            );
        }

        await build({ root, clock });
        expect(await snapshotDir(out), `${where}, then built again`).toEqual(fresh);
        const state = await readdir(join(root, '.content-index', 'output', 'public'));
        // One generation, its record, and the spare (the tree before, kept to make the next one from).
        expect(
          state.filter((n) => !/^(gen-\d+(\.json)?|spare)$/.test(n)),
          `${where}: leftovers`,
        ).toEqual([]);
        expect(state.filter((n) => n.startsWith('gen-')).length, `${where}: one generation`).toBe(2);
        expect(
          (await readdir(root)).filter((n) => n.startsWith('.public.')),
          `${where}: nothing left beside the output folder`,
        ).toEqual([]);
      },
    );
  }, 240_000);
});
