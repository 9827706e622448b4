import { lstat, mkdtemp, readFile, realpath, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { RACY_MS } from '../../build/stages/parse-cache.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// The static folder (`static` in site.config.ts) as hostile use finds it: links that lead out of it, and
// edits its files' size and modification time do not show.

let site: TempSite | undefined;
const elsewhere: string[] = [];
afterEach(async () => {
  await site?.dispose();
  site = undefined;
  for (const dir of elsewhere.splice(0)) await rm(dir, { recursive: true, force: true });
});

const POST = { 'content/posts/hola.es.md': md({ title: 'Hola' }) };
const STATIC = { ...FIXTURE_CONFIG, static: 'static' };
const clock = () => new Date('2026-01-01T00:00:00Z');

describe('links in the static folder', () => {
  it('refuses links that lead out of the folder (a secret of the project, a system file), naming each; nothing is published', async () => {
    site = await tempSite(
      { ...POST, 'static/robots.txt': 'User-agent: *\n', '.env': 'API_TOKEN=secret\n' },
      STATIC,
    );
    await build({ root: site.root, clock });
    const before = await site.snapshot();
    const outside = await mkdtemp(join(tmpdir(), 'content-index-outside-'));
    elsewhere.push(outside);
    await writeFile(join(outside, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    await symlink('../.env', join(site.root, 'static/env.txt'));
    await symlink(join(outside, 'passwd'), join(site.root, 'static/passwd.txt'));

    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'static/env.txt: is a link to .env, outside the static folder, so it is not published',
    );
    expect(result.stderr).toContain(
      `static/passwd.txt: is a link to ${join(await realpath(outside), 'passwd')}, outside the static folder, so it is not published`,
    );
    expect(result.stderr).toContain('hint: the static folder publishes what it holds, to anyone');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(await site.snapshot()).toEqual(before);
    await expect(lstat(join(site.out, 'env.txt'))).rejects.toThrow();
  });

  it('publishes a link to a file inside the folder, and says what it leaves out: a broken link, a folder link', async () => {
    site = await tempSite(
      { ...POST, 'static/robots.txt': 'User-agent: *\n', 'static/img/a.png': 'PNG' },
      STATIC,
    );
    await symlink('robots.txt', join(site.root, 'static/robots-copy.txt'));
    await symlink('missing.txt', join(site.root, 'static/broken.txt'));
    await symlink('img', join(site.root, 'static/images'));
    const result = await site.cli('build');
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(site.out, 'robots-copy.txt'), 'utf8')).toBe('User-agent: *\n');
    expect(result.stderr).toContain('static/broken.txt: is a broken link');
    expect(result.stderr).toContain('static/images: is a link to a folder, which the build does not follow');
  });
});

describe('edits the stamp does not show', () => {
  it('republishes a static file edited in place with its size and modification time put back', async () => {
    site = await tempSite({ ...POST, 'static/robots.txt': 'User-agent: *\nAllow: /a\n' }, STATIC);
    const file = join(site.root, 'static/robots.txt');
    // `sed -i` then `touch -d` back: same size, same modification time (whole seconds), other bytes.
    const sedThenTouch = async (text: string) => {
      await writeFile(file, text);
      await utimes(file, 1_700_000_000, 1_700_000_000);
      expect((await stat(file)).mtimeMs).toBe(1_700_000_000_000);
    };
    const published = () => readFile(join(site?.out ?? '', 'robots.txt'), 'utf8');
    await sedThenTouch('User-agent: *\nAllow: /a\n');
    await build({ root: site.root, clock });
    expect(await published()).toContain('Allow: /a');

    // Edited right after it was copied: within the time a stamp cannot vouch for.
    await sedThenTouch('User-agent: *\nAllow: /b\n');
    await build({ root: site.root, clock });
    expect(await published()).toContain('Allow: /b');

    // Edited long after: the change time, which no one can set back, shows it.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 200));
    await build({ root: site.root, clock });
    await sedThenTouch('User-agent: *\nAllow: /c\n');
    await build({ root: site.root, clock });
    expect(await published()).toContain('Allow: /c');

    // And --no-cache trusts no stamp at all.
    await sedThenTouch('User-agent: *\nAllow: /d\n');
    const result = await site.cli('build', '--no-cache');
    expect(result.code, result.stderr).toBe(0);
    expect(await published()).toContain('Allow: /d');
  });
});
