import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type SourceEvent, type SourceWatcher, watchSources } from '../../build/runtime/watch-sources.ts';

let root: string;
let watcher: SourceWatcher;
let events: [string, SourceEvent][];

/** The events reported once `done` holds, or a failure naming what came instead. */
async function until(done: () => boolean): Promise<[string, SourceEvent][]> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out; events: ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // Anything the same change still brings.
  await new Promise((r) => setTimeout(r, 200));
  return events.map(([path, event]) => [path.slice(root.length + 1), event]);
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
  expect(await until(() => events.length > 0)).toEqual([['content/posts/nuevo.es.md', 'add']]);
  events = [];
  await rm(join(root, 'content/posts/nuevo.es.md'));
  expect(await until(() => events.length > 0)).toEqual([['content/posts/nuevo.es.md', 'unlink']]);
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
  expect(told.sort()).toEqual([
    ['content/posts/2025/viejo.es.md', 'add'],
    ['content/posts/nueva/honda/a.es.md', 'add'],
  ]);
});

it('tells the configuration files, including one that did not exist when watching began', async () => {
  await writeFile(join(root, '_redirects'), '/a /b 301\n');
  await writeFile(join(root, 'unrelated.txt'), 'x');
  const told = await until(() => events.length > 0);
  expect(told.every(([path]) => path === '_redirects')).toBe(true);
});

it('tells a content folder that comes back, with the files written while it was away', async () => {
  await rename(join(root, 'content'), join(root, 'content-aside'));
  await writeFile(join(root, 'content-aside/posts/vuelta.es.md'), '---\ntitle: Vuelta\n---\n');
  await rename(join(root, 'content-aside'), join(root, 'content'));
  const told = await until(() => events.some(([path]) => path.endsWith('vuelta.es.md')));
  expect(told).toContainEqual(['content', 'add']);
  expect(told).toContainEqual(['content/posts/vuelta.es.md', 'add']);
});
