import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { statStamp } from '../../build/stages/parse-cache.ts';
import { stampsAside } from '../../build/stages/stamps-aside.ts';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('stampsAside', () => {
  it("gives each path's stamp as statStamp takes it, and none for a path with no file", async () => {
    dir = await mkdtemp(join(tmpdir(), 'ci-stamps-'));
    const paths = ['a.md', 'b.md', 'ñandú.md'].map((name) => join(dir as string, name));
    await Promise.all(paths.map((path, i) => writeFile(path, 'x'.repeat(i * 100))));
    const missing = join(dir, 'gone.md');
    const inFile = join(paths[0] as string, 'below-a-file.md');
    const stampAt = await stampsAside([...paths, missing, inFile]);
    if (!stampAt) throw new Error('the worker gave nothing');
    paths.forEach((path, i) => {
      expect(stampAt(i)).toEqual(statStamp(path));
    });
    expect(stampAt(1)?.size).toBe(100);
    expect(stampAt(3)).toBeUndefined();
    expect(stampAt(4)).toBeUndefined();
  });
});
