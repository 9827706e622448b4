import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedOutput } from '../../build/stages/output/guard.ts';

// A home folder inside the temporary folder (as a CI runner may set HOME) holds the project: the
// output's own place is named before any place it holds, and the project before the home folder.
describe('the output guard, with the home folder holding the project', () => {
  let base: string;
  let home: string;
  let root: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'content-index-guard-'));
    home = join(base, 'home');
    root = join(home, 'site');
    await mkdir(join(root, 'content'), { recursive: true });
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });
  const refused = (out: string) =>
    refusedOutput(out, { root, home, content: join(root, 'content') })?.message ?? 'accepted';

  it.each([
    ['the home folder itself', () => home, 'is your home folder'],
    ['the project root', () => root, 'is the project root'],
    ['a folder holding the home folder and the project', () => base, 'contains the project'],
    ['a folder of its own inside the project', () => join(root, 'public'), 'accepted'],
  ])('%s', (_name, out, expected) => {
    expect(refused(out())).toMatch(new RegExp(`^${expected}`));
  });
});
