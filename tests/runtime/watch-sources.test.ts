import { mkdir, mkdtemp, realpath, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type SourceEvent, type SourceWatcher, watchSources } from '../../build/runtime/watch-sources.ts';

let root: string;
let watcher: SourceWatcher;
let events: [string, SourceEvent][];

/**
 * The events reported once `done` holds, each once (one write can come as two events, which dev
 * coalesces), or a failure naming what came instead.
 */
async function until(done: () => boolean): Promise<[string, SourceEvent][]> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out; events: ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // Anything the same change still brings.
  await new Promise((r) => setTimeout(r, 200));
  const told = events.map(([path, event]) => `${path.slice(root.length + 1)}\u0000${event}`);
  return [...new Set(told)].map((e) => e.split('\u0000') as [string, SourceEvent]);
}

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'content-index-watch-')));
  await mkdir(join(root, 'content/posts/2024'), { recursive: true });
  await writeFile(join(root, 'content/posts/hola.es.md'), '---\ntitle: Hola\n---\n');
  await writeFile(join(root, 'content/posts/2024/viejo.es.md'), '---\ntitle: Viejo\n---\n');
  events = [];
  watcher = watchSources(
    {
      contentDir: join(root, 'content'),
      globs: ['posts/**/*.md'],
      files: [join(root, 'site.config.ts'), join(root, '_redirects')],
    },
    {
      ignore: [join(root, 'public')],
      onChange: (path, event) => events.push([path, event]),
      onError: (error) => events.push([`error: ${error.message}`, 'change']),
    },
  );
  await watcher.ready;
});

afterEach(async () => {
  await watcher.close();
  await rm(root, { recursive: true, force: true });
});

it('tells a save by renaming a new file over the old one as a change of that file, as a save in place', async () => {
  // Editors (vim, sed -i) write a temporary file and rename it over: the file's own path is what changed.
  await writeFile(join(root, 'content/posts/.hola.es.md.swp'), 'x');
  await rename(join(root, 'content/posts/.hola.es.md.swp'), join(root, 'content/posts/hola.es.md'));
  expect(await until(() => events.length > 0)).toEqual([['content/posts/hola.es.md', 'change']]);
  events = [];
  await writeFile(join(root, 'content/posts/2024/viejo.es.md'), '---\ntitle: Otro\n---\n');
  expect(await until(() => events.length > 0)).toEqual([['content/posts/2024/viejo.es.md', 'change']]);
});

it('tells a new file as added and a deleted one as gone, and never an editor temporary file', async () => {
  await writeFile(join(root, 'content/posts/4913'), '');
  await rm(join(root, 'content/posts/4913'));
  await writeFile(join(root, 'content/posts/nuevo.es.md'), '---\ntitle: Nuevo\n---\n');
  // Its creation and its write can come in two batches on a busy machine: an add, then a change.
  const told = await until(() => events.length > 0);
  expect(told[0]).toEqual(['content/posts/nuevo.es.md', 'add']);
  expect(told.slice(1)).toEqual(told.length > 1 ? [['content/posts/nuevo.es.md', 'change']] : []);
  events = [];
  await rm(join(root, 'content/posts/nuevo.es.md'));
  // The write's change may come later still (a CI run had it after 200 ms): before the unlink, and
  // only of that file.
  const gone = await until(() => events.some(([, event]) => event === 'unlink'));
  expect(gone.at(-1)).toEqual(['content/posts/nuevo.es.md', 'unlink']);
  expect(gone.slice(0, -1)).toEqual(gone.length > 1 ? [['content/posts/nuevo.es.md', 'change']] : []);
});

