import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SourceDates } from '../core/content/generated.ts';
import type { Lifecycle } from '../core/edge/lifecycle.ts';
import type { Problem } from '../core/errors.ts';
import { recordPublished, renderPublishedRecord } from '../core/versions/published-record.ts';
import { digest } from './fingerprint.ts';
import type { FragmentStore, LastBuild, StampsTaken } from './fragment-store.ts';
import {
  branchesKey,
  type Listing,
  type LoadOptions,
  listingCurrent,
  listSources,
  readBranches,
  relistedFolders,
} from './load.ts';
import { type Stamp, sameStamp, statStamp } from './parse-cache.ts';
import type { Setup } from './setup.ts';
import { sitePagesStamp } from './site-pages.ts';
import { HELD_DIR, MCP_PRIVATE_DIRS } from './write-private.ts';

/**
 * A build whose every input is as the last build found it writes what that build wrote: it is
 * recognised by one digest and skipped. The inputs are the tool, the configuration, the lifecycle, the
 * versions' record, the author's files, the static folder, the wrangler configuration, the sources'
 * dates and the build's own options (`inputsDigest`); the content files, by the listing's folders and
 * every file's stamp (the store's); the outputs the last build wrote, by theirs, and the site
 * generator's pages the index was checked against, by theirs. And the clock: the
 * last build is valid until the next instant anything changes by time alone (an item dated ahead
 * coming due, a version published, deprecated or withdrawn on its date).
 */
export async function inputsDigest(
  setup: Setup,
  context: string,
  options: Record<string, unknown>,
): Promise<{ inputs: string; sources: SourceDates; writesRecord: boolean }> {
  const { root } = setup;
  const sources = await setup.sourceDates;
  const read = (file: string) => {
    try {
      return readFileSync(join(root, file), 'utf8');
    } catch {
      return '\u0000absent';
    }
  };
  const statics = setup.staticDir === undefined ? [] : treeStamps(setup.staticDir);
  // The versions' record as this build leaves it: a build that adds a version to it writes it.
  const record = renderPublishedRecord(recordPublished(setup.headers.record.record, setup.lifecycle).record);
  return {
    writesRecord: record !== setup.headers.record.text,
    inputs: digest(
      context,
      JSON.stringify(setup.lifecycle),
      record,
      JSON.stringify(setup.headers.warnings),
      JSON.stringify(sources),
      // The author's _headers and _redirects (the root's and the generator's copies), the manifest's logo.
      JSON.stringify([setup.author.headers, setup.author.redirects, [...setup.author.generatorCopies]]),
      JSON.stringify(setup.plugin),
      read('wrangler.toml'),
      read('wrangler.json'),
      read('wrangler.jsonc'),
      JSON.stringify(statics),
      JSON.stringify([setup.outDir, setup.contentDir, options]),
    ),
    sources,
  };
}

/**
 * The last build, when nothing it was made from changed since and the clock has not reached its limit:
 * the same inputs, the same files listed, every content file with the stamp it had (or, for one changed
 * too recently to trust its stamp, the same text), and its outputs as it left them. Otherwise, when it
 * looked at the files' stamps, the ones it took (for the build that follows, not to take them again).
 */
export async function unchangedSince(
  store: FragmentStore,
  inputs: string,
  now: Date,
  load: LoadOptions,
  /** The output folder, when the build is checked against the site generator's pages in it. */
  sitePages?: string,
): Promise<{ last?: LastBuild; stamps?: StampsTaken }> {
  const { lastWritten: last, listingHead } = store;
  if (!last || last.inputs !== inputs || !listingHead) return {};
  if (last.validUntil !== undefined && now.getTime() >= last.validUntil) return {};
  if (store.clockBehind(now.getTime())) return {};
  for (const [path, then] of last.outputs) {
    const stamp = lstatStamp(path);
    if (stamp === null || then === null ? stamp !== then : !sameStamp(stamp, then)) return {};
  }
  if (sitePages !== undefined) {
    // The pages the generator wrote since (a page gone is an address the index may no longer keep).
    const own = new Set((last.summary as { files: { path: string }[] }).files.map((f) => f.path));
    if (last.pages !== (await sitePagesStamp(load.root, sitePages, own))) return {};
  }
  if (!listingCurrent(listingHead, load, store.racyMs)) {
    // A folder changed (or too recently to tell): the same files listed again will do. Only the
    // folders that changed are read again when that tells (relistedFolders).
    const listing = store.listing;
    if (!listing) return {};
    const again = (await relistedFolders(listing, load, store.racyMs)) ?? (await listSources(load));
    if (!sameListing(again, listing)) return {};
    store.listing = again;
    store.touch();
  }
  // The list pages' files (_index.md) are few and read whole: an edited cascade is a change.
  const listed = store.listingHead?.branches ?? [];
  if (listed.length > 0 || last.branches !== undefined) {
    const problems: Problem[] = [];
    const branches = await readBranches(listed, load.layout, load.maxFileBytes, problems);
    if (problems.length > 0 || branchesKey(branches) !== (last.branches ?? '')) return {};
  }
  const files = store.filesAsKept(load.maxFileBytes, load.bodies ?? false);
  return files.kept ? { last } : { ...(files.stamps && { stamps: files.stamps }) };
}

