import { mkdirSync, readlinkSync, rmSync, unlinkSync } from 'node:fs';
import { carryEntry, type Entry, isGone, nativePath, walkTree } from './tree.ts';

/** What a new generation must hold before the build's files are written into it. */
export interface Desired {
  /** The author's files and links, as they are in the current output (`from`). */
  authors: ReadonlyMap<string, Entry>;
  /** Every folder the generation needs: the author's and those of the build's files. */
  folders: ReadonlySet<string>;
  /** Paths the build writes: nothing may stay there (a file there may be a link to a live one). */
  written: ReadonlySet<string>;
}

/**
 * Makes `dir` hold exactly the author's entries of `from` (hard links), the folders needed, and nothing
 * at the paths the build writes. `dir` may start empty or be the spare: the generation before last, kept
 * after its reconciliation so that the next build changes only what differs instead of making every
 * folder again (on a site generator's output of 10,000 pages, making the folders was most of the
 * build). Whatever `dir` holds that is not wanted goes; an author's file is kept only when it is the
 * same file (inode) as in `from`. Returns the carried files with their inode, for the record.
 */
export function prepareGeneration(
  dir: string,
  from: string | undefined,
  desired: Desired,
): Record<string, number> {
  const carried: Record<string, number> = {};
  const present = new Set<string>();
  let removed: string | undefined;
  for (const [path, entry] of [...walkTree(dir)].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (removed !== undefined && path.startsWith(`${removed}/`)) continue; // went with its folder
    const full = nativePath(dir, path);
    if (entry.kind === 'dir') {
      if (desired.folders.has(path)) present.add(path);
      else {
        rmSync(full, { recursive: true, force: true });
        removed = path;
      }
      continue;
    }
    const wanted = desired.written.has(path) ? undefined : desired.authors.get(path);
    if (wanted && from !== undefined && sameEntry(entry, wanted, full, nativePath(from, path))) {
      present.add(path);
      carried[path] = wanted.ino;
      continue;
    }
    try {
      unlinkSync(full);
    } catch (error) {
      if (!isGone(error)) throw error;
    }
  }
  // Parents sort before their children, so each folder is made without a recursive walk up.
  for (const path of [...desired.folders].sort()) {
    if (present.has(path)) continue;
    try {
      mkdirSync(nativePath(dir, path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (from === undefined) return carried;
  for (const entry of desired.authors.values()) {
    if (entry.kind === 'dir' || present.has(entry.path)) continue;
    if (carryEntry(from, dir, entry)) carried[entry.path] = entry.ino;
  }
  return carried;
}

function sameEntry(entry: Entry, wanted: Entry, full: string, source: string): boolean {
  if (entry.kind !== wanted.kind) return false;
  if (entry.kind === 'file') return entry.ino === wanted.ino;
  if (entry.kind !== 'link') return false;
  try {
    return readlinkSync(full) === readlinkSync(source);
  } catch {
    return false;
  }
}
