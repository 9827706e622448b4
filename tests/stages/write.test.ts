import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isContentIndexError } from '../../build/core/errors.ts';
import { writeOutput } from '../../build/stages/write.ts';
import { snapshotDir } from '../helpers/site.ts';

let root: string;
let out: string;
const state = () => join(root, '.content-index', 'output', 'public');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'content-index-write-'));
  out = join(root, 'public');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'robots.txt'), 'User-agent: *\n');
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function problemsOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isContentIndexError(error)) throw new Error(`expected a ContentIndexError, got ${String(error)}`);
  return error.problems;
}

it('makes the output folder a link to a generation holding the new files and the author’s', async () => {
  await writeOutput(out, [{ path: 'api/v1/content.json', content: '{"n":1}\n' }], { root });
  expect((await lstat(out)).isSymbolicLink()).toBe(true);
  expect(await readlink(out)).toBe(join('.content-index', 'output', 'public', 'gen-1'));
  expect(Object.keys(await snapshotDir(out)).sort()).toEqual(['api/v1/content.json', 'robots.txt']);
  expect(await readFile(join(out, 'robots.txt'), 'utf8')).toBe('User-agent: *\n');
  // Nothing is left beside the output folder or in the private folder but the generation and its record.
  expect((await readdir(root)).sort()).toEqual(['.content-index', 'public']);
  // The spare: the real folder the first build replaced, kept to make the next generation from.
  expect((await readdir(state())).sort()).toEqual(['gen-1', 'gen-1.json', 'spare']);
});

it('leaves the output folder untouched when a file cannot be staged', async () => {
  await writeOutput(out, [{ path: 'api/v1/content.json', content: '{"old":true}\n' }], { root });
  const before = await snapshotDir(out);
  const files = [
    { path: 'api/v1/content.json', content: '{"new":true}\n' },
    { path: 'api/v1/bad\0name.json', content: '{}' },
  ];
  await expect(writeOutput(out, files, { root })).rejects.toThrow();
  expect(await snapshotDir(out)).toEqual(before);
  // The failed generation is gone (and the spare with it: it was being made into that one).
  expect((await readdir(state())).sort()).toEqual(['gen-1', 'gen-1.json']);
});

it('refuses to write over a file it did not write, naming it, and writes nothing', async () => {
  const before = await snapshotDir(out);
  const problems = await problemsOf(
    writeOutput(
      out,
      [
        { path: 'robots.txt', content: 'x' },
        { path: 'api/v1/content.json', content: '{}' },
      ],
      { root },
    ),
  );
  expect(problems).toEqual([
    expect.objectContaining({
      code: 'output_conflict',
      file: 'public/robots.txt',
      message: expect.stringContaining('was not written by content-index'),
      hint: expect.stringContaining('move public/robots.txt out of the output folder'),
    }),
  ]);
  expect(await snapshotDir(out)).toEqual(before);
  expect((await lstat(out)).isDirectory()).toBe(true);
});

it('replaces its own files, removes those it no longer produces, and prunes their folders', async () => {
  await writeOutput(
    out,
    [
      { path: 'api/v0/content.json', content: '{}' },
      { path: 'api/v1/content.json', content: '{"n":1}' },
    ],
    { root },
  );
  const result = await writeOutput(out, [{ path: 'api/v1/content.json', content: '{"n":2}' }], { root });
  expect(result.removed).toEqual(['api/v0/content.json']);
  expect(Object.keys(await snapshotDir(out)).sort()).toEqual(['api/v1/content.json', 'robots.txt']);
  expect(await readdir(join(out, 'api'))).toEqual(['v1']);
  expect(await readFile(join(out, 'api/v1/content.json'), 'utf8')).toBe('{"n":2}');
  expect((await readdir(state())).sort()).toEqual(['gen-2', 'gen-2.json', 'spare']);
});

it('tells a file the author changed at one of its paths from its own, and keeps it', async () => {
  await writeOutput(
    out,
    [
      { path: 'openapi.json', content: '{}' },
      { path: 'llms.txt', content: 'a' },
    ],
    { root },
  );
  // Edited in place (same inode), and replaced by a rename: both are the author's now.
  await writeFile(join(out, 'openapi.json'), '{"mine":true}');
  await writeFile(join(out, 'llms.tmp'), 'mine');
  await rename(join(out, 'llms.tmp'), join(out, 'llms.txt'));
  const problems = await problemsOf(
    writeOutput(
      out,
      [
        { path: 'openapi.json', content: '{}' },
        { path: 'llms.txt', content: 'b' },
      ],
      { root },
    ),
  );
  expect(problems.map((p) => p.file).sort()).toEqual(['public/llms.txt', 'public/openapi.json']);
  expect(problems[0]?.message).toContain('changed since');
  expect(problems[0]?.hint).toContain('to let the build write it again');

  // When the build no longer writes them, they stay as the author left them, with a warning.
  const result = await writeOutput(out, [{ path: 'api/v1/content.json', content: '{}' }], { root });
  expect(await readFile(join(out, 'openapi.json'), 'utf8')).toBe('{"mine":true}');
  expect(await readFile(join(out, 'llms.txt'), 'utf8')).toBe('mine');
  expect(result.removed).toEqual([]);
  expect(result.warnings.map((w) => w.file).sort()).toEqual(['public/llms.txt', 'public/openapi.json']);
});

