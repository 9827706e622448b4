import { lstat, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Problem } from '../../core/errors.ts';
import type { OutputPlace } from './place.ts';
import { isStillOurs, type OutputRecord } from './record.ts';
import { type Entry, isGone, nativePath, walkTree } from './tree.ts';

/**
 * After the output folder switched from `oldDir` to `newDir`, brings over what the author did to the
 * old folder while the build ran, so nothing written there is lost:
 * - a file created in the old folder moves into the new one;
 * - a file the author replaced in the old folder replaces the untouched copy carried into the new one;
 * - a file the author deleted from the old folder is deleted from the new one, if its copy there is
 *   untouched.
 * What the old build wrote is left behind. A file the author put at a path the new build owns cannot
 * go into the new folder without replacing the build's file: it is kept in the private folder and
 * reported. Returns those reports.
 */
export async function reconcile(
  place: OutputPlace,
  oldDir: string,
  oldRecord: OutputRecord | undefined,
  newDir: string,
  newRecord: OutputRecord,
  /** The site generator's copies of files the build merges in (write.ts): left behind, not rescued. */
  generatorCopies?: ReadonlyMap<string, readonly string[]>,
): Promise<Problem[]> {
  const warnings: Problem[] = [];
  const old = walkTree(oldDir);
  const paths = [...old.keys()].sort();
  const nonEmpty = new Set(paths.map((p) => p.slice(0, Math.max(0, p.lastIndexOf('/')))));
  // Folders the new generation has: those of every file carried or written into it.
  const made = new Set<string>();
  for (const path of [...Object.keys(newRecord.carried), ...Object.keys(newRecord.files)]) {
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) made.add(path.slice(0, i));
  }
  for (const path of paths) {
    const entry = old.get(path) as Entry;
    // The usual case, decided without a system call: carried as it is, so the same file in both.
    if (entry.kind !== 'dir' && newRecord.carried[path] === entry.ino) continue;
    const owned = oldRecord?.files[path];
    if (owned && (await isStillOurs(entry, owned, nativePath(oldDir, path)))) continue;
    const target = nativePath(newDir, path);
    if (entry.kind === 'dir') {
      // Files are brought over one by one below (with their folders); an empty folder made meanwhile too.
      if (!made.has(path) && !nonEmpty.has(path) && !(await lstatOrUndefined(target)))
        await mkdir(target, { recursive: true });
      continue;
    }
    const present = await lstatOrUndefined(target);
    if (!present) {
      if (newRecord.carried[path] === entry.ino) continue; // carried, then deleted from the new folder
      if (newRecord.files[path] !== undefined) continue; // the new build's file vanished: not the author's to get back
      await moveInto(nativePath(oldDir, path), target);
      continue;
    }
    if (present.ino === entry.ino) continue;
    if (newRecord.files[path] !== undefined) {
      // A generator run meanwhile (hugo --watch beside dev) rewrote its copy: the next build merges it.
      const copies = generatorCopies?.get(path);
      if (copies?.includes(await readFile(nativePath(oldDir, path), 'utf8').catch(() => ''))) continue;
      warnings.push(await rescue(place, oldDir, path));
      continue;
    }
    if (newRecord.carried[path] === present.ino) {
      // The new folder still has the copy carried before the author replaced the file in the old one.
      await rename(nativePath(oldDir, path), target).catch(ignoreGone);
    }
    // Otherwise the author changed it in the new folder after the switch: that is the newer one.
  }
  for (const [path, ino] of Object.entries(newRecord.carried)) {
    if (old.has(path)) continue;
    const target = nativePath(newDir, path);
    const present = await lstatOrUndefined(target);
    if (present?.ino === ino) await rm(target, { force: true }); // deleted from the old folder during the build
  }
  return warnings;
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if (isGone(error)) return undefined;
    throw error;
  }
}

async function moveInto(from: string, to: string): Promise<boolean> {
  try {
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

function ignoreGone(error: unknown): void {
  if (!isGone(error)) throw error;
}

async function rescue(place: OutputPlace, oldDir: string, path: string): Promise<Problem> {
  const kept = join(place.state, 'rescued', ...path.split('/'));
  await rm(kept, { force: true, recursive: true });
  await moveInto(nativePath(oldDir, path), kept);
  return {
    code: 'output_conflict',
    file: `${place.shown}/${path}`,
    message: `was written into the output folder during the build, at a path the build owns; it is kept at ${relative(place.root, kept)}`,
    hint: 'move it where it belongs (for _headers and _redirects: the file of that name at the project root) and build again',
  };
}
