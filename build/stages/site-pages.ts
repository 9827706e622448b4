import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { SiteConfig } from '../core/config/site-config.ts';
import type { BranchFile, LeftOut } from '../core/content/model.ts';
import { CONTENT_TYPES, type ContentType } from '../core/edge/languages.ts';
import { ContentIndexError } from '../core/errors.ts';
import { type UnindexedPage, witness } from '../core/output/witness.ts';
import { inspect } from './output/generations.ts';
import { outputPlace } from './output/place.ts';
import { type Entry, nativePath, walkTree } from './output/tree.ts';

/**
 * Whether the output held the site's pages, and what comparing them with the index found: `ran` false
 * says why not (no site generator, none of its pages in the output).
 */
export type SitePagesCheck =
  | { ran: false; why: string }
  | {
      ran: true;
      pages: number;
      checked: number;
      unindexed: UnindexedPage[];
      deadWarnings: number;
      /** Routes whose pages lie outside the section folders: the reverse check did not reach them. */
      uncovered?: string[];
    };

/** What the check found, and the generator's pages as they were then (see {@link sitePagesStamp}). */
export type SitePagesResult = SitePagesCheck & { stamp: string };

export interface SitePagesOptions {
  root: string;
  outDir: string;
  config: SiteConfig;
  configFile: string;
  /** Every published translation's address and file. */
  translations: readonly { url: string; file: string }[];
  leftOut: readonly LeftOut[];
  /** The kinds of content the site has (a file of it, published or left out). */
  present: readonly ContentType[];
  /** The configuration field of each of `config.sections` (`sections.2.url`), when some were left out. */
  sectionFields?: readonly string[];
  /** Hugo's list pages' files (`_index.md`): the nested sections whose pages are lists, not items. */
  branches?: readonly BranchFile[];
  /** Paths this build writes: never the generator's pages, whatever a record says. */
  ownPaths: ReadonlySet<string>;
  /** `error`: a dead address stops the build; `warn` (dev, where the generator's watch may lag): a warning. */
  mode: 'error' | 'warn';
  /** Collects dead addresses as warnings, in `warn` mode. */
  warn: (problems: ContentIndexError['problems']) => void;
}

/**
 * The output as a witness (core/output/witness.ts), on the output folder as it is before this build
 * writes: the generator's pages are its HTML files that no build of ours wrote (the generation's record
 * names those), reached through the output link where the generator wrote them.
 */