it('tells a folder moved away, and the files of a folder moved in or made with files at once', async () => {
  // Moved away, only the folder is seen going: it is told, so that a build looks at everything.
  await rename(join(root, 'content/posts/2024'), join(root, 'aside'));
  expect(await until(() => events.length > 0)).toEqual([['content/posts/2024', 'unlink']]);
  events = [];
  // Moved in (or made, then written before it is watched): its files are read and told.
  await rename(join(root, 'aside'), join(root, 'content/posts/2025'));
  await mkdir(join(root, 'content/posts/nueva/honda'), { recursive: true });
  await writeFile(join(root, 'content/posts/nueva/honda/a.es.md'), '---\ntitle: A\n---\n');
  const told = await until(() => events.length >= 2);
  // New to the build either way: told as added by the look at the new folder, or as changed when the
  // watch of the new folder saw the write first.
  expect(told.filter(([, event]) => event === 'unlink')).toEqual([]);
  expect([...new Set(told.map(([path]) => path))].sort()).toEqual([
    'content/posts/2025/viejo.es.md',
    'content/posts/nueva/honda/a.es.md',
  ]);
});

it('tells the configuration files, including one that did not exist when watching began', async () => {
  await writeFile(join(root, '_redirects'), '/a /b 301\n');
  await writeFile(join(root, 'unrelated.txt'), 'x');
  const told = await until(() => events.length > 0);
  expect(told.every(([path]) => path === '_redirects')).toBe(true);
});

it('tells a content folder that comes back, with the files written while it was away, and its saves after', async () => {
  await rename(join(root, 'content'), join(root, 'content-aside'));
  watcher.awaitReturn(join(root, 'content')); // as dev does after a build that found it missing
  await writeFile(join(root, 'content-aside/posts/vuelta.es.md'), '---\ntitle: Vuelta\n---\n');
  await rename(join(root, 'content-aside'), join(root, 'content'));
  // Both, in either order: the file can be told first, by the watch of the folder it was moved with,
  // and the folder back only at the next look for it (on a loaded machine, past the 200 ms after).
  const told = await until(
    () =>
      events.some(([path]) => path.endsWith('vuelta.es.md')) &&
      events.some(([path, event]) => path === join(root, 'content') && event === 'add'),
  );
  expect(told).toContainEqual(['content', 'add']);
  expect(told).toContainEqual(['content/posts/vuelta.es.md', 'add']);
  events = [];
  await writeFile(join(root, 'content/posts/hola.es.md'), '---\ntitle: Otra vez\n---\n');
  expect(await until(() => events.length > 0)).toContainEqual(['content/posts/hola.es.md', 'change']);
});

it('watches a content folder made again in place of the one removed, and tells nothing for a touch of it', async () => {
  await rm(join(root, 'content'), { recursive: true });
  await until(() => events.some(([path]) => path === join(root, 'content')));
  watcher.awaitReturn(join(root, 'content'));
  await mkdir(join(root, 'content/posts'), { recursive: true });
  await writeFile(join(root, 'content/posts/hola.es.md'), '---\ntitle: Hola\n---\n');
  // Told as new or as changed, by the new watch or by the look at the folder back: either way, told.
  await until(() => events.some(([path]) => path.endsWith('hola.es.md')));
  events = [];
  await writeFile(join(root, 'content/posts/hola.es.md'), '---\ntitle: Guardado\n---\n');
  expect(await until(() => events.length > 0)).toEqual([['content/posts/hola.es.md', 'change']]);
  events = [];
  // A touch of the folder itself changes nothing a build reads.
  await utimes(join(root, 'content'), new Date(), new Date());
  await writeFile(join(root, 'content/posts/hola.es.md'), '---\ntitle: Tocado\n---\n');
  expect(await until(() => events.length > 0)).toEqual([['content/posts/hola.es.md', 'change']]);
});

it('does not follow a symbolic link into another folder', async () => {
  await mkdir(join(root, 'elsewhere/deep'), { recursive: true });
  await writeFile(join(root, 'elsewhere/deep/x.es.md'), '---\ntitle: X\n---\n');
  await symlink(join(root, 'elsewhere'), join(root, 'content/posts/link'));
  await writeFile(join(root, 'content/posts/otro.es.md'), '---\ntitle: Otro\n---\n');
  const told = await until(() => events.some(([path]) => path.endsWith('otro.es.md')));
  expect(told.filter(([path]) => path.includes('link/'))).toEqual([]);
});