function sameListing(a: Listing, b: Listing): boolean {
  if (a.key !== b.key || a.tasks.length !== b.tasks.length || a.problems.length > 0) return false;
  if (JSON.stringify([a.warnings, a.links]) !== JSON.stringify([b.warnings, b.links])) return false;
  return a.tasks.every((task, i) => {
    const other = b.tasks[i];
    return (
      other !== undefined &&
      task.absolute === other.absolute &&
      task.path === other.path &&
      JSON.stringify(task.location) === JSON.stringify(other.location)
    );
  });
}

/**
 * What a build wrote, as the next one will look at it: the output folder's link, each file the build
 * published in it, and the MCP data in the private folder.
 */
export function outputStamps(setup: Setup, published: readonly string[]): LastBuild['outputs'] {
  // The static folder's files are published too (copied): an edit of a copy is noticed.
  const statics = setup.staticDir === undefined ? [] : treeStamps(setup.staticDir).slice(1);
  const paths = [
    setup.outDir,
    ...published.map((path) => join(setup.outDir, path)),
    ...statics.map(([path]) => join(setup.outDir, path)),
  ];
  for (const dir of MCP_PRIVATE_DIRS) {
    const full = join(setup.root, dir);
    paths.push(full);
    for (const name of safeReaddir(full)) paths.push(join(full, name));
  }
  paths.push(join(setup.root, HELD_DIR));
  return paths.map((path) => [path, lstatStamp(path)]);
}

/**
 * The earliest instant after `now` at which the clock alone changes the output: an item's (`items`),
 * the lifecycle's dates, or at once when `generated` follows the clock. None: the output holds for good.
 */
export function validUntil(
  now: Date,
  items: number | undefined,
  lifecycle: Lifecycle,
  followsClock: boolean,
): number | undefined {
  if (followsClock) return now.getTime();
  let until = items;
  for (const date of datesIn(lifecycle)) {
    const at = date.getTime();
    if (at > now.getTime() && (until === undefined || at < until)) until = at;
  }
  return until;
}

/** Every date a value holds: the lifecycle's are its versions' publications, deprecations and sunsets. */
function datesIn(value: unknown, found: Date[] = []): Date[] {
  if (value instanceof Date) found.push(value);
  else if (Array.isArray(value)) for (const item of value) datesIn(item, found);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) datesIn(item, found);
  return found;
}

/**
 * Whether a file is as the last build left it, of `bytes` bytes: its stamp (lstat) the one that build
 * recorded of it (outputStamps). A file of the /mcp data named after its content is kept by this, never
 * by its name and size alone: a change in place keeps both.
 */
export function leftBy(last: LastBuild | undefined): (path: string, bytes: number) => boolean {
  const recorded = new Map(last?.outputs ?? []);
  return (path, bytes) => {
    const then = recorded.get(path);
    const now = then?.size === bytes ? lstatStamp(path) : null;
    return now !== null && sameStamp(now, then as Stamp);
  };
}

function lstatStamp(path: string): Stamp | null {
  try {
    const s = lstatSync(path);
    return { size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino };
  } catch {
    return null;
  }
}

/** Each file under a folder (links followed, as the build publishes them) with its stamp. */
function treeStamps(dir: string): [string, Stamp | null][] {
  const found: [string, Stamp | null][] = [[dir, statStamp(dir) ?? null]];
  const walk = (folder: string) => {
    for (const name of safeReaddir(folder).sort()) {
      const path = join(folder, name);
      let folderToo = false;
      try {
        folderToo = statSync(path).isDirectory();
      } catch {
        // gone meanwhile, or a broken link: its stamp (none) says so
      }
      found.push([relative(dir, path), statStamp(path) ?? null]);
      if (folderToo) walk(path);
    }
  };
  walk(dir);
  return found;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
