import { constants, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import type { OutputFile } from '../core/output/outputs.ts';
import {
  type Current,
  generations,
  keepAsSpare,
  type OutputStep,
  recover,
  retire,
  switchTo,
  takeSpare,
} from './output/generations.ts';
import { textBytes, textDigest, textEncoded, textWritten } from './output/output-text.ts';
import {
  classify,
  conflicts,
  foldersToCarry,
  type GeneratorCopies,
  type Ownership,
} from './output/ownership.ts';
import { generationDir, lockOutput, type OutputPlace, outputPlace, recordFile } from './output/place.ts';
import { type Desired, type Prepared, prepareGeneration } from './output/prepare.ts';
import { reconcile } from './output/reconcile.ts';
import { type OutputRecord, type OwnedFile, sha256, writeRecord } from './output/record.ts';
import { linkOrCopy, nativePath, parentsOf, walkTree } from './output/tree.ts';
import { RACY_MS } from './parse-cache.ts';
import { decideStaticLink } from './static-links.ts';

export type { OutputStep } from './output/generations.ts';

export interface WriteOptions {
  /** The project root: the private folder `.content-index/` lives here. */
  root: string;
  /** The author's folder of files published as they are (the configuration's `static`). */
  staticDir?: string;
  /** The API reference's folder in the output (`docs/`), named in the conflict a page of the site's there makes. */
  apiReference?: string;
  /**
   * Files the site generator copies into the output that the build replaces with its merged version
   * (`_headers`, `_redirects` from Hugo's `static/`): path → the texts the generator's copy may hold.
   */
  generatorCopies?: ReadonlyMap<string, readonly string[]>;
  /** Called after every step that changes the disk (tests kill the build at each one). */
  onStep?: (step: OutputStep) => void;
  /** False (`--no-cache`): every static file is copied again, none trusted by its stamp. Default true. */
  reuseStatic?: boolean;
  /** dev: the large outputs' UTF-8 kept after the write, for the next build's to be made from (output-text.ts). */
  keepEncoded?: boolean;
}

export interface WriteResult {
  written: { path: string; bytes: number }[];
  /** Files an earlier build wrote that this one no longer produces. */
  removed: string[];
  warnings: Problem[];
  /**
   * Those of `warnings` about the inputs (a link in the static folder), which every build of the same
   * inputs says again; the others tell what this write did (a stray file kept, a file rescued).
   */
  standing: Problem[];
}

interface StaticFile {
  path: string;
  source: string;
  shown: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/**
 * Publishes a new output as one generation: a complete folder, made beside the current one, holding
 * the build's files, the static folder's and every file of the author's carried over from the current
 * output (hard links: no bytes copied). The output folder is a link to the current generation; one
 * rename of a new link over it switches readers from the complete old tree to the complete new one.
 * Only files the record says the build wrote (and that are still as it wrote them) are replaced or
 * dropped; a file of the author's where the build writes stops the build before anything is written.
 */
export async function writeOutput(
  outDir: string,
  files: readonly OutputFile[],
  options: WriteOptions,
): Promise<WriteResult> {
  const place = outputPlace(options.root, outDir);
  const step = options.onStep ?? (() => undefined);
  const release = await lockOutput(place);
  let staged: number | undefined;
  let switched = false;
  try {
    const { current, warnings } = await recover(place, step);
    // Before the static files' stamps are taken: a change after this moment is one they may not show.
    const stampedAt = Date.now();
    const standing: Problem[] = [];
    const statics = await staticFiles(options.root, options.staticDir, standing);
    warnings.push(...standing);
    const ownership = await classify(currentDir(current), current.record);
    const copies = await generatorCopies(place, currentDir(current), ownership, options);
    const problems = planProblems(place, ownership, files, statics, {
      unrecorded: current.record === undefined,
      ...(options.apiReference !== undefined && { apiReference: options.apiReference }),
      copies,
    });
    if (problems.length > 0) throw new ContentIndexError(problems);

    const id = ((await generations(place)).at(-1) ?? 0) + 1;
    const dir = generationDir(place, id);
    staged = id;
    const spare = await takeSpare(place, dir);
    if (!spare) await mkdir(dir);
    await mkdir(dirname(place.out), { recursive: true });
    const written = new Set([...files.map((f) => f.path), ...statics.map((f) => f.path)]);
    const folders = foldersToCarry(ownership);
    for (const path of written) for (const parent of parentsOf(path)) folders.add(parent);
    const prepared = prepareGeneration(dir, currentDir(current), {
      authors: ownership.authors,
      folders,
      written,
      ...(spare &&
        current.kind === 'generation' &&
        current.record && { spare: spareAccount(place, { dir: current.dir, record: current.record }) }),
    });
    warnings.push(...strayWarnings(place, prepared));
    const carried = sortKeys(prepared.carried);
    const owned: Record<string, OwnedFile> = {};
    const report: WriteResult['written'] = [];
    const reuse = reusable(current, ownership);
    await inBatches(files, async (file) => {
      const target = nativePath(dir, file.path);
      const hash = textDigest(file);
      const previous = reuse(file.path);
      // An unchanged file is linked from the current generation: same bytes, nothing rewritten.
      if (previous && previous.sha256 === hash && !previous.from) await linkOrCopy(previous.full, target);
      else await writeFile(target, textEncoded(file));
      owned[file.path] = { sha256: hash, ...(await fileStats(target)) };
      report.push({ path: file.path, bytes: textBytes(file) });
    });
    // After them all: two paths of one text (the alias and its version) share its bytes.
    for (const file of files) textWritten(file, options.keepEncoded);
    await inBatches(statics, async (file) => {
      const target = nativePath(dir, file.path);
      const from: NonNullable<OwnedFile['from']> = {
        path: file.shown,
        size: file.size,
        mtimeMs: file.mtimeMs,
        ctimeMs: file.ctimeMs,
        ino: file.ino,
        // A file changed within the file system's time granularity of its copy can change again with
        // the same stamp: like git's racily clean entries, it is compared by content next time.
        ...(Math.max(file.mtimeMs, file.ctimeMs) > stampedAt - RACY_MS && { racy: true }),
      };
      const previous = options.reuseStatic === false ? undefined : reuse(file.path);
      const stamped =
        previous?.from &&
        previous.from.path === from.path &&
        previous.from.size === from.size &&
        previous.from.mtimeMs === from.mtimeMs &&
        previous.from.ctimeMs === from.ctimeMs &&
        previous.from.ino === from.ino;
      const same =
        stamped &&
        previous &&
        (!previous.from?.racy || sha256(await readFile(file.source)) === previous.sha256);
      if (same && previous) {
        await linkOrCopy(previous.full, target);
        owned[file.path] = { sha256: previous.sha256, ...(await fileStats(target)), from };
      } else {
        // Copied, not linked: an edit made through the output folder must not reach the source.
        await copyFile(file.source, target, constants.COPYFILE_FICLONE);
        owned[file.path] = { sha256: sha256(await readFile(target)), ...(await fileStats(target)), from };
      }
    });
    step('staged');

    const record: OutputRecord = { version: 1, generation: id, files: sortKeys(owned), carried };
    await writeRecord(recordFile(place, id), record);
    step('recorded');
    await switchTo(place, dir, current, step);
    switched = true;

    if (current.kind === 'generation') {
      warnings.push(
        ...(await reconcile(place, current.dir, current.record, dir, record, options.generatorCopies)),
      );
      step('reconciled');
      // The build's old files go now, not at the next build: a watcher of one of them (wrangler's, of
      // _headers and _redirects) learns of the new one when the old one it watches is unlinked.
      for (const path of Object.keys(current.record?.files ?? {}))
        await rm(nativePath(current.dir, path), { force: true });
      await keepAsSpare(place, current.dir);
      await rm(recordFile(place, current.id), { force: true });
      step('retired');
    } else if (current.kind === 'folder') {
      // The real folder was renamed aside by the switch; the next lines are what recover() would do.
      await recover(place, () => undefined).then((r) => warnings.push(...r.warnings));
      step('reconciled');
    }
    step('cleaned');

    const removed = [...ownership.ours.keys()].filter((p) => !written.has(p)).sort();
    for (const path of [...ownership.changed].sort()) {
      if (written.has(path)) continue;
      warnings.push({
        code: 'output_conflict',
        file: `${place.shown}/${path}`,
        message:
          'was written by an earlier build and changed since; the build no longer writes it, so it is kept as yours',
        hint: 'delete it if you do not need it',
      });
    }
    report.sort((a, b) => (a.path < b.path ? -1 : 1));
    return { written: report, removed, warnings, standing };
  } catch (error) {
    // Before the switch nothing anyone reads has changed: the unpublished generation goes.
    if (staged !== undefined && !switched) await retire(place, staged).catch(() => undefined);
    throw error;
  } finally {
    await release();
  }
}

/**
 * The spare is the generation before the current one: what the current one carried from it and what
 * the build wrote are accounted for (by inode, or failing that, as after a copy of the project, by
 * being the same file as the current generation's at that path); nothing else should be in it.
 */
function spareAccount(
  place: OutputPlace,
  current: { dir: string; record: OutputRecord },
): NonNullable<Desired['spare']> {
  const { carried, files } = current.record;
  return {
    accounted: (entry, full) =>
      (Object.hasOwn(carried, entry.path) && carried[entry.path] === entry.ino) ||
      (Object.hasOwn(files, entry.path) && files[entry.path]?.ino === entry.ino) ||
      sameFile(full, nativePath(current.dir, entry.path)),
    rescueDir: join(place.state, 'rescued'),
  };
}

/** Whether two paths hold the same bytes (files) or the same target (links). */
function sameFile(a: string, b: string): boolean {
  try {
    const [sa, sb] = [lstatSync(a), lstatSync(b)];
    if (sa.isSymbolicLink() && sb.isSymbolicLink()) return readlinkSync(a) === readlinkSync(b);
    if (!sa.isFile() || !sb.isFile() || sa.size !== sb.size) return false;
    return sa.ino === sb.ino || readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

function strayWarnings(place: OutputPlace, prepared: Prepared): Problem[] {
  const hint = `a shell whose working folder is inside ${place.shown} stays in the build it entered (${place.shown} is a link to the current one): cd into ${place.shown} again`;
  return [
    ...prepared.kept.map((path) => ({
      code: 'output_conflict' as const,
      file: `${place.shown}/${path}`,
      message: `was written into an earlier ${place.shown} after a build had replaced it; it is kept in ${place.shown}`,
      hint,
    })),
    ...prepared.rescued.map((path) => ({
      code: 'output_conflict' as const,
      file: `${place.shown}/${path}`,
      message: `was written into an earlier ${place.shown} after a build had replaced it, at a path taken now; it is kept at ${relative(place.root, join(place.state, 'rescued', ...path.split('/')))}`,
      hint,
    })),
  ];
}

function planProblems(
  place: OutputPlace,
  ownership: Ownership,
  files: readonly OutputFile[],
  statics: readonly StaticFile[],
  {
    unrecorded,
    apiReference,
    copies,
  }: { unrecorded: boolean; apiReference?: string; copies: GeneratorCopies },
): Problem[] {
  const rendered = new Set(files.map((f) => f.path));
  const problems: Problem[] = statics
    .filter((f) => rendered.has(f.path))
    .map((f) => ({
      code: 'output_conflict',
      file: f.shown,
      message: `the build writes ${f.path} itself`,
      hint:
        f.path === '_headers' || f.path === '_redirects'
          ? `move its rules to ${f.path} at the project root, which the build merges into the output`
          : 'move the file or delete it; the build owns this address',
    }));
  const source = new Map(statics.map((f) => [f.path, f.shown]));
  const found = conflicts(place, ownership, [...rendered, ...source.keys()], source, {
    ...(apiReference !== undefined && { apiReference }),
    copies,
  });
  problems.push(...found);
  if (unrecorded && found.length >= 3) {
    // Most likely the output of a content-index from before it kept a record: say so once.
    problems.push({
      code: 'output_conflict',
      file: place.shown,
      message: `holds ${found.length} files where the build writes and no record of a build that wrote them, as an output folder made by content-index before it kept records would`,
      hint: `if so, delete those files (or ${place.shown} itself, if nothing else in it is yours) and build again`,
    });
  }
  return problems;
}

/**
 * Which of the output's `_headers` and `_redirects` are the site generator's copies of its own (Hugo
 * copies `static/_redirects` into `public/` on every run, over the build's merged file): those the build
 * replaces again, with no conflict. For the others, whether a conventional generator folder holds the
 * same bytes (`static/_redirects` in a site whose configuration does not name static/), for the hint.
 */
async function generatorCopies(
  place: OutputPlace,
  dir: string | undefined,
  ownership: Ownership,
  options: WriteOptions,
): Promise<GeneratorCopies> {
  const replaceable = new Set<string>();
  const likelySource = new Map<string, string>();
  const copies: GeneratorCopies = { replaceable, likelySource };
  if (dir === undefined) return copies;
  for (const name of ['_headers', '_redirects']) {
    const entry = ownership.authors.get(name);
    if (entry?.kind !== 'file') continue;
    const text = await readFile(nativePath(dir, name), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    if (options.generatorCopies?.get(name)?.includes(text)) {
      replaceable.add(name);
      continue;
    }
    for (const folder of GENERATOR_FOLDERS) {
      // Astro's public/ is a source; a Hugo site's public/ is this very output.
      if (resolve(options.root, folder) === place.out) continue;
      const source = await readFile(join(options.root, folder, name), 'utf8').catch(() => undefined);
      if (source === text) likelySource.set(name, folder);
    }
  }
  return copies;
}

/** Where site generators keep the files they copy into the output: Hugo's static/, Astro's public/. */
const GENERATOR_FOLDERS = ['static', 'public'];

function currentDir(current: Current): string | undefined {
  return current.kind === 'none' ? undefined : current.dir;
}

/** A file of the current output the new generation may link instead of writing again. */
function reusable(
  current: Current,
  ownership: Ownership,
): (path: string) => (OwnedFile & { full: string }) | undefined {
  const dir = currentDir(current);
  return (path) => {
    const owned = current.record?.files[path];
    if (!dir || !owned || !ownership.ours.has(path)) return undefined;
    return { ...owned, full: nativePath(dir, path) };
  };
}

async function staticFiles(
  root: string,
  dir: string | undefined,
  warnings: Problem[],
): Promise<StaticFile[]> {
  if (dir === undefined) return [];
  const found: StaticFile[] = [];
  const refused: Problem[] = [];
  for (const entry of (await walkTree(dir)).values()) {
    if (entry.kind === 'dir' || entry.kind === 'other') continue;
    const source = nativePath(dir, entry.path);
    const shown = relative(root, source).split('\\').join('/');
    let stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number } | undefined;
    if (entry.kind === 'link') {
      const link = await decideStaticLink(root, dir, source, shown);
      if (link.kind === 'refused') refused.push(link.problem);
      else if (link.kind === 'skipped') warnings.push(link.warning);
      else stats = link;
    } else {
      stats = await stat(source).catch(() => undefined);
    }
    if (!stats) continue;
    found.push({
      path: entry.path,
      source,
      shown,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      ino: stats.ino,
    });
  }
  if (refused.length > 0) throw new ContentIndexError(refused);
  return found.sort((a, b) => (a.path < b.path ? -1 : 1));
}

async function fileStats(path: string): Promise<{ size: number; ino: number; mtimeMs: number }> {
  const s = await stat(path);
  return { size: s.size, ino: s.ino, mtimeMs: s.mtimeMs };
}

/** Runs `task` over `items`, a bounded number at a time (enough to keep the file system busy). */
async function inBatches<T>(
  items: readonly T[],
  task: (item: T) => Promise<void>,
  width = 32,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}