it('watches nothing again once closed, whatever it is told after', async () => {
  // Node's handles of fs.watch: counted before and after, as other files' watchers may share the process.
  const watches = () =>
    (process as unknown as { _getActiveHandles(): object[] })
      ._getActiveHandles()
      .filter((handle) => handle.constructor.name === 'FSWatcher').length;
  await watcher.close();
  const closed = watches();
  // As a rebuild that ends after dev stopped tells it (its configuration changed), and a missing folder.
  watcher.update({
    contentDir: join(root, 'content'),
    globs: ['posts/**/*.md'],
    staticDir: join(root, 'static'),
    files: [join(root, 'site.config.ts'), join(root, 'content/_redirects')],
  });
  watcher.awaitReturn(join(root, 'static'));
  await writeFile(join(root, 'site.config.ts'), 'export default {};\n');
  await writeFile(join(root, 'content/_redirects'), '/a /b 301\n');
  await mkdir(join(root, 'static'));
  await new Promise((r) => setTimeout(r, 600));
  expect(events).toEqual([]);
  expect(watches()).toBe(closed);
});

it('watches a static folder made after watching began below a folder that did not exist either', async () => {
  const nested = watchSources(
    {
      contentDir: join(root, 'content'),
      globs: ['posts/**/*.md'],
      staticDir: join(root, 'assets/static'),
      files: [join(root, 'site.config.ts')],
    },
    {
      ignore: [join(root, 'public')],
      onChange: (path, event) => events.push([path, event]),
      onError: (error) => events.push([`error: ${error.message}`, 'change']),
    },
  );
  try {
    await nested.ready;
    await mkdir(join(root, 'assets/static'), { recursive: true });
    expect(await until(() => events.length > 0)).toEqual([['assets/static', 'add']]);
    events = [];
    await writeFile(join(root, 'assets/static/logo.svg'), '<svg/>');
    // Its creation, and its write when the two come apart.
    const told = await until(() => events.length > 0);
    expect(told).toContainEqual(['assets/static/logo.svg', 'add']);
    expect(new Set(told.map(([path]) => path))).toEqual(new Set(['assets/static/logo.svg']));
  } finally {
    await nested.close();
  }
});

it('tells the next saves of a file just saved at once, through its folder, whatever the recursive watch holds back', async () => {
  // @parcel/watcher holds events for 50 ms when it told any within the last 500 ms; here a recursive
  // watch that tells its first batch and then nothing stands for it holding them: only the direct
  // watch of the file saved can tell its next saves.
  await watcher.close();
  const { subscribe } = await import('@parcel/watcher');
  let batches = 0;
  watcher = watchSources(
    { contentDir: join(root, 'content'), globs: ['posts/**/*.md'], files: [] },
    {
      ignore: [],
      onChange: (path, event) => events.push([path, event]),
      onError: (error) => events.push([`error: ${error.message}`, 'change']),
      subscribe: (dir, tell, options) =>
        subscribe(dir, (error, found) => (batches++ === 0 ? tell(error, found) : undefined), options),
    },
  );
  await watcher.ready;
  const hola = join(root, 'content/posts/hola.es.md');
  await writeFile(hola, '---\ntitle: Uno\n---\n');
  expect(await until(() => events.length > 0)).toEqual([['content/posts/hola.es.md', 'change']]);
  events = [];
  await writeFile(hola, '---\ntitle: Dos\n---\n');
  expect(await until(() => events.length > 0)).toEqual([['content/posts/hola.es.md', 'change']]);
  events = [];
  // Saved by rename, the way vim and sed -i do: still the file, never the temporary one.
  await writeFile(join(root, 'content/posts/.hola.es.md.swp'), '---\ntitle: Tres\n---\n');
  await rename(join(root, 'content/posts/.hola.es.md.swp'), hola);
  expect(await until(() => events.length > 0)).toEqual([['content/posts/hola.es.md', 'change']]);
  events = [];
  // Another file of the same folder, never saved while watched, is left to the recursive watch.
  await writeFile(join(root, 'content/posts/2024/viejo.es.md'), '---\ntitle: Otro\n---\n');
  await new Promise((r) => setTimeout(r, 300));
  expect(events).toEqual([]);
  expect(batches).toBeGreaterThan(1);
});
