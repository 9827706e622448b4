import { type Dirent, readdir, realpathSync, type Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { FollowedLink } from '../core/content/model.ts';
import type { Problem } from '../core/errors.ts';

/** A symbolic link among the content files, and what became of it. */
export interface ContentLink {
  /** The link, absolute, as the walk reached it. */
  path: string;
  /** Where it resolves, absolute (absent when it resolves nowhere). */
  target?: string;
  status: 'followed' | 'outside' | 'broken' | 'loop';
  directory: boolean;
}

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

/** A directory entry that describes a link's target, as a walk that follows the link sees it. */
class TargetEntry {
  readonly isFile: () => boolean;
  readonly isDirectory: () => boolean;
  readonly isSymbolicLink = () => false;
  readonly isBlockDevice: () => boolean;
  readonly isCharacterDevice: () => boolean;
  readonly isFIFO: () => boolean;
  readonly isSocket: () => boolean;
  constructor(
    readonly name: string,
    stats: Stats,
  ) {
    this.isFile = () => stats.isFile();
    this.isDirectory = () => stats.isDirectory();
    this.isBlockDevice = () => stats.isBlockDevice();
    this.isCharacterDevice = () => stats.isCharacterDevice();
    this.isFIFO = () => stats.isFIFO();
    this.isSocket = () => stats.isSocket();
  }
}

/**
 * A `readdir` for fast-glob that decides each symbolic link as the walk meets it, at the cost of one
 * look at the entries of each folder: a link that resolves inside the project is followed (a shared
 * file, a bundle folder kept elsewhere in the repository) by describing its target in its place; one
 * that leaves the project, is broken, or leads back to a folder above it stays a link, which the walk
 * neither enters nor returns, and is reported. A link out of the project would make the build read
 * what a clean clone in CI does not have.
 */
export function linkWatcher(root: string, contentDir: string) {
  const realRoot = realpathSync(root);
  const seen = new Map<string, ContentLink>();
  const decide = async (walked: string): Promise<Stats | undefined> => {
    let stats: Stats;
    let target: string;
    try {
      [stats, target] = await Promise.all([stat(walked), realpath(walked)]);
    } catch {
      seen.set(walked, { path: walked, status: 'broken', directory: false });
      return undefined;
    }
    const directory = stats.isDirectory();
    const status = !within(realRoot, target)
      ? 'outside'
      : directory && loops(walked, target, contentDir)
        ? 'loop'
        : 'followed';
    seen.set(walked, { path: walked, target, status, directory });
    return status === 'followed' ? stats : undefined;
  };
  const linkReaddir = (path: string, options: { withFileTypes: true }, callback: ReaddirCallback) => {
    // fast-glob asks for entries with their types; any other call is passed on as it is.
    if (options?.withFileTypes !== true)
      return (readdir as (...args: unknown[]) => void)(path, options, callback);
    readdir(path, options, (error, entries) => {
      if (error || !entries.some((entry) => entry.isSymbolicLink())) {
        callback(error, entries);
        return;
      }
      const folder = resolve(contentDir, path);
      Promise.all(
        entries.map(async (entry) => {
          if (!entry.isSymbolicLink()) return entry;
          const stats = await decide(join(folder, entry.name));
          return stats ? (new TargetEntry(entry.name, stats) as unknown as Dirent) : entry;
        }),
      ).then(
        (decided) => callback(null, decided),
        (failed: NodeJS.ErrnoException) => callback(failed, []),
      );
    });
  };
  return { readdir: linkReaddir as unknown as typeof readdir, seen, realRoot };
}

function within(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** A folder link loops when its target holds the link: a folder the walk has already come through. */
function loops(walked: string, target: string, contentDir: string): boolean {
  for (let dir = dirname(walked); ; dir = dirname(dir)) {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return true;
    }
    if (within(target, real)) return true;
    if (dir === contentDir || dirname(dir) === dir) return false;
  }
}

const LINK_HINT = {
  outside:
    'copy the file (or folder) into the project, or link to a place inside it: a clean checkout in CI has only what the repository holds',
  broken: 'point the link at an existing file, or delete the link',
  loop: 'a folder link must not lead to a folder that contains it; link to the folder that holds the content',
} as const;

/**
 * Problems and warnings for the links the walk did not follow. A link the content globs select
 * (`isContent`) was meant to be a page, and leaving it out would drop it from the index unannounced,
 * so it is an error; so is a folder link not followed (it may hold pages). Any other (a broken link
 * whose name is no page's, a file link out of the project such as a bundle's image) is a warning.
 */
export function linkProblems(
  watched: { seen: ReadonlyMap<string, ContentLink>; realRoot: string },
  isContent: (link: string) => boolean,
  root: string,
): { problems: Problem[]; warnings: Problem[]; followed: FollowedLink[] } {
  const shown = (link: string) => fromRoot(root, link);
  // Targets are real paths: shown from the project's real path, whatever links lead to the project.
  const target = (link: ContentLink) => fromRoot(watched.realRoot, link.target ?? '');
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const followed: FollowedLink[] = [];
  const links = [...watched.seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const link of links) {
    if (link.status === 'followed') {
      followed.push({ file: shown(link.path), target: target(link) });
      continue;
    }
    const folder = link.directory ? 'the folder ' : '';
    const message =
      link.status === 'outside'
        ? `is a link to ${folder}${link.target}, outside the project, so it is not read`
        : link.status === 'loop'
          ? `is a link to ${folder}${target(link) || '.'}, which contains it, so it is not read`
          : 'is a broken link (what it points to does not exist), so it is not read';
    const problem: Problem = {
      code: 'source_unreadable',
      file: shown(link.path),
      message,
      hint: LINK_HINT[link.status],
    };
    if (isContent(link.path) || link.directory) problems.push(problem);
    else warnings.push(problem);
  }
  return { problems, warnings, followed };
}

/** Path relative to `root`, POSIX separators, as every message shows files. */
export function fromRoot(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join('/');
}
