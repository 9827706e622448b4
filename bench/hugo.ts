/**
 * Hugo beside content-index in `npm run bench`: the same synthetic content folder built by Hugo into
 * the same JSON index (bench/hugo/: a configuration whose only output is that index, from front matter,
 * Markdown never rendered). Optional: without `hugo` on the PATH the bench prints its other figures.
 */
import { spawnSync } from 'node:child_process';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { measure, type Run } from './measure.ts';

const CONFIG = join(import.meta.dirname, 'hugo');

/** `hugo v0.111.3+extended …`, or undefined when Hugo is not installed. */
export function hugoVersion(): string | undefined {
  const found = spawnSync('hugo', ['version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) return undefined;
  return found.stdout.trim().split(' ').slice(0, 2).join(' ');
}

/** A Hugo project for one site: bench/hugo/ copied beside it (Hugo writes its resources folder there). */
export async function hugoProject(workdir: string, site: string): Promise<HugoProject> {
  const dir = join(workdir, `${site.split('/').at(-1)}-hugo`);
  await cp(CONFIG, dir, { recursive: true });
  const out = join(dir, 'public');
  return {
    out,
    async build(): Promise<Run> {
      await rm(out, { recursive: true, force: true });
      return measure(
        'hugo',
        ['--quiet', '--source', dir, '--contentDir', join(site, 'content'), '--destination', out],
        dir,
      );
    },
  };
}

export interface HugoProject {
  /** Where the index lands: `api/v1/content.json`. */
  out: string;
  build(): Promise<Run>;
}

/**
 * Whether Hugo's index holds exactly content-index's items (every key, value and the order) and counts:
 * the two did the same work.
 */
export async function sameIndex(hugoOut: string, ours: string): Promise<boolean> {
  const read = async (dir: string) =>
    JSON.parse(await readFile(join(dir, 'api/v1/content.json'), 'utf8')) as {
      content: unknown;
      counts: unknown;
    };
  const [theirs, mine] = await Promise.all([read(hugoOut), read(ours)]);
  return (
    JSON.stringify(theirs.content) === JSON.stringify(mine.content) &&
    JSON.stringify(theirs.counts) === JSON.stringify(mine.counts)
  );
}
