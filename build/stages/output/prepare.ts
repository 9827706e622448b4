import { mkdirSync, readlinkSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { carryEntry, type Entry, isGone, nativePath, parentsOf, walkTree } from './tree.ts';

/** What a new generation must hold before the build's files are written into it. */
export interface Desired {
  /** The author's files and links, as they are in the current output (`from`). */
  authors: ReadonlyMap<string, Entry>;
  /** Every folder the generation needs: the author's and those of the build's files. */
  folders: ReadonlySet<string>;
  /** Paths the build writes: nothing may stay there (a file there may be a link to a live one). */
  written: ReadonlySet<string>;
  /**
   * When `dir` is the spare: which of its files are accounted for (the current generation carried them
   * from it, or the build wrote them). Any other file was written into that generation after the build
   * had moved on (a shell whose working folder was still the old output): it is the author's, and is
   * kept, where its path is free, or moved to `rescueDir`.
   */
  spare?: { accounted(entry: Entry, full: string): boolean; rescueDir: string };
}

export interface Prepared {
  /** The carried files with their inode, for the record. */
  carried: Record<string, number>;
  /** Files found in the spare that no build accounts for, kept where they are: the author's from now on. */
  kept: string[];
  /** Such files at a path the new generation holds something else at: moved under `rescueDir`. */
  rescued: string[];
}

/**
 * Makes `dir` hold exactly the author's entries of `from` (hard links), the folders needed, and nothing
 * at the paths the build writes. `dir` may start empty or be the spare: the generation before last, kept
 * after its reconciliation so that the next build changes only what differs instead of making every
 * folder again (on a site generator's output of 10,000 pages, making the folders was most of the
 * build). Whatever `dir` holds that is not wanted goes; an author's file is kept only when it is the
 * same file (inode) as in `from`, or a file of the author's no build accounts for (see `spare`).
 */
export function prepareGeneration(dir: string, from: string | undefined, desired: Desired): Prepared {
  const carried: Record<string, number> = {};
  const present = new Set<string>();
  const tree = [...walkTree(dir)].sort(([a], [b]) => (a < b ? -1 : 1));
  const { kept, rescued, folders } = strays(dir, from, desired, tree);
  // Not in `carried`, which names what came from the current generation (reconcile reads it so).
  for (const path of kept) present.add(path);
  const moved = new Set(rescued);
  let removed: string | undefined;
  for (const [path, entry] of tree) {
    if (removed !== undefined && path.startsWith(`${removed}/`)) continue; // went with its folder
    if (present.has(path) || moved.has(path)) continue;
    const full = nativePath(dir, path);
    if (entry.kind === 'dir') {
      if (desired.folders.has(path) || folders.has(path)) present.add(path);
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
  if (from !== undefined) {
    for (const entry of desired.authors.values()) {
      if (entry.kind === 'dir' || present.has(entry.path)) continue;
      if (carryEntry(from, dir, entry)) carried[entry.path] = entry.ino;
    }
  }
  return { carried, kept, rescued };
}

/**
 * The spare's files no build accounts for: kept in place where nothing else will be (their folders with
 * them), else moved to the rescue folder before anything is removed or written.
 */
function strays(
  dir: string,
  from: string | undefined,
  desired: Desired,
  tree: readonly (readonly [string, Entry])[],
): { kept: string[]; rescued: string[]; folders: Set<string> } {
  const kept: string[] = [];
  const rescued: string[] = [];
  const folders = new Set<string>();
  const { spare } = desired;
  if (!spare) return { kept, rescued, folders };
  for (const [path, entry] of tree) {
    const full = nativePath(dir, path);
    if (entry.kind === 'dir' || spare.accounted(entry, full)) continue;
    const wanted = desired.written.has(path) ? undefined : desired.authors.get(path);
    if (wanted && from !== undefined && sameEntry(entry, wanted, full, nativePath(from, path))) continue;
    if (!wanted && !desired.written.has(path)) {
      kept.push(path);
      for (const parent of parentsOf(path)) folders.add(parent);
      continue;
    }
    const target = nativePath(spare.rescueDir, path);
    try {
      rmSync(target, { recursive: true, force: true });
      mkdirSync(dirname(target), { recursive: true });
      renameSync(full, target);
      rescued.push(path);
    } catch (error) {
      if (!isGone(error)) throw error;
    }
  }
  return { kept, rescued, folders };
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
