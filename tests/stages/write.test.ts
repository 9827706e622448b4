import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeOutput } from '../../build/stages/write.ts';
import { snapshotDir } from '../helpers/site.ts';

let root: string;
let out: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'content-index-write-'));
  out = join(root, 'public');
  await mkdir(join(out, 'api/v1'), { recursive: true });
  await writeFile(join(out, 'api/v1/content.json'), '{"old":true}\n');
  await writeFile(join(out, 'robots.txt'), 'User-agent: *\n');
});
afterEach(() => rm(root, { recursive: true, force: true }));

it('leaves the output folder untouched when a file cannot be staged', async () => {
  const before = await snapshotDir(out);
  const files = [
    { path: 'api/v1/content.json', content: '{"new":true}\n' },
    { path: 'api/v1/bad\0name.json', content: '{}' },
  ];
  await expect(writeOutput(out, files)).rejects.toThrow();
  expect(await snapshotDir(out)).toEqual(before);
  expect((await readdir(root)).filter((n) => n.includes('staging'))).toEqual([]); // staging cleaned up
});

it('refuses to write a path the build does not own', async () => {
  await expect(writeOutput(out, [{ path: 'robots.txt', content: 'x' }])).rejects.toThrow(
    /not a path the build owns/,
  );
  expect((await snapshotDir(out))['robots.txt']).toBeDefined();
});

it('replaces owned files, removes stale ones and prunes their empty folders', async () => {
  await mkdir(join(out, 'api/v0'), { recursive: true });
  await writeFile(join(out, 'api/v0/content.json'), '{}');
  const result = await writeOutput(out, [{ path: 'api/v1/content.json', content: '{"new":true}\n' }]);
  expect(result.removed).toEqual(['api/v0/content.json']);
  expect(Object.keys(await snapshotDir(out)).sort()).toEqual(['api/v1/content.json', 'robots.txt']);
  expect(await readdir(join(out, 'api'))).toEqual(['v1']);
});

it('puts every file back when a rename fails half way through the swap', async () => {
  // A folder where a file must go: its rename fails after the files before it were swapped in.
  await mkdir(join(out, 'openapi.json'), { recursive: true });
  await writeFile(join(out, 'openapi.json', 'keep'), 'x');
  const before = await snapshotDir(out);
  const files = [
    { path: 'api/v1/content.json', content: '{"new":true}\n' },
    { path: 'api/content.json', content: '{"new":true}\n' },
    { path: 'openapi.json', content: '{}' },
  ];
  await expect(writeOutput(out, files)).rejects.toThrow();
  expect(await snapshotDir(out)).toEqual(before);
});