it('names a file or folder of the author’s where the build needs the other', async () => {
  await writeFile(join(out, 'mcp'), 'a file named like a folder');
  await mkdir(join(out, 'openapi.json'));
  const problems = await problemsOf(
    writeOutput(
      out,
      [
        { path: 'mcp/data.json', content: '{}' },
        { path: 'openapi.json', content: '{}' },
      ],
      { root },
    ),
  );
  expect(problems.map((p) => [p.file, p.message])).toEqual([
    ['public/mcp', 'is a file where the build needs a folder (for mcp/data.json)'],
    ['public/openapi.json', 'is a folder, and the build writes a file at openapi.json'],
  ]);
});

it('keeps what the author writes into the output folder while the build runs', async () => {
  await mkdir(join(out, 'blog'), { recursive: true });
  await writeFile(join(out, 'blog/old.html'), 'old');
  await writeFile(join(out, 'gone.html'), 'gone');
  await writeOutput(out, [{ path: 'api/v1/content.json', content: '{"n":1}' }], { root });
  await writeOutput(out, [{ path: 'api/v1/content.json', content: '{"n":2}' }], {
    root,
    // After the new generation is complete and before the switch: a site generator writing meanwhile.
    onStep: (step) => {
      if (step !== 'recorded') return;
      const write = (path: string, text: string) => writeFileSync(join(out, path), text);
      mkdirSync(join(out, 'blog/new'), { recursive: true });
      write('blog/new/index.html', 'created during the build');
      write('robots.tmp', 'replaced during the build');
      renameSync(join(out, 'robots.tmp'), join(out, 'robots.txt'));
      rmSync(join(out, 'gone.html'));
    },
  });
  expect(await snapshotDir(out)).toEqual(
    await snapshotOf({
      'api/v1/content.json': '{"n":2}',
      'blog/old.html': 'old',
      'blog/new/index.html': 'created during the build',
      'robots.txt': 'replaced during the build',
    }),
  );
  expect((await readdir(state())).sort()).toEqual(['gen-2', 'gen-2.json', 'spare']);
});

it('keeps a file written during the build at one of its paths aside, and says where', async () => {
  await writeOutput(out, [{ path: 'openapi.json', content: '{"n":1}' }], { root });
  const result = await writeOutput(out, [{ path: 'openapi.json', content: '{"n":2}' }], {
    root,
    onStep: (step) => {
      if (step !== 'recorded') return;
      writeFileSync(join(out, 'openapi.tmp'), 'hand-written');
      renameSync(join(out, 'openapi.tmp'), join(out, 'openapi.json'));
    },
  });
  expect(await readFile(join(out, 'openapi.json'), 'utf8')).toBe('{"n":2}');
  const kept = join(state(), 'rescued', 'openapi.json');
  expect(await readFile(kept, 'utf8')).toBe('hand-written');
  expect(result.warnings).toEqual([
    expect.objectContaining({
      file: 'public/openapi.json',
      message: expect.stringContaining('it is kept at .content-index/output/public/rescued/openapi.json'),
    }),
  ]);
});

it('makes the folders above an output folder that does not exist yet', async () => {
  const nested = join(root, 'site', 'dist');
  await writeOutput(nested, [{ path: 'llms.txt', content: 'x' }], { root });
  expect(await readFile(join(nested, 'llms.txt'), 'utf8')).toBe('x');
});

it('makes each generation from the spare with nothing stale left in it, however the author’s files change', async () => {
  const expected: Record<string, string> = { 'robots.txt': 'User-agent: *\n' };
  const put = async (path: string, text: string) => {
    await mkdir(join(out, path, '..'), { recursive: true });
    await writeFile(join(out, path), text);
    expected[path] = text;
  };
  const drop = async (path: string) => {
    await rm(join(out, path), { recursive: true, force: true });
    for (const key of Object.keys(expected))
      if (key === path || key.startsWith(`${path}/`)) delete expected[key];
  };
  const changes: (() => Promise<void>)[] = [
    async () => {
      await put('blog/a/index.html', 'a');
      await put('blog/b/index.html', 'b');
      await put('tags/x.html', 'x');
    },
    async () => {
      await drop('blog/a');
      await put('blog/b/index.html', 'b, rewritten'); // a new file where the old one was
      await put('blog/c/index.html', 'c');
    },
    async () => {
      await drop('tags');
      await put('tags', 'tags is a file now');
      await put('api/notes.md', 'notes beside the build’s files');
    },
    async () => {
      await drop('tags');
      await put('tags/y/index.html', 'a folder again');
      await drop('robots.txt');
    },
  ];
  for (const [n, change] of changes.entries()) {
    await change();
    const content = `{"n":${n}}`;
    await writeOutput(out, [{ path: 'api/v1/content.json', content }], { root });
    expect(await snapshotDir(out), `build ${n}`).toEqual(
      await snapshotOf({ ...expected, 'api/v1/content.json': content }),
    );
  }
  // The spare was the tree before last each time: it was made over, not copied whole.
  expect((await readdir(state())).sort()).toEqual(['gen-4', 'gen-4.json', 'spare']);
});

it('lets one build at a time write an output folder', async () => {
  const builds = [1, 2, 3].map((n) =>
    writeOutput(out, [{ path: 'api/v1/content.json', content: `{"n":${n}}` }], { root }),
  );
  await Promise.all(builds);
  const body = await readFile(join(out, 'api/v1/content.json'), 'utf8');
  expect(['{"n":1}', '{"n":2}', '{"n":3}']).toContain(body);
  expect(Object.keys(await snapshotDir(out)).sort()).toEqual(['api/v1/content.json', 'robots.txt']);
  expect((await readdir(state())).sort()).toEqual(['gen-3', 'gen-3.json', 'spare']);
});

async function snapshotOf(files: Record<string, string>): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'content-index-expected-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return await snapshotDir(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
