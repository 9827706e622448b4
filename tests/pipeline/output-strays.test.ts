import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// `public/` is a link to the current generation; a shell that entered it stays in the generation it
// entered after a build switches the link. What it writes there lands in the old generation, which the
// build keeps as the spare to make the next one from: nothing written there may be deleted unsaid.

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

const clock = () => new Date('2026-01-01T00:00:00Z');

it('keeps what a shell still inside an earlier output folder wrote there, and says so', async () => {
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  await build({ root: site.root, clock });
  // The author's own file, written through public/, then a shell enters public/.
  await writeFile(join(site.out, 'mine.txt'), 'mine\n');
  await writeFile(join(site.out, 'gone.txt'), 'deleted later\n');
  // A shell enters public/ and waits.
  const shell = spawn(
    'sh',
    [
      '-c',
      'cd public && read go && echo "written from the old shell" > notes.txt && mkdir drafts && echo "an idea" > drafts/idea.md && echo "at a path the build writes" > llms.txt',
    ],
    { cwd: site.root, stdio: ['pipe', 'ignore', 'inherit'] },
  );
  const done = new Promise((resolve) => shell.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 200));
  // An edit: the build makes a new generation (one that changes nothing is skipped, stages/unchanged.ts).
  await site.write('content/posts/hola.es.md', md({ title: 'Hola de nuevo' }));
  await build({ root: site.root, clock });
  // The author deletes a file through public/ (the current generation): it must stay deleted.
  await rm(join(site.out, 'gone.txt'));

  // The shell, now in the generation before the current one, writes three files.
  shell.stdin.end('go\n');
  expect(await done).toBe(0);

  // A build that finds nothing changed writes nothing and deletes nothing: the files wait in the
  // generation they were written in for the next build that makes one.
  const skipped = await build({ root: site.root, clock });
  expect(skipped.incremental.unchanged).toBe(true);
  await site.write('content/posts/hola.es.md', md({ title: 'Hola otra vez' }));
  const result = await build({ root: site.root, clock });
  expect(await readFile(join(site.out, 'notes.txt'), 'utf8')).toBe('written from the old shell\n');
  expect(await readFile(join(site.out, 'drafts/idea.md'), 'utf8')).toBe('an idea\n');
  expect(await readFile(join(site.out, 'mine.txt'), 'utf8')).toBe('mine\n');
  await expect(readFile(join(site.out, 'gone.txt'))).rejects.toThrow();
  // The build's own file stays the build's; the one written over it is kept aside.
  expect(await readFile(join(site.out, 'llms.txt'), 'utf8')).not.toContain('old shell');
  expect(await readFile(join(site.root, '.content-index/output/public/rescued/llms.txt'), 'utf8')).toBe(
    'at a path the build writes\n',
  );
  expect(result.warnings.map((w) => [w.file, w.message])).toEqual([
    [
      'public/drafts/idea.md',
      'was written into an earlier public after a build had replaced it; it is kept in public',
    ],
    [
      'public/notes.txt',
      'was written into an earlier public after a build had replaced it; it is kept in public',
    ],
    [
      'public/llms.txt',
      'was written into an earlier public after a build had replaced it, at a path taken now; it is kept at .content-index/output/public/rescued/llms.txt',
    ],
  ]);
  expect(result.warnings[0]?.hint).toContain('cd into public again');

  // Kept, they are the author's files like any other: the next build says nothing more of them.
  const next = await build({ root: site.root, clock });
  expect(next.warnings).toEqual([]);
  expect(await readFile(join(site.out, 'notes.txt'), 'utf8')).toBe('written from the old shell\n');
});
