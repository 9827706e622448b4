import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { Problem } from '../core/errors.ts';

/** What becomes of a symbolic link in the static folder. */
export type StaticLink =
  | { kind: 'file'; size: number; mtimeMs: number; ctimeMs: number; ino: number }
  | { kind: 'refused'; problem: Problem }
  | { kind: 'skipped'; warning: Problem };

/**
 * The static folder publishes what it holds, byte for byte, to anyone: a link in it is published only
 * when it leads to a file inside the folder itself. A link out of it (`ln -s ../.env static/env.txt`,
 * `ln -s /etc/passwd static/passwd.txt`) would publish a file that was never put there to be public,
 * and that a clean checkout may not even have: it stops the build, named. A link to a folder is not
 * followed, and a broken link has nothing to publish: each is said, never skipped in silence.
 */
export async function decideStaticLink(
  root: string,
  staticDir: string,
  link: string,
  shown: string,
): Promise<StaticLink> {
  let target: string;
  try {
    target = await realpath(link);
  } catch {
    return {
      kind: 'skipped',
      warning: {
        code: 'source_unreadable',
        file: shown,
        message: 'is a broken link (what it points to does not exist), so it is not published',
        hint: 'point the link at a file in the static folder, or delete it',
      },
    };
  }
  const folder = realpathSync(staticDir);
  const inside = target.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
  if (!inside) {
    const fromRoot = relative(realpathSync(root), target);
    const where = fromRoot.startsWith('..') ? target : fromRoot.split(sep).join('/');
    return {
      kind: 'refused',
      problem: {
        code: 'output_refused',
        file: shown,
        message: `is a link to ${where}, outside the static folder, so it is not published`,
        hint: 'the static folder publishes what it holds, to anyone: copy the file into it if it is meant to be public, or delete the link',
      },
    };
  }
  const stats = await stat(target);
  if (!stats.isFile()) {
    return {
      kind: 'skipped',
      warning: {
        code: 'source_unreadable',
        file: shown,
        message: 'is a link to a folder, which the build does not follow, so nothing in it is published',
        hint: 'put the files themselves in the static folder (or link each file)',
      },
    };
  }
  return { kind: 'file', size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}
