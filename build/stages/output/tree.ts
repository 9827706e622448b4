import {
  constants,
  copyFileSync,
  type Dirent,
  linkSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  type Stats,
  symlinkSync,
} from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';

export type EntryKind = 'file' | 'dir' | 'link' | 'other';

export interface Entry {
  /** Relative to the tree's root, POSIX separators. */
  path: string;
  kind: EntryKind;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** Native path of a tree entry. */
export function nativePath(root: string, path: string): string {
  return join(root, ...path.split('/'));
}

function kindOf(stats: Stats | Dirent): EntryKind {
  if (stats.isSymbolicLink()) return 'link';
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return 'file';
  return 'other';
}

/**
 * Every entry below `root` (folders too, not following links), by path. A folder that disappears while
 * it is read is skipped: an author or a generator may be writing into the tree at the same time.
 * Synchronous on purpose: one system call per entry, and on a site generator's tree of 10,000 pages the
 * thread-pool round trip of each asynchronous call cost more than the calls themselves.
 */
export function walkTree(root: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const visit = (dir: string, prefix: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      if (isGone(error)) return;
      throw error;
    }
    for (const name of names) {
      const path = prefix ? `${prefix}/${name}` : name;
      const full = join(dir, name);
      const stats = lstatSync(full, { throwIfNoEntry: false });
      if (!stats) continue;
      const kind = kindOf(stats);
      entries.set(path, { path, kind, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs });
      if (kind === 'dir') visit(full, path);
    }
  };
  visit(root, '');
  return entries;
}

export function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Puts `from` at `to` without copying bytes where the file system allows: a hard link keeps the bytes
 * identical and costs no space. Across file systems, or where links are not supported, it copies
 * (copy-on-write where the file system can).
 */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      code !== 'EXDEV' &&
      code !== 'EPERM' &&
      code !== 'EMLINK' &&
      code !== 'ENOTSUP' &&
      code !== 'EOPNOTSUPP'
    )
      throw error;
    copyFileSync(from, to, constants.COPYFILE_FICLONE);
  }
}

/**
 * Recreates one file or link of the tree `fromRoot` in `toRoot` (its folder exists): a file as a hard
 * link to the same bytes, a symbolic link as a link with the same target (a relative target that leaves
 * the tree is made absolute, so it still points at the same place from the new folder). Returns false
 * when the entry vanished meanwhile. Synchronous, as walkTree is.
 */
export function carryEntry(fromRoot: string, toRoot: string, entry: Entry): boolean {
  const from = nativePath(fromRoot, entry.path);
  const to = nativePath(toRoot, entry.path);
  try {
    if (entry.kind === 'file') linkOrCopy(from, to);
    else if (entry.kind === 'link') symlinkSync(linkTarget(fromRoot, entry.path, readlinkSync(from)), to);
    else return false; // sockets and pipes are not site files
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

function linkTarget(fromRoot: string, path: string, target: string): string {
  if (isAbsolute(target)) return target;
  const inside = posix.normalize(posix.join(posix.dirname(path), target.split(sep).join('/')));
  if (!inside.startsWith('../') && inside !== '..') return target;
  return resolve(dirname(nativePath(fromRoot, path)), target);
}

/** `path` and every folder above it, deepest last: `a/b/c` → `a`, `a/b`. */
export function parentsOf(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** `inside` relative to `root` when it is inside it (or is it), else undefined. */
export function within(root: string, inside: string): string | undefined {
  const rel = relative(root, inside);
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}
