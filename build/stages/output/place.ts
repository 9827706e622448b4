import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { ContentIndexError } from '../../core/errors.ts';
import { markState, parseMark, processMark } from './process-mark.ts';
import { within } from './tree.ts';

/** Where one output folder's generations, records and transient names live. */
export interface OutputPlace {
  root: string;
  /** The output folder: once published, a link the build owns to the current generation. */
  out: string;
  /** The output folder as messages show it: relative to the project root when inside it. */
  shown: string;
  /** Generations (`gen-N/`), their records (`gen-N.json`), the lock. */
  state: string;
  /** Beside `out` (same file system): a real output folder waits here while it becomes a link. */
  aside: string;
  /** Beside `out`: where a new link is made before it is renamed over `out`, and where old trees are deleted. */
  transientPrefix: string;
}

export const PRIVATE_DIR = '.content-index';

/**
 * In the project's private folder when the output folder is inside the project; beside the output
 * folder otherwise (a temporary folder, another disk), so nothing is written into a project that the
 * output does not belong to.
 */
export function outputPlace(root: string, out: string): OutputPlace {
  const inside = within(root, out);
  const name = basename(out);
  const state =
    inside !== undefined && inside !== ''
      ? join(root, PRIVATE_DIR, 'output', encodeURIComponent(inside))
      : join(dirname(out), `.${name}.content-index`);
  return {
    root,
    out,
    shown: inside || out,
    state,
    aside: join(dirname(out), `.${name}.content-index-previous`),
    transientPrefix: `.${name}.content-index-`,
  };
}

export function generationDir(place: OutputPlace, id: number): string {
  return join(place.state, `gen-${id}`);
}

export function recordFile(place: OutputPlace, id: number): string {
  return join(place.state, `gen-${id}.json`);
}

export function transientPath(place: OutputPlace, kind: 'link' | 'trash'): string {
  return join(dirname(place.out), `${place.transientPrefix}${kind}-${randomBytes(4).toString('hex')}`);
}

/**
 * One build at a time per output folder (`content-index dev` and a build in another terminal would
 * otherwise switch and reconcile each other's generations). The lock names its holder by its process
 * mark (process-mark.ts), and the holder touches it every second while it holds it: a lock whose writer
 * has ended (its pid free, or reused by a later process, such as the next container's pid 1) is taken
 * over at once, and one whose writer cannot be checked from here (another container, an earlier
 * release's bare pid) once it has gone unrefreshed for HEARTBEAT_STALE_MS. Resolves with the release
 * function.
 */
export async function lockOutput(
  place: OutputPlace,
  options: { waitMs?: number } = {},
): Promise<() => Promise<void>> {
  await mkdir(place.state, { recursive: true });
  const lock = join(place.state, 'lock');
  // Written whole under a private name, then linked into place: the lock never exists without its mark.
  const mine = `${lock}.${process.pid}-${randomBytes(3).toString('hex')}`;
  await writeFile(mine, JSON.stringify(processMark()));
  const deadline = Date.now() + (options.waitMs ?? 60_000);
  try {
    for (;;) {
      try {
        await link(mine, lock);
        const heartbeat = setInterval(() => {
          const now = new Date();
          utimes(lock, now, now).catch(() => undefined);
        }, HEARTBEAT_MS);
        heartbeat.unref();
        return async () => {
          clearInterval(heartbeat);
          await unlink(lock).catch(() => undefined);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const [text, stats] = await Promise.all([
        readFile(lock, 'utf8').catch(() => ''),
        stat(lock).catch(() => undefined),
      ]);
      if (!stats) continue; // released meanwhile
      const holder = parseMark(text);
      const state = holder ? markState(holder) : 'unknown';
      const silent = Date.now() - stats.mtimeMs > HEARTBEAT_STALE_MS;
      if (state === 'gone' || (state === 'unknown' && silent)) {
        await unlink(lock).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) {
        const who = holder
          ? `pid ${holder.pid}${holder.host && holder.host !== hostname() ? ` on ${holder.host}` : ''}`
          : 'a process';
        throw new ContentIndexError([
          {
            code: 'output_busy',
            file: place.shown,
            message: `another content-index process (${who}) is writing this output folder`,
            hint: `wait for it to finish, or stop it; if no such process runs, delete ${relative(place.root, lock)}`,
          },
        ]);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    await unlink(mine).catch(() => undefined);
  }
}

/** How often a lock's holder touches it. */
const HEARTBEAT_MS = 1000;
/**
 * How long a lock whose writer cannot be checked may go untouched before it is taken for a killed
 * build's. Well above HEARTBEAT_MS: a holder's event loop may be busy for seconds at a time (a large
 * output's synchronous walk).
 */
export const HEARTBEAT_STALE_MS = 15_000;
