import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ContentIndexError, type Problem } from '../../core/errors.ts';
import { generationDir, type OutputPlace, recordFile, transientPath } from './place.ts';
import { isRunning, markState, parseMark } from './process-mark.ts';
import { reconcile } from './reconcile.ts';
import { isStillOurs, type OutputRecord, readRecord, writeRecord } from './record.ts';
import { isGone, nativePath, walkTree } from './tree.ts';

/** What the output folder is now. */
export type Current =
  /** A link to one of our generations. */
  | { kind: 'generation'; id: number; dir: string; record: OutputRecord | undefined }
  /** A real folder: before the first build, or a site generator (re)created it. */
  | { kind: 'folder'; dir: string; record: OutputRecord | undefined }
  | { kind: 'none'; record: undefined };

/** Called after each step that changes the disk, so a test can kill the build at every one of them. */
export type OutputStep =
  | 'recovered'
  | 'staged'
  | 'recorded'
  | 'moved-aside'
  | 'switched'
  | 'reconciled'
  | 'retired'
  | 'cleaned';

const GENERATION = /^gen-(\d+)$/;
const PREVIOUS_RECORD = 'previous.json';

export async function generations(place: OutputPlace): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(place.state);
  } catch (error) {
    if (isGone(error)) return [];
    throw error;
  }
  return names
    .map((n) => GENERATION.exec(n)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Reads what the output folder is, without changing anything. */
export async function inspect(place: OutputPlace): Promise<Current> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(place.out);
  } catch (error) {
    if (isGone(error)) return { kind: 'none', record: undefined };
    throw error;
  }
  if (stats.isSymbolicLink()) {
    const target = resolve(dirname(place.out), await readlink(place.out));
    const id = dirname(target) === place.state ? GENERATION.exec(basename(target))?.[1] : undefined;
    if (id === undefined) {
      throw new ContentIndexError([
        {
          code: 'output_conflict',
          file: place.shown,
          message: `is a link to ${target} that content-index did not make; the build makes the output folder a link it owns`,
          hint: 'point --out at a folder of its own (a new one, or the real folder itself), or remove the link',
        },
      ]);
    }
    const exists = await lstat(target).then(
      (s) => s.isDirectory(),
      () => false,
    );
    // A link to a generation that is gone (the private folder was deleted): nothing is left to keep.
    if (!exists) return { kind: 'none', record: undefined };
    return {
      kind: 'generation',
      id: Number(id),
      dir: target,
      record: await readRecord(recordFile(place, Number(id))),
    };
  }
  if (stats.isDirectory()) {
    // Files the last generation recorded, if a copy of them is here, are still recognised by their bytes.
    const ids = await generations(place);
    const last = ids.at(-1);
    const record = last === undefined ? undefined : await readRecord(recordFile(place, last));
    return { kind: 'folder', dir: place.out, record };
  }
  throw new ContentIndexError([
    {
      code: 'output_conflict',
      file: place.shown,
      message: 'is a file; the output folder must be a folder',
      hint: 'move the file away, or choose another output folder with --out',
    },
  ]);
}

/**
 * Finishes or undoes whatever a killed build left, so that every build starts from one published
 * generation (or a real folder) and nothing else: a generation that was never published is deleted;
 * one that was published before the current one (the build was killed after the switch) is reconciled
 * into the current one, then deleted; a real output folder left aside in the middle of becoming a link
 * is put behind the link that was about to replace it.
 */
export async function recover(
  place: OutputPlace,
  onStep: (step: OutputStep) => void,
): Promise<{ current: Current; warnings: Problem[] }> {
  const warnings: Problem[] = [];
  await removeTransients(place);
  const asideRecord = await readRecord(join(place.state, PREVIOUS_RECORD));
  let current = await inspect(place);
  if (current.kind === 'none' && (await exists(place.aside))) {
    const ids = await generations(place);
    const id = ids.at(-1);
    const record = id === undefined ? undefined : await readRecord(recordFile(place, id));
    if (id !== undefined && record) await pointAt(place, generationDir(place, id));
    else await rename(place.aside, place.out);
    current = await inspect(place);
  }
  for (const id of await generations(place)) {
    if (current.kind === 'generation' && id === current.id) continue;
    const dir = generationDir(place, id);
    if (current.kind === 'generation' && id < current.id && current.record) {
      warnings.push(
        ...(await reconcile(
          place,
          dir,
          await readRecord(recordFile(place, id)),
          current.dir,
          current.record,
        )),
      );
    }
    await retire(place, id);
  }
  if (await exists(place.aside)) {
    if (current.kind === 'generation' && current.record) {
      warnings.push(...(await reconcile(place, place.aside, asideRecord, current.dir, current.record)));
      // As after every switch, the build's old files go: a spare holds only what the next build can account for.
      const left = walkTree(place.aside);
      for (const [path, owned] of Object.entries(asideRecord?.files ?? {})) {
        const entry = left.get(path);
        if (entry && (await isStillOurs(entry, owned, nativePath(place.aside, path))))
          await rm(nativePath(place.aside, path), { force: true });
      }
      await keepAsSpare(place, place.aside);
    } else {
      warnings.push({
        code: 'output_conflict',
        file: relative(place.root, place.aside),
        message: `holds the previous ${place.shown} folder, left there when a build was stopped; nothing in it was deleted`,
        hint: `copy what you need from it into ${place.shown}, then delete it`,
      });
    }
  }
  await rm(join(place.state, PREVIOUS_RECORD), { force: true });
  await removeTrash(place);
  onStep('recovered');
  return { current, warnings };
}

