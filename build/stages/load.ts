import { hash } from 'node:crypto';
import { type Dirent, lstatSync, readdir as readdirCallback, readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import type { ContentLayout } from '../core/config/site-config.ts';
import type { CompileGlob } from '../core/content/cascade.ts';
import { createKeyFolder } from '../core/content/front-matter.ts';
import { globBase, type Location, locate, unknownLanguage } from '../core/content/layout.ts';
import type { BranchFile, FollowedLink, SourceFile, UnreadableSource } from '../core/content/model.ts';
import { CONTENT_TYPES, type ContentType, type Language, normalizeLanguage } from '../core/edge/languages.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import { linkProblems, linkWatcher } from './content-links.ts';
import { within } from './output/tree.ts';
import { keyLines } from './parse/key-lines.js';
import type { ParseOutcome, ParseTask } from './parse/parse-chunk.js';
import type { ParsedSource } from './parse/parse-source.js';
import { headHash, readHead, readWhole, sourceHash } from './parse/read-head.js';
import {
  type ParseCache,
  pendingBody,
  releaseBody,
  type Stamp,
  sameStamp,
  spoolBody,
  statStamp,
} from './parse-cache.ts';
import {
  type BodySpooling,
  type ParseFilesOptions,
  parseFilesHashed,
  readBodies,
  spoolFor,
} from './parse-files.ts';

export interface LoadOptions {
  root: string;
  layout: ContentLayout;
  /** Overrides `layout.dir` (the CLI's --content). */
  content?: string;
  /** Files larger than this are refused before they are read. */
  maxFileBytes: number;
  /** Read each file's body too, reduced to its words (MCP search, `mcp.bodies`). */
  bodies?: boolean;
  /** From this many files on, parsing is shared with a worker thread. */
  parallelThreshold?: number;
  /** Folders never read as content (absolute): the output folder and the private folder, when inside it. */
  exclude?: readonly string[];
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

const INDEX_FILE = /^index(\.[^./]+)?\.(md|markdown|mdx)$/i;

interface Found {
  relPath: string;
  type: ContentType;
  base: string;
}

/** The content files a build reads, as found by the layout's globs. */
export interface Listing {
  /** What the listing was made from: the content folder, the layout, the folders left out. */
  key: string;
  tasks: (ParseTask & { location: Location })[];
  /** The `_index` files, read at every build (few, and a change to one reaches many pages). */
  branches: { path: string; absolute: string; dir: string; lang?: Language }[];
  problems: Problem[];
  /** Links among the content that lead nowhere a page could be: reported, never followed. */
  warnings: Problem[];
  /** Links the build read through (inside the project), for the report. */
  links: FollowedLink[];
  /**
   * Every folder the listing looked in (and the content folder and each glob's base, there or not),
   * with its stamp before it was read: a file added, removed or renamed changes its folder's.
   */
  folders: [path: string, stamp: Stamp | null][];
  /** When the listing started (ms): a folder changed just before may not show it yet (RACY_MS). */
  at: number;
}

/**
 * Whether a listing still lists what the folders hold: made with these options, following no link,
 * and every folder it looked in as it was then (by a stamp old enough to be trusted).
 */
export function listingCurrent(
  listing: Omit<Listing, 'tasks'>,
  options: LoadOptions,
  racyMs: number,
): boolean {
  if (listing.key !== listingKey(options) || listing.links.length > 0 || listing.warnings.length > 0)
    return false;
  return listing.folders.every(([path, then]) => asListed(then, statStamp(path) ?? null, listing.at, racyMs));
}

/**
 * Whether a folder is as a listing made at `at` found it: the same stamp (or still none), taken long
 * enough after its last change for a change in the same tick to show.
 */
function asListed(then: Stamp | null, now: Stamp | null, at: number, racyMs: number): boolean {
  return sameOrNone(then, now) && (then === null || Math.max(then.mtimeMs, then.ctimeMs) <= at - racyMs);
}

/**
 * The hash a file is known by (its front matter's, or with `bodies` the whole file's:
 * parse/read-head.js), read now: how a file whose stamp is too recent to trust is told unchanged.
 * Undefined when it cannot be read.
 */
export function fileHash(path: string, maxFileBytes: number, bodies: boolean): string | undefined {
  try {
    if (!bodies) return headHash(readHead(path, maxFileBytes).text);
    const whole = readWhole(path, maxFileBytes);
    return sourceHash(whole);
  } catch {
    return undefined;
  }
}

/**
 * Whether a listing was made with these options and holds every one of `paths` (absolute), none of them
 * a bundle's page that is gone (the files beside it are pages of their own then, which it never listed).
 */
export function listingHolds(listing: Listing, options: LoadOptions, paths: Iterable<string>): boolean {
  if (listing.key !== listingKey(options)) return false;
  const absolute = listedPaths(listing);
  for (const path of paths) if (!absolute.has(path) || bundlePageGone(path)) return false;
  return true;
}

/** The absolute paths of a listing's files (made once per listing). */
export function listedPaths(listing: Listing): ReadonlySet<string> {
  let absolute = LISTED.get(listing.tasks);
  if (!absolute) {
    absolute = new Set(listing.tasks.map((task) => task.absolute));
    LISTED.set(listing.tasks, absolute);
  }
  return absolute;
}

function bundlePageGone(path: string): boolean {
  if (!INDEX_FILE.test(basename(path))) return false;
  try {
    lstatSync(path);
    return false;
  } catch {
    return true;
  }
}

// Each listing's files, made once: dev asks at every save, of the listing it keeps (25,900 files at
// 10,000 items).
const LISTED = new WeakMap<Listing['tasks'], Set<string>>();

/**
 * `listing` with the pages among `changed` (absolute paths, dev's watcher's) that it does not hold
 * added in their places, when each of those is a plain new page: a file (not a link, not a folder) in a
 * folder the listing looked in, not a list page (`_index.md`), not a bundle's page (`index.md`) nor
 * inside a bundle, of a place the layout reads without a problem. Anything else (a folder moved in or
 * away, a link, a list page, a bundle, a language the site skips, a page two types' globs select)
 * gives undefined: the folders are listed again. A post added to a site of 10,000 items listed 25,900
 * files again, some 500 ms of a save whose edit takes 200.
 */
export async function patchedListing(
  listing: Listing,
  options: LoadOptions,
  changed: Iterable<string>,
): Promise<Listing | undefined> {
  if (!patchable(listing, options)) return undefined;
  const { layout } = options;
  // A file of a skipped language is listed as no task, but may still make its folder a bundle.
  if (layout.skipLanguages.length > 0) return undefined;
  const held = listedPaths(listing);
  const folders = new Set(listing.folders.map(([path]) => path));
  const { dir: contentDir, shown: displayRoot } = contentFolder(options);
  const added: Listing['tasks'] = [];
  let matchers: { type: ContentType; base: string; match: (path: string) => boolean }[] | undefined;
  for (const path of changed) {
    if (held.has(path)) {
      if (bundlePageGone(path)) return undefined;
      continue;
    }
    if (folders.has(path)) return undefined;
    // Outside the content folder (the configuration, the static folder), or left out: not the listing's.
    const relPath = within(contentDir, path);
    if (!relPath || options.exclude?.some((dir) => within(dir, path) !== undefined)) continue;
    let found: ReturnType<typeof lstatSync> | undefined;
    try {
      found = lstatSync(path);
    } catch {
      continue; // gone, and never listed: an editor's temporary file
    }
    if (!found.isFile() || !folders.has(dirname(path))) return undefined;
    const name = posix.basename(relPath);
    if (name.startsWith('_') || INDEX_FILE.test(name)) return undefined;
    if (!matchers) {
      const { default: picomatch } = await import('picomatch');
      matchers = CONTENT_TYPES.flatMap((type) =>
        layout.types[type].map((glob) => ({
          type,
          base: globBase(glob),
          match: picomatch(glob, { nocase: true }),
        })),
      );
    }
    const matched = matchers.filter((m) => m.match(relPath));
    const first = matched[0];
    if (!first) continue; // no type's page
    if (matched.some((m) => m.type !== first.type)) return undefined;
    if (insideBundle(posix.dirname(relPath), bundlesOf(listing, contentDir))) continue;
    const location = locate(relPath, first.type, first.base, layout);
    if (!('type' in location)) return undefined;
    added.push({ path: displayRoot ? `${displayRoot}/${relPath}` : relPath, absolute: path, location });
  }
  if (added.length === 0) return listing;
  // Each in the listing's order (by path below the content folder), found by halving.
  const tasks = [...listing.tasks];
  for (const task of added) {
    let [low, high] = [0, tasks.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((tasks[middle] as Listing['tasks'][number]).path < task.path) low = middle + 1;
      else high = middle;
    }
    tasks.splice(low, 0, task);
  }
  return { ...listing, tasks };
}

/**
 * `listing` brought up to date by reading again only the folders whose stamp changed since it was made
 * (a build in a process of its own, with no watcher to name the files): the pages added to them put in
 * as dev's saves put them (patchedListing), the pages gone from them taken out. Undefined when a folder
 * was added, removed or replaced, a list page went, or an added file is not a plain new page: the
 * folders are listed again. A post added to the 10k site's 15,600-file `posts/` read that one folder,
 * not the 25,900 files of the three.
 */
export async function relistedFolders(
  listing: Listing,
  options: LoadOptions,
  /** A folder whose stamp is this close to the listing's making is read again, its stamp the same. */
  racyMs: number,
): Promise<Listing | undefined> {
  if (!patchable(listing, options)) return undefined;
  const at = Date.now();
  const folders: Listing['folders'] = listing.folders.map(([folder]) => [folder, statStamp(folder) ?? null]);
  // The unchanged check asks first, then the build: the same folders as they were then, the same answer.
  const asked = RELISTED.get(listing);
  if (asked?.folders.every(([, stamp], i) => sameOrNone(stamp, folders[i]?.[1] ?? null)))
    return asked.relisted;
  const relisted = await relisting(listing, options, folders, at, racyMs);
  RELISTED.set(listing, { folders, relisted });
  return relisted;
}

const RELISTED = new WeakMap<Listing, { folders: Listing['folders']; relisted: Listing | undefined }>();

function sameOrNone(a: Stamp | null, b: Stamp | null): boolean {
  return a === null || b === null ? a === b : sameStamp(a, b);
}

async function relisting(
  listing: Listing,
  options: LoadOptions,
  folders: Listing['folders'],
  at: number,
  racyMs: number,
): Promise<Listing | undefined> {
  const known = new Set(listing.folders.map(([path]) => path));
  const added: string[] = [];
  const gone = new Set<string>();
  let changedFolders = 0;
  for (const [i, [folder, then]] of listing.folders.entries()) {
    const now = folders[i]?.[1] ?? null;
    // A folder the layout names and the site does not have (no `projects/`) is as it was: still none.
    if (asListed(then, now, listing.at, racyMs)) continue;
    if (now === null || then === null) return undefined;
    changedFolders++;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const present = new Set<string>();
    for (const entry of entries) {
      const path = join(folder, entry.name);
      present.add(path);
      if (entry.isDirectory()) {
        if (!known.has(path)) return undefined; // a folder moved in or made: listed again whole
      } else added.push(path);
    }
    // A folder gone is told by its own stamp; a list page gone changes the pages below it.
    for (const branch of listing.branches)
      if (dirname(branch.absolute) === folder && !present.has(branch.absolute)) return undefined;
    const inside = folder + sep;
    for (const task of listing.tasks) {
      const path = task.absolute;
      if (!path.startsWith(inside) || path.includes(sep, inside.length) || present.has(path)) continue;
      // A bundle's page gone: the files beside it are pages of their own.
      if (INDEX_FILE.test(basename(path))) return undefined;
      gone.add(path);
    }
  }
  if (changedFolders === 0) return { ...listing, folders, at };
  const patched = await patchedListing(listing, options, added);
  if (!patched) return undefined;
  const tasks = gone.size === 0 ? patched.tasks : patched.tasks.filter((task) => !gone.has(task.absolute));
  return { ...patched, tasks, folders, at };
}

/** A listing made with these options, whole: no link read through or warned of, no problem. */
function patchable(listing: Listing, options: LoadOptions): boolean {
  return (
    listing.key === listingKey(options) &&
    listing.links.length === 0 &&
    listing.warnings.length === 0 &&
    listing.problems.length === 0
  );
}

/** The folders of a listing's bundles (those with an `index.md`), below the content folder. */
function bundlesOf(listing: Listing, contentDir: string): Set<string> {
  let bundles = BUNDLES.get(listing.tasks);
  if (!bundles) {
    bundles = new Set();
    for (const task of listing.tasks)
      if (INDEX_FILE.test(basename(task.absolute)))
        bundles.add(relative(contentDir, dirname(task.absolute)).split(sep).join('/'));
    BUNDLES.set(listing.tasks, bundles);
  }
  return bundles;
}

const BUNDLES = new WeakMap<Listing['tasks'], Set<string>>();

export interface ReadOptions {
  layout: ContentLayout;
  maxFileBytes: number;
  /** Read each file's body too, reduced to its words (MCP search, `mcp.bodies`). */
  bodies: boolean;
  parallelThreshold?: number;
  cache?: ParseCache;
  /** With a cache: the only files (absolute paths) that may have changed since its last build (dev). */
  only?: ReadonlySet<string>;
  /** With `bodies`: where the bodies of many files read at once wait until asked for (parse-files.ts). */
  spooling?: BodySpooling;
}

export interface Read {
  /** The files that could be read, in the tasks' order. */
  files: SourceFile[];
  problems: Problem[];
  unreadable: UnreadableSource[];
  /**
   * Each read file's hash, by path: of its front matter (read-head.js headHash), or of the whole file
   * when bodies are read (sourceHash).
   */
  hashes: Map<string, string>;
  /** Listed files that were gone by the time they were read (moved or deleted meanwhile). */
  gone: number;
  /** Each read file's stamp, by path: as its read opened it, or as the parse cache found it. */
  stamps: Map<string, Stamp>;
}

/** Reads the front matter (and with `bodies`, the body) of the listed files and tells their language. */
export async function readSources(tasks: Listing['tasks'], options: ReadOptions): Promise<Read> {
  const parseOptions: ParseFilesOptions = { maxFileBytes: options.maxFileBytes, bodies: options.bodies };
  if (options.parallelThreshold !== undefined) parseOptions.parallelThreshold = options.parallelThreshold;
  if (options.cache) parseOptions.cache = options.cache;
  if (options.cache && options.only) parseOptions.only = options.only;
  if (options.spooling) parseOptions.spooling = options.spooling;
  return sourceFilesOf(
    tasks,
    await parseFilesHashed(tasks, parseOptions),
    options.layout,
    options.maxFileBytes,
  );
}

function sourceFilesOf(
  tasks: Listing['tasks'],
  outcomes: readonly { outcome: ParseOutcome; hash: string | undefined; stamp?: Stamp | undefined }[],
  layout: ContentLayout,
  maxFileBytes: number,
): Read {
  const problems: Problem[] = [];
  const files: SourceFile[] = [];
  const unreadable: UnreadableSource[] = [];
  const hashes = new Map<string, string>();
  const stamps = new Map<string, Stamp>();
  let gone = 0;
  const fold = createKeyFolder(layout.language === 'field' ? [layout.languageField] : []);
  const foldKey = layout.language === 'field' ? `field:${layout.languageField}` : layout.language;
  for (const [i, { outcome, hash, stamp }] of outcomes.entries()) {
    const task = tasks[i];
    if (!task) continue;
    if (stamp) stamps.set(task.path, stamp);
    const { type, name } = task.location;
    if ('code' in outcome) {
      // Deleted after it was listed (dev, while a folder is removed): left out, as if deleted before.
      if (outcome.code === 'source_gone') {
        gone++;
        continue;
      }
      const { translationKey, ...problem } = outcome;
      problems.push(problem);
      unreadable.push({ type, name, lang: task.location.lang, translationKey });
      continue;
    }
    if (hash !== undefined) hashes.set(task.path, hash);
    // Dev: an unchanged file keeps its parsed object (parse-cache.ts), and so its SourceFile, which
    // what assemble works out from it is kept by.
    const known = SOURCE_FILES.get(outcome);
    if (
      known &&
      known.path === task.path &&
      known.type === type &&
      known.name === name &&
      known.lang === task.location.lang &&
      known.file.dir === task.location.dir &&
      known.fold === foldKey
    ) {
      files.push(known.file);
      continue;
    }
    const folded = fold(outcome.data);
    for (const { key, of } of folded.repeated) {
      problems.push({
        code: 'field_invalid',
        file: task.path,
        line: keyLines(outcome.matter, outcome.format)[key] ?? 1,
        field: key,
        message: `repeats ${of}: keys are read without regard to case, as Hugo reads them`,
        hint: `keep one ${of} key`,
      });
    }
    let lang = task.location.lang;
    if (lang === undefined) {
      const told = languageFromField(folded.data, layout.languageField, layout.defaultLanguage);
      if (typeof told === 'object') {
        const lines = foldLines(keyLines(outcome.matter, outcome.format), folded.data);
        problems.push({ ...told, file: task.path, line: lines[layout.languageField] ?? 1 });
        unreadable.push({ type, name, lang: undefined, translationKey: translationKeyOf(folded.data) });
        continue;
      }
      lang = told;
    }
    const file = {
      path: task.path,
      type,
      name,
      dir: task.location.dir,
      lang,
      ...(task.location.bundle && { bundle: true }),
      data: folded.data,
    } as SourceFile;
    Object.defineProperty(file, 'lines', LINES);
    LINES_OF.set(file, { outcome });
    if (outcome.body || outcome.bodyOf) {
      // Read through the outcome, which may hold its body or not: the parse cache keeps none on disk (the
      // body is then read only for an item made again), and a build lets go of a body once its item's
      // MCP share is made (letBodiesGo).
      Object.defineProperty(file, 'body', BODY);
      UNREAD.set(file, outcome);
      if (hash !== undefined) {
        file.bodyKey = hash;
        // An outcome two files share (the same text: a copy, a rename in dev) keeps its body: the file
        // it would be read from again may go while the other stays.
        const owner = OWNERS.get(outcome);
        OWNERS.set(outcome, owner === undefined || owner === task.absolute ? task.absolute : null);
        HELD.set(file, { outcome, absolute: task.absolute, hash, maxFileBytes });
      }
    }
    files.push(file);
    // Only a file found plainly: one with repeated keys or a language field has problems to tell again.
    if (folded.repeated.length === 0 && task.location.lang !== undefined) {
      SOURCE_FILES.set(outcome, { path: task.path, type, name, lang, fold: foldKey, file });
    }
  }
  return { files, problems, unreadable, hashes, gone, stamps };
}

/**
 * The digest of the list pages' files as read: a cascade edited in an `_index.md` may change any item
 * below it, so every item is made again when it changes ('' without list pages).
 */
export function branchesKey(branches: readonly BranchFile[]): string {
  return branches.length === 0 ? '' : hash('sha256', JSON.stringify(branches), 'base64url');
}

/** The `_index` files' front matter (a file that does not parse is an error, as it stops Hugo). */
export async function readBranches(
  listed: Listing['branches'],
  layout: ContentLayout,
  maxFileBytes: number,
  problems: Problem[],
): Promise<BranchFile[]> {
  const branches: BranchFile[] = [];
  if (listed.length === 0) return branches;
  // The parsers load only for a site with list pages: an unchanged build of one without them starts
  // without gray-matter, js-yaml, smol-toml and jsonc-parser (as parse-files.ts does for the files).
  const { parseSource } = await import('./parse/parse-source.js');
  for (const branch of listed) {
    const text = await readFile(branch.absolute, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // deleted since it was listed
    if (Buffer.byteLength(text) > maxFileBytes) continue; // its own page's problem, not the index's
    const parsed = parseSource(branch.path, text);
    if ('code' in parsed) {
      problems.push(parsed);
      continue;
    }
    const lang = branch.lang ?? languageFromField(parsed.data, layout.languageField, layout.defaultLanguage);
    if (typeof lang !== 'string') continue;
    branches.push({ path: branch.path, dir: branch.dir, lang, data: parsed.data });
  }
  return branches;
}

/**
 * The list pages' files with what compiles their cascades' `_target` globs (Hugo's glob syntax, as
 * picomatch reads it with `dot`), for assemble; none without list pages, and then no picomatch loaded.
 */
export async function cascadeOf(
  branches: BranchFile[],
): Promise<{ branches: BranchFile[]; glob: CompileGlob } | undefined> {
  if (branches.length === 0) return undefined;
  const { default: picomatch } = await import('picomatch');
  return { branches, glob: (glob) => picomatch(glob, { dot: true }) };
}

const SOURCE_FILES = new WeakMap<
  object,
  { path: string; type: ContentType; name: string; lang: string; fold: string; file: SourceFile }
>();

/** Files whose body is still to be read from the file (parse-cache.ts bodyRead), with their outcome. */
const UNREAD = new WeakMap<SourceFile, ParsedSource>();

/** Each file's key lines, worked out from its outcome when first asked for (`lines`). */
const LINES_OF = new WeakMap<SourceFile, { lines: Record<string, number> } | { outcome: ParsedSource }>();

/*
 * A file's `lines` and `body` are read through one getter each, kept in one descriptor each, whatever
 * the file: a getter of its own (a closure) on each of the 25,900 files of a 10,000-item site put every
 * one of them in V8's dictionary mode, some 450 bytes of properties apiece, where files given the same
 * accessor share a few hidden classes. Both stay own enumerable properties, as the files' readers see them.
 */
const LINES: PropertyDescriptor = {
  get(this: SourceFile): Record<string, number> {
    const known = LINES_OF.get(this);
    if (!known) return {};
    if ('lines' in known) return known.lines;
    const lines = foldLines(keyLines(known.outcome.matter, known.outcome.format), this.data);
    LINES_OF.set(this, { lines });
    return lines;
  },
  enumerable: true,
};

const BODY: PropertyDescriptor = {
  get(this: SourceFile): string | undefined {
    const settled = SETTLED.get(this);
    if (settled !== undefined) return settled;
    const outcome = UNREAD.get(this);
    return outcome?.body ?? outcome?.bodyOf?.();
  },
  enumerable: true,
};

/**
 * Reads the bodies the files of changed entries still lack, all at once (on two threads when many),
 * rather than one at a time as their fragments ask. A file found changed since it was hashed (an edit
 * while the build runs) keeps the body read, under the hash of what was read (its `bodyKey`): it is
 * among `moved`, whose entries' keys the caller makes again. A file that cannot be read fails the build.
 */
export async function readUnreadBodies(
  files: readonly SourceFile[],
  options: Pick<ReadOptions, 'maxFileBytes' | 'parallelThreshold' | 'spooling'>,
): Promise<{ read: number; moved: Set<SourceFile> }> {
  const unread: { file: SourceFile; outcome: ParsedSource; absolute: string; hash: string }[] = [];
  for (const file of files) {
    const outcome = UNREAD.get(file);
    const pending = outcome && pendingBody(outcome);
    if (outcome && pending) unread.push({ file, outcome, ...pending });
  }
  const moved = new Set<SourceFile>();
  if (unread.length === 0) return { read: 0, moved };
  const tasks = unread.map(({ file, absolute }) => ({ path: file.path, absolute }));
  const problems: [number, Problem][] = [];
  // Many at once (every item made again: a changed configuration) wait in the spool, as a parse's do.
  const spool = spoolFor(options.spooling, unread.length);
  await readBodies(tasks, options, (body, i) => {
    const { file, outcome, hash, absolute } = unread[i] as (typeof unread)[number];
    if ('code' in body) problems.push([i, body]);
    else if (body.hash === hash) {
      // An outcome two files share is read for each: given its body (and spooled) once.
      if (!pendingBody(outcome)) return READ;
      outcome.body = body.body;
      if (spool && spoolBody(outcome, spool, absolute, options.maxFileBytes, hash) && options.spooling)
        options.spooling.spooled++;
    } else {
      SETTLED.set(file, body.body);
      if (body.body) file.bodyKey = body.hash;
      else delete file.bodyKey;
      moved.add(file);
    }
    return READ;
  });
  spool?.flush();
  if (problems.length > 0)
    throw new ContentIndexError(problems.sort((a, b) => a[0] - b[0]).map(([, p]) => p));
  return { read: unread.length, moved };
}

/** What readUnreadBodies keeps of a body once it is where it belongs. */
const READ = { body: '', hash: '' };

/** Bodies read from a file changed since it was hashed, which its outcome does not stand for. */
const SETTLED = new WeakMap<SourceFile, string>();

/** Each file whose body its outcome holds or may read again, and where from (letBodiesGo). */
const HELD = new WeakMap<
  SourceFile,
  { outcome: ParsedSource; absolute: string; hash: string; maxFileBytes: number }
>();
/** The one file an outcome was read for, or null when more than one file was made of it. */
const OWNERS = new WeakMap<ParsedSource, string | null>();

/**
 * Lets go of the files' bodies (their item's MCP share is made, held-bodies.ts): each is read from its
 * file again, by the hash it was read with, if an item made again asks for it (readUnreadBodies).
 */
export function letBodiesGo(files: Iterable<SourceFile>): void {
  for (const file of files) {
    const held = HELD.get(file);
    if (!held || SETTLED.has(file) || OWNERS.get(held.outcome) !== held.absolute) continue;
    releaseBody(held.outcome, held.absolute, held.maxFileBytes, held.hash);
  }
}

function listingKey(options: LoadOptions): string {
  return JSON.stringify([options.root, options.content, options.layout, options.exclude]);
}

/** The content folder: absolute, and as messages and the assembly name it (from the root, POSIX; '' the root). */
export function contentFolder(options: LoadOptions): { dir: string; shown: string } {
  const dir = resolve(options.root, options.content ?? options.layout.dir);
  return { dir, shown: relative(options.root, dir).split('\\').join('/') };
}

/** The layout's globs over the content folder: every file to read, in path order, and the problems found. */
export async function listSources(options: LoadOptions): Promise<Listing> {
  // Loaded when the folders are listed: a build that finds its listing still current starts without them.
  const [{ default: fg }, { default: picomatch }] = await Promise.all([
    import('fast-glob'),
    import('picomatch'),
  ]);
  const { layout } = options;
  const { dir: contentDir, shown: displayRoot } = contentFolder(options);
  const shown = (relPath: string) => (displayRoot ? `${displayRoot}/${relPath}` : relPath);
  const problems: Problem[] = [];
  const ignore = (options.exclude ?? []).flatMap((dir) => {
    const inside = relative(contentDir, dir).split('\\').join('/');
    if (inside === '' || inside.startsWith('../') || inside === '..' || isAbsolute(inside)) return [];
    return [`${fg.escapePath(inside)}/**`];
  });

  // A folder that is not there (a submodule not checked out, a wrong --content) would publish an empty
  // index as if the site had no content: it is an error, as is a folder without one content file.
  const missing = await missingContent(contentDir, displayRoot);
  if (missing) {
    const folders: Listing['folders'] = [[contentDir, statStamp(contentDir) ?? null]];
    return {
      key: listingKey(options),
      tasks: [],
      branches: [],
      problems: [missing],
      warnings: [],
      links: [],
      folders,
      at: Date.now(),
    };
  }
  const found = new Map<string, Found>();
  const links = linkWatcher(options.root, contentDir);
  const at = Date.now();
  const folders = new Map<string, Stamp | null>();
  const look = (folder: string) => {
    if (!folders.has(folder)) folders.set(folder, statStamp(folder) ?? null);
  };
  look(contentDir);
  const readdir = ((path: string, ...rest: unknown[]) => {
    look(resolve(contentDir, path));
    return (links.readdir as (...args: unknown[]) => void)(path, ...rest);
  }) as unknown as typeof links.readdir;
  for (const type of CONTENT_TYPES) {
    for (const glob of layout.types[type]) {
      const base = globBase(glob);
      look(resolve(contentDir, base));
      const matches = await fg(glob, {
        cwd: contentDir,
        onlyFiles: true,
        // Links are followed by linkWatcher's readdir where they may be, and reported otherwise.
        followSymbolicLinks: false,
        fs: { readdir },
        // Hugo reads paths without regard to case: `nota.ES.MD` is a Spanish page.
        caseSensitiveMatch: false,
        ignore,
      });
      for (const relPath of matches) {
        const other = found.get(relPath);
        if (other && other.type !== type) {
          problems.push({
            code: 'config_invalid',
            file: shown(relPath),
            field: 'content.types',
            message: `matches the globs of both ${other.type} and ${type}`,
            hint: 'make the globs in content.types of site.config.ts select disjoint files',
          });
        } else if (!other) {
          found.set(relPath, { relPath, type, base });
        }
      }
    }
  }
  if (found.size === 0 && problems.length === 0) {
    problems.push({
      code: 'content_missing',
      file: displayRoot || '.',
      message: `holds no content file: none matches content.types (${CONTENT_TYPES.flatMap((type) => layout.types[type]).join(', ')})`,
      hint: 'check that this is the content folder (content.dir in site.config.ts, or --content) and that content.types selects its posts, projects and tips; the output was left as it was',
    });
  }
  const sorted = [...found.values()].sort((a, b) =>
    a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0,
  );
  // In a page bundle (`name/index.es.md`) other Markdown files are resources of the page, not pages.
  const bundles = new Set(
    sorted.filter((f) => INDEX_FILE.test(posix.basename(f.relPath))).map((f) => posix.dirname(f.relPath)),
  );

  const branches: Listing['branches'] = [];
  // Every folder holds a possible list page: each is looked at, so an _index.md added anywhere is seen.
  const branchReaddir = ((path: string, ...rest: unknown[]) => {
    look(resolve(contentDir, path));
    return (readdirCallback as (...args: unknown[]) => void)(path, ...rest);
  }) as unknown as typeof readdirCallback;
  const branchFiles = await fg('**/_index{,.*}.{md,markdown,mdx}', {
    cwd: contentDir,
    onlyFiles: true,
    fs: { readdir: branchReaddir },
    followSymbolicLinks: false,
    caseSensitiveMatch: false,
    ignore,
  });
  for (const relPath of branchFiles.sort()) {
    const location = locate(relPath, 'post', '', layout);
    if ('skip' in location || 'problem' in location) continue;
    branches.push({
      path: shown(relPath),
      absolute: join(contentDir, relPath),
      dir: location.dir,
      ...(location.lang !== undefined && { lang: location.lang }),
    });
  }

  const tasks: Listing['tasks'] = [];
  for (const { relPath, type, base } of sorted) {
    const fileName = posix.basename(relPath);
    if (fileName.startsWith('_')) continue; // `_index.md` (Hugo list pages) and partials are not pages
    if (!INDEX_FILE.test(fileName) && insideBundle(posix.dirname(relPath), bundles)) continue;
    const location = locate(relPath, type, base, layout);
    if ('skip' in location) continue; // a language the site has and does not publish here (skipLanguages)
    if ('problem' in location) problems.push({ ...location.problem, file: shown(relPath) });
    else tasks.push({ path: shown(relPath), absolute: join(contentDir, relPath), location });
  }

  // A link not followed whose name a glob selects was meant to be a page (compiled only for such a link).
  let isContent: ((path: string) => boolean) | undefined;
  const linked = linkProblems(
    links,
    (link) => {
      isContent ??= picomatch(
        CONTENT_TYPES.flatMap((type) => layout.types[type]),
        { nocase: true },
      );
      return isContent(relative(contentDir, link).split('\\').join('/'));
    },
    options.root,
  );
  problems.push(...linked.problems);
  return {
    key: listingKey(options),
    tasks,
    branches,
    problems,
    warnings: linked.warnings,
    links: linked.followed,
    folders: [...folders],
    at,
  };
}

/** Lines are found under the keys as written; a key read under another spelling (`Title`) gets its line too. */
function foldLines(lines: Record<string, number>, data: unknown): Record<string, number> {
  if (typeof data !== 'object' || data === null) return lines;
  for (const key of Object.keys(data)) {
    if (key in lines) continue;
    const written = Object.keys(lines).find((k) => k.toLowerCase() === key.toLowerCase());
    if (written !== undefined) lines[key] = lines[written] as number;
  }
  return lines;
}

function translationKeyOf(data: unknown): string | undefined {
  const key =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>).translationKey : undefined;
  return typeof key === 'string' && key.trim() !== '' ? key : undefined;
}

/** The `field` rule: a missing key means the layout's default language, as a file without a suffix does. */
function languageFromField(data: unknown, field: string, unmarked: Language) {
  const value =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[field] : undefined;
  if (value === undefined) return unmarked;
  const lang = typeof value === 'string' ? normalizeLanguage(value) : undefined;
  return lang ?? { ...unknownLanguage(`${JSON.stringify(value)} in ${field}`, String(value)), field };
}

/**
 * After a read in which `gone` of the `listed` files were no longer there: the problem to stop the build
 * with when what is left is not the site but a folder caught moving. The content folder gone (moved
 * aside, removed, a checkout switching branches) or every file of it gone would publish an index
 * emptied, or cut down, by accident; files gone from a folder still in place with others are deletions,
 * built as such.
 */
export async function vanishedContent(
  options: LoadOptions,
  listed: number,
  gone: number,
  left: number,
): Promise<Problem | undefined> {
  const { dir, shown: relPath } = contentFolder(options);
  const shown = relPath || '.';
  const folder = await stat(dir).catch(() => undefined);
  const hint =
    'build again once the content folder is in place and left alone while the build reads it; the output was left as it was';
  if (!folder?.isDirectory()) {
    return {
      code: 'content_missing',
      file: shown,
      message: `was moved or removed while the build read it (${gone} of its ${listed} content files were gone by then): an index of what was read before is never published`,
      hint,
    };
  }
  if (left > 0) return undefined;
  return {
    code: 'content_missing',
    file: shown,
    message: `lost every content file while the build read them (${gone} of ${listed} were gone by then): an empty index is never published by accident`,
    hint,
  };
}

/** The content folder, unless it is missing or not a folder: then the problem that says so. */
async function missingContent(contentDir: string, shown: string): Promise<Problem | undefined> {
  const found = await stat(contentDir).catch(() => undefined);
  if (found?.isDirectory()) return undefined;
  return {
    code: 'content_missing',
    file: shown || '.',
    message: found
      ? 'is not a folder: the content folder must be one'
      : 'does not exist: there is no content to publish, and an empty index is never published by accident',
    hint: 'check content.dir in site.config.ts (or --content); a git submodule must be checked out (git submodule update --init); the output was left as it was',
  };
}

function insideBundle(dir: string, bundles: ReadonlySet<string>): boolean {
  for (let d = dir; d !== '.' && d !== ''; d = posix.dirname(d)) if (bundles.has(d)) return true;
  return false;
}