export async function checkSitePages(options: SitePagesOptions): Promise<SitePagesResult> {
  const found = await generatorPages(options.root, options.outDir, options.ownPaths);
  const stamp = stampOf(found);
  const pages = new Set(found?.keys());
  if (pages.size === 0) {
    return {
      stamp,
      ran: false,
      why: "the output folder holds none of the site's pages (the site generator did not run first), so the index's addresses were not checked against them",
    };
  }
  const { config } = options;
  // The types the site has (a file of it, published or left out): another type's default route says nothing.
  const present = new Set(options.present);
  const typed = CONTENT_TYPES.filter((type) => present.has(type));
  // Hugo's defaultContentLanguageInSubdir: every canonical route starts in the language's own folder.
  const canonical = config.canonicalLanguage;
  const keys = new Set([canonical, config.content.languageSuffixes?.[canonical] ?? canonical]);
  const firsts = new Set(typed.map((type) => /^\/([^/{}]+)\//.exec(config.routes[type][canonical])?.[1]));
  const [first] = firsts;
  const canonicalFolder = firsts.size === 1 && first !== undefined && keys.has(first) ? `${first}/` : '';
  const result = witness({
    site: config.site,
    pages,
    translations: options.translations,
    leftOut: options.leftOut,
    sections: config.sections,
    languageFolders: config.languages
      .filter((lang) => lang !== config.canonicalLanguage)
      .map((lang) => (config.llmsTxt[lang] ?? '').replace(/llms\.txt$/, ''))
      .filter((folder) => folder !== ''),
    canonicalFolder,
    routes: typed.flatMap((type) =>
      config.languages.map((lang) => ({ type, lang, route: config.routes[type][lang] })),
    ),
    listFolders: listFolders(options.branches ?? [], config),
    configFile: options.configFile,
    ...(options.sectionFields && { sectionFields: options.sectionFields }),
    redirectOf: (page, small) =>
      !small || (found?.get(page)?.size ?? 0) <= REDIRECT_BYTES
        ? redirectOf(nativePath(options.outDir, page))
        : undefined,
  });
  if (result.dead.length > 0) {
    if (options.mode === 'error') throw new ContentIndexError(result.dead);
    options.warn(result.dead);
  }
  return {
    stamp,
    ran: true,
    pages: pages.size,
    checked: result.checked,
    unindexed: result.unindexed,
    deadWarnings: options.mode === 'warn' ? result.dead.length : 0,
    ...(result.uncovered.length > 0 && { uncovered: result.uncovered }),
  };
}

/**
 * The generator's pages as they are now, in one digest (each page's path, size and time): a build that
 * finds its inputs unchanged (stages/unchanged.ts) is recalled only when the pages it was checked
 * against are still those. `own`: the paths the build wrote.
 */
export async function sitePagesStamp(
  root: string,
  outDir: string,
  own: ReadonlySet<string>,
): Promise<string> {
  return stampOf(await generatorPages(root, outDir, own));
}

function stampOf(pages: ReadonlyMap<string, Entry> | undefined): string {
  const hash = createHash('sha256');
  for (const [path, entry] of [...(pages ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    hash.update(`${path}\u0000${entry.size}\u0000${entry.mtimeMs}\n`);
  return hash.digest('base64url');
}

/**
 * Where the generator writes each `_index.md`'s list page: its folder, in its language's folder on the
 * site (the canonical language's at the root, or in its own with defaultContentLanguageInSubdir).
 */
function listFolders(branches: readonly BranchFile[], config: SiteConfig): Set<string> {
  const folders = new Set<string>();
  for (const branch of branches) {
    if (branch.dir === '') continue;
    const dir = `${branch.dir.toLowerCase()}/`;
    folders.add(dir);
    const llms = config.llmsTxt[branch.lang] ?? '';
    const language = branch.lang === config.canonicalLanguage ? '' : llms.replace(/llms\.txt$/, '');
    for (const prefix of new Set([
      language,
      `${branch.lang}/`,
      `${config.content.languageSuffixes?.[branch.lang] ?? branch.lang}/`,
    ]))
      folders.add(`${prefix}${dir}`);
  }
  return folders;
}

/** The output's HTML files that are not the build's, or undefined when there is no output folder to read. */
async function generatorPages(
  root: string,
  outDir: string,
  own: ReadonlySet<string>,
): Promise<Map<string, Entry> | undefined> {
  let current: Awaited<ReturnType<typeof inspect>>;
  try {
    current = await inspect(outputPlace(root, outDir));
  } catch {
    return undefined; // an output the build refuses to write: writing it says why
  }
  if (current.kind === 'none') return undefined;
  const recorded = current.record?.files ?? {};
  const pages = new Map<string, Entry>();
  for (const entry of walkTree(current.dir).values()) {
    if (entry.kind !== 'file' || !/\.html?$/i.test(entry.path)) continue;
    // The build's own files (a static folder's copies are the author's pages, and count).
    const ours = recorded[entry.path];
    if (own.has(entry.path) || (ours && ours.from === undefined)) continue;
    pages.set(entry.path, entry);
  }
  return pages;
}

/** The largest page read as a possible redirect: Hugo's alias pages are some 300 bytes and their address. */
const REDIRECT_BYTES = 4096;

/**
 * Where a page redirects to, when it is a redirect (Hugo's alias pages, any generator's): a meta refresh
 * to another address, not a page of its own. `''` for a refresh whose address cannot be read.
 */
function redirectOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(1024);
    const head = buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
    const meta = /<meta\s+http-equiv=["']?refresh["']?[^>]*>/i.exec(head)?.[0];
    if (meta === undefined) return undefined;
    return /content=["']?\s*\d*\s*;?\s*url=([^"'>\s]+)/i.exec(meta)?.[1] ?? '';
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
