import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { LANDING_PAGE_MARKER, LANDING_PAGE_PATH } from '../core/discovery/landing-page.ts';
import { ContentIndexError } from '../core/errors.ts';
import { isOwnedPath, type OutputFile } from '../core/outputs.ts';

export interface WriteResult {
  written: { path: string; bytes: number }[];
  removed: string[];
}

/**
 * Writes every file into a staging folder beside `outDir` first; only when all of them are on disk are
 * they renamed into place (same filesystem, so each rename is atomic). A failure while staging leaves
 * `outDir` exactly as it was. Files the build does not own are never touched; owned files that the new
 * build no longer produces are removed.
 */
export async function writeOutput(outDir: string, files: readonly OutputFile[]): Promise<WriteResult> {
  const staging = join(dirname(outDir), `.${basename(outDir)}.staging-${randomBytes(4).toString('hex')}`);
  const written: WriteResult['written'] = [];
  if (files.some((f) => f.path === LANDING_PAGE_PATH)) await refuseForeignLandingPage(outDir);
  try {
    for (const file of files) {
      if (!isOwnedPath(file.path))
        throw new Error(`refusing to write ${file.path}: not a path the build owns`);
      const target = join(staging, file.path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.content);
      written.push({ path: file.path, bytes: Buffer.byteLength(file.content) });
    }
    const previous = await listOwned(outDir);
    await mkdir(outDir, { recursive: true });
    await swapIn(
      staging,
      outDir,
      files.map((f) => f.path),
      new Set(previous),
    );
    const current = new Set(files.map((f) => f.path));
    const removed = previous.filter((p) => !current.has(p));
    for (const path of removed) await rm(join(outDir, path), { force: true });
    await pruneEmptyDirs(outDir, removed);
    return { written, removed };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Renames each staged file over its target, moving the old file aside first. Should a rename fail half
 * way (a permission, a full inode table), everything swapped so far is put back: the output is either
 * the old build or the new one, never a mix.
 */
async function swapIn(
  staging: string,
  outDir: string,
  paths: readonly string[],
  existing: ReadonlySet<string>,
) {
  const aside = join(staging, '.previous');
  const done: string[] = [];
  const restore = (path: string) => rename(join(aside, path), join(outDir, path)).catch(() => undefined);
  try {
    for (const path of paths) {
      const target = join(outDir, path);
      await mkdir(dirname(target), { recursive: true });
      const replaces = existing.has(path);
      if (replaces) {
        await mkdir(dirname(join(aside, path)), { recursive: true });
        await rename(target, join(aside, path));
      }
      try {
        await rename(join(staging, path), target);
      } catch (error) {
        if (replaces) await restore(path);
        throw error;
      }
      done.push(path);
    }
  } catch (error) {
    for (const path of done.reverse()) {
      await rm(join(outDir, path), { force: true });
      if (existing.has(path)) await restore(path);
    }
    throw error;
  }
}

async function listOwned(outDir: string): Promise<string[]> {
  const owned: string[] = [];
  async function walk(dir: string, prefix: string): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(dir, entry.name), path);
      else if (path === LANDING_PAGE_PATH) {
        if (await isLandingPage(join(dir, entry.name))) owned.push(path);
      } else if (isOwnedPath(path)) owned.push(path);
    }
  }
  await walk(outDir, '');
  return owned.sort();
}

/** Whether `file` is the build's landing page (its marker sits in the first few hundred bytes). */
async function isLandingPage(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).toString('utf8').includes(LANDING_PAGE_MARKER);
  } finally {
    await handle.close();
  }
}

/** `landingPage: true` never replaces a home page the author put in the output folder. */
async function refuseForeignLandingPage(outDir: string): Promise<void> {
  const file = join(outDir, LANDING_PAGE_PATH);
  const exists = await open(file, 'r').then(
    (h) => h.close().then(() => true),
    () => false,
  );
  if (exists && !(await isLandingPage(file))) {
    throw new ContentIndexError([
      {
        code: 'output_failed',
        file: `${basename(outDir)}/${LANDING_PAGE_PATH}`,
        field: 'landingPage',
        message: 'is a page the build did not write; it was left as it is and nothing was written',
        hint: 'keep your page and remove landingPage from site.config.ts, or move your page elsewhere',
      },
    ]);
  }
}

async function pruneEmptyDirs(outDir: string, removed: readonly string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const path of removed) {
    for (let d = posix.dirname(path); d !== '.'; d = posix.dirname(d)) dirs.add(d);
  }
  // Deepest first, so a parent is tried after its children.
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    await rmdir(join(outDir, dir)).catch(() => undefined);
  }
}