/**
 * Makes `out` the link to `dir`, in one rename where the platform allows it. A real folder in the way
 * cannot be replaced by a link in one step: it is renamed aside first (two renames back to back; a
 * build killed between them leaves no output folder until the next build finishes the switch).
 */
export async function switchTo(
  place: OutputPlace,
  dir: string,
  current: Current,
  onStep: (step: OutputStep) => void,
): Promise<void> {
  if (current.kind === 'folder') {
    if (current.record) await writeRecord(join(place.state, PREVIOUS_RECORD), current.record);
    await rename(place.out, place.aside);
    onStep('moved-aside');
  }
  await pointAt(place, dir);
  onStep('switched');
}

async function pointAt(place: OutputPlace, dir: string): Promise<void> {
  if (process.platform === 'win32') {
    // Windows cannot rename over a directory junction: remove it, then make the new one (not atomic).
    await unlink(place.out).catch((error) => {
      if (!isGone(error)) throw error;
    });
    await symlink(dir, place.out, 'junction');
    return;
  }
  const staged = transientPath(place, 'link');
  await symlink(relative(dirname(place.out), dir), staged, 'dir');
  await rename(staged, place.out);
}

/** Where the generation before last waits to be made into the next one (see prepare.ts). */
export function spareDir(place: OutputPlace): string {
  return join(place.state, 'spare');
}

/** Renames the spare to `dir`; false when there is none. */
export async function takeSpare(place: OutputPlace, dir: string): Promise<boolean> {
  try {
    await rename(spareDir(place), dir);
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

/**
 * Keeps a reconciled old tree as the spare (one rename) rather than deleting it file by file. On
 * another file system than the private folder (a real output folder left aside) it is deleted.
 */
export async function keepAsSpare(place: OutputPlace, dir: string): Promise<void> {
  const spare = spareDir(place);
  if (await exists(spare)) await removeTree(place, spare);
  try {
    await rename(dir, spare);
  } catch (error) {
    if (isGone(error)) return;
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await removeTree(place, dir);
  }
}

/** Deletes a generation and its record: renamed to a trash name first, so a half-deleted one is never mistaken for a generation. */
export async function retire(place: OutputPlace, id: number): Promise<void> {
  const dir = generationDir(place, id);
  const trash = join(place.state, `trash-${id}-${randomBytes(4).toString('hex')}`);
  await rename(dir, trash).catch((error) => {
    if (!isGone(error)) throw error;
  });
  await rm(recordFile(place, id), { force: true });
  await rm(trash, { recursive: true, force: true });
}

async function removeTree(place: OutputPlace, dir: string): Promise<void> {
  const trash = transientPath(place, 'trash');
  await rename(dir, trash);
  await rm(trash, { recursive: true, force: true });
}

async function removeTransients(place: OutputPlace): Promise<void> {
  const parent = dirname(place.out);
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    if (name.startsWith(`${place.transientPrefix}link-`) || name.startsWith(`${place.transientPrefix}trash-`))
      await rm(join(parent, name), { recursive: true, force: true });
  }
}

async function removeTrash(place: OutputPlace): Promise<void> {
  for (const name of await readdir(place.state).catch(() => [] as string[])) {
    const pid = /\.json\.tmp-(\d+)$/.exec(name)?.[1];
    const leftover =
      name.startsWith('trash-') ||
      (pid !== undefined && !isRunning(Number(pid))) ||
      (/^lock\.\d+-/.test(name) && (await lockerGone(join(place.state, name))));
    if (leftover) await rm(join(place.state, name), { recursive: true, force: true });
  }
}

/** A would-be lock's private file (place.ts) whose writer has ended: it holds the writer's mark. */
async function lockerGone(file: string): Promise<boolean> {
  const mark = parseMark(await readFile(file, 'utf8').catch(() => ''));
  return mark !== undefined && markState(mark) === 'gone';
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

export async function ensureState(place: OutputPlace): Promise<void> {
  await mkdir(place.state, { recursive: true });
}
