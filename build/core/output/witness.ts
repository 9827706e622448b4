import type { ResolvedSection } from '../config/site-config.ts';
import type { LeftOut } from '../content/model.ts';
import type { Problem } from '../errors.ts';
import { printable } from '../printable.ts';

/**
 * The output as a witness: after a site generator wrote the site's pages into the output folder, the
 * index and those pages must agree. Every address the index publishes on the site's own origin must be a
 * page there (a dead address stops the build, naming the content file, the address and the likely
 * cause); every page under an indexed section that the index lacks is listed with its reason. Pure: the
 * stage (stages/site-pages.ts) lists the pages.
 */

export interface WitnessInput {
  /** The site's address, ending in `/`. */
  site: string;
  /** The generator's pages: HTML files of the output the build did not write, relative to it, POSIX. */
  pages: ReadonlySet<string>;
  /** Every published translation's address and file. */
  translations: readonly { url: string; file: string }[];
  leftOut: readonly LeftOut[];
  sections: readonly ResolvedSection[];
  /** Each other language's folder on the site (`en/`), under which the sections are that language's. */
  languageFolders: readonly string[];
  /**
   * The canonical language's own folder (`es/`, with Hugo's `defaultContentLanguageInSubdir`), in which
   * the sections' addresses are: another language's sections are in its folder instead (`en/posts/`).
   */
  canonicalFolder?: string;
  /**
   * Each type's route per language: a route that puts pages outside the section folders (Hugo's
   * `permalinks` such as `/:year/:month/:title/`) leaves them out of the reverse check, and the result says so.
   */
  routes?: readonly { type: string; lang: string; route: string }[];
  /** The configuration field of each section (default `sections.<i>.url`), named by a dead section address. */
  sectionFields?: readonly string[];
  /** The configuration file, named by a dead section address. */
  configFile: string;
  /**
   * The folders of the generator's list pages below the sections (Hugo's nested sections, from their
   * `_index.md`: `posts/2024/`, `en/posts/2024/`), whose own page is a list, not an item.
   */
  listFolders?: ReadonlySet<string>;
  /**
   * Where a page redirects to, when it is a redirect the generator wrote (Hugo's `aliases`) and not a
   * page of its own; `''` when the address it redirects to cannot be read. `small`: only a page as
   * small as an alias page is read (every indexed address is asked: 26,000 pages at 10,000 items).
   */
  redirectOf?: (page: string, small?: boolean) => string | undefined;
}

export interface UnindexedPage {
  /** The page, relative to the output folder. */
  page: string;
  url: string;
  /** Why the index does not hold it. */
  reason: string;
  /** The content file it comes from, when one is known. */
  file?: string;
}

export interface WitnessResult {
  /** Addresses the index publishes on the site's origin, each a page of the output. */
  checked: number;
  dead: Problem[];
  unindexed: UnindexedPage[];
  /** The routes whose pages lie outside the section folders, which the reverse check could not reach. */
  uncovered: string[];
}

export function witness(input: WitnessInput): WitnessResult {
  const { site, pages } = input;
  const folded = new Map<string, string>();
  for (const page of pages) folded.set(foldPath(page), page);
  const dead: Problem[] = [];
  const indexed = new Set<string>();
  let checked = 0;
  const check = (url: string, file: string, field: string, line?: number) => {
    const candidates = pagesOf(site, url);
    if (!candidates) return; // another origin (a language's own host): not this output's to say
    checked++;
    const found = candidates.find((candidate) => pages.has(candidate));
    const away = found === undefined ? undefined : redirectedAway(site, url, input.redirectOf?.(found, true));
    if (found && away !== undefined) {
      // Another page's alias written over this one (hugo writes a language's aliases after the pages
      // of the languages before it): the address serves that page, and this one is nowhere.
      dead.push({
        code: 'address_dead',
        file,
        ...(line !== undefined && { line }),
        field,
        message: `publishes ${printable(url)}, and the site generator wrote a redirect to ${printable(away)} there (${found}), not this page`,
        hint: `another page's aliases claims this address (Hugo writes the alias over the page): remove that alias, or give one of the two pages another address; if this page's layout redirects on purpose, leave the page out of the index (draft, or _build.list: never)`,
      });
      return;
    }
    if (found) {
      indexed.add(found);
      return;
    }
    dead.push({
      code: 'address_dead',
      file,
      ...(line !== undefined && { line }),
      field,
      message: `publishes ${printable(url)}, and the site generator wrote no page there (${candidates[0]} is not in the output)`,
      hint: likelyCause(candidates, pages, folded),
    });
  };
  for (const translation of input.translations) check(translation.url, translation.file, 'url');
  input.sections.forEach((section, i) => {
    check(section.url, input.configFile, input.sectionFields?.[i] ?? `sections.${i}.url`);
  });

  // The other way: the generator's pages under an indexed section that the index does not hold.
  const { folders, bases } = sectionFolders(
    site,
    input.sections,
    input.languageFolders,
    input.canonicalFolder ?? '',
  );
  const leftOutAt = new Map<string, LeftOut>();
  for (const left of input.leftOut) {
    for (const candidate of left.url ? (pagesOf(site, left.url) ?? []) : []) leftOutAt.set(candidate, left);
  }
  const unindexed: UnindexedPage[] = [];
  for (const page of [...pages].sort()) {
    if (indexed.has(page)) continue;
    const folder = folders.find((f) => page.startsWith(f));
    if (folder === undefined || isListPage(page.slice(folder.length))) continue;
    if (isNestedList(page, input.listFolders)) continue;
    const url = new URL(
      page
        .replace(/(^|\/)index\.html?$/i, '$1')
        .split('/')
        .map(encodeURIComponent)
        .join('/'),
      site,
    ).href;
    // A redirect first: at a left-out item's address (a draft's), another page's alias is what the
    // generator wrote there, not the left-out page.
    if (input.redirectOf?.(page) !== undefined) continue;
    const left = leftOutAt.get(page);
    if (left) {
      unindexed.push({ page, url, reason: `left out: ${LEFT_OUT_WORDS[left.reason]}`, file: left.file });
      continue;
    }
    unindexed.push({
      page,
      url,
      reason:
        'no content file of the index has this address: its file is not among content.types, its route in site.config.ts differs from the address the generator gave it, or an earlier run of the generator left it in the output after its file was renamed or deleted (Hugo does not empty the output: hugo --cleanDestinationDir)',
    });
  }
  return { checked, dead, unindexed, uncovered: uncoveredRoutes(input, bases) };
}

/**
 * The routes that put pages outside every section folder (`/{year}/{month}/{slug}/`): the reverse check
 * looks in the section folders only, so it says which pages it could not reach rather than pass them over.
 */
function uncoveredRoutes(input: WitnessInput, bases: ReadonlySet<string>): string[] {
  const prefixes = new Set([
    ...input.languageFolders,
    ...(input.canonicalFolder ? [input.canonicalFolder] : []),
  ]);
  const out = new Set<string>();
  for (const { type, lang, route } of input.routes ?? []) {
    const segments = route.replace(/^\/+/, '').split('/');
    if (prefixes.has(`${segments[0]}/`)) segments.shift();
    const [first = ''] = segments;
    if (first === '{path}' || first === '{section}') continue;
    if (!first.includes('{') && bases.has(`${first.toLowerCase()}/`)) continue;
    out.add(`${type} pages in ${lang} (route ${route})`);
  }
  return [...out];
}

/**
 * The address a redirect at an indexed address sends its readers to, when that is another address of
 * the site: not the item's page. A redirect elsewhere (a link post's to another site) or to itself, or
 * one whose address cannot be read, is taken as the page the author meant.
 */
function redirectedAway(site: string, url: string, target: string | undefined): string | undefined {
  if (!target) return undefined;
  let to: URL;
  try {
    to = new URL(target, url);
  } catch {
    return undefined;
  }
  const base = new URL(site);
  const from = new URL(url);
  if (to.origin !== base.origin || !to.pathname.startsWith(base.pathname)) return undefined;
  return decodePath(to.pathname) === decodePath(from.pathname) ? undefined : to.href;
}

/** The reasons of LeftOut, as the witness says them beside a page the index does not hold. */
const LEFT_OUT_WORDS: Record<LeftOut['reason'], string> = {
  draft: 'a draft',
  future: 'dated in the future',
  expired: 'expired (expiryDate)',
  unrendered:
    'its _build.render (or build.render, which Hugo reads from 0.123 on) says Hugo renders no page for it',
  unlisted: 'listed nowhere by Hugo (_build.list: never)',
  headless: 'a headless bundle',
  'language-disabled': 'its language is disabled',
  'no-canonical': 'it has no file in the canonical language (content.withoutCanonical)',
};

/**
 * The output files an address may be served from: `/a/b/` is `a/b/index.html`; `/a/b.html` is itself;
 * `/a/b` is `a/b/index.html` or `a/b.html` (Pages serves either). Undefined for an address outside the site.
 */
export function pagesOf(site: string, url: string): string[] | undefined {
  let address: URL;
  try {
    address = new URL(url);
  } catch {
    return undefined;
  }
  const base = new URL(site);
  if (address.origin !== base.origin || !address.pathname.startsWith(base.pathname)) return undefined;
  const path = decodePath(address.pathname.slice(base.pathname.length));
  if (path === '' || path.endsWith('/')) return [`${path}index.html`];
  if (/\.[A-Za-z0-9]+$/.test(path)) return [path];
  return [`${path}/index.html`, `${path}.html`];
}

/** The folders of the indexed sections in the output: each section's, and the same under each language's folder. */
function sectionFolders(
  site: string,
  sections: readonly ResolvedSection[],
  languageFolders: readonly string[],
  canonicalFolder: string,
): { folders: string[]; bases: Set<string> } {
  const folders = new Set<string>();
  const bases = new Set<string>();
  for (const section of sections) {
    const [page] = pagesOf(site, section.url) ?? [];
    if (page === undefined) continue;
    // `posts/index.html` is the folder's own page; with uglyURLs, `posts.html` sits beside its folder.
    const folder = /(^|\/)index\.html?$/i.test(page)
      ? page.replace(/index\.html?$/i, '')
      : page.replace(/\.html?$/i, '/');
    if (folder === '' || folder === '/') continue; // the whole site is no section
    folders.add(folder);
    // In the canonical language's folder (`es/posts/`), another language's is in its own (`en/posts/`).
    const base =
      canonicalFolder !== '' && folder.startsWith(canonicalFolder)
        ? folder.slice(canonicalFolder.length)
        : folder;
    if (base === '') continue;
    bases.add(base.toLowerCase());
    for (const language of languageFolders) if (!base.startsWith(language)) folders.add(`${language}${base}`);
  }
  return { folders: [...folders], bases };
}

/** A nested section's list page (`posts/2024/index.html`, or `posts/2024.html` with uglyURLs), or its pagination. */
function isNestedList(page: string, listFolders: ReadonlySet<string> | undefined): boolean {
  if (!listFolders || listFolders.size === 0) return false;
  const lower = page.toLowerCase();
  const match = /^(.*\/)(?:index\.html?|page\/\d+\/index\.html?|page\/\d+\.html?)$/i.exec(lower);
  if (match?.[1] && listFolders.has(match[1])) return true;
  const ugly = /^(.*)\.html?$/i.exec(lower);
  return ugly?.[1] !== undefined && listFolders.has(`${ugly[1]}/`);
}

/** A section's own list page and its pagination (`page/2/`): pages of the section, not of an item. */
function isListPage(rest: string): boolean {
  return /^(?:index\.html?|page\/\d+\/index\.html?|page\/\d+\.html?)$/i.test(rest);
}

function likelyCause(
  candidates: readonly string[],
  pages: ReadonlySet<string>,
  folded: ReadonlyMap<string, string>,
): string {
  const [first = ''] = candidates;
  const near = candidates.map((c) => folded.get(foldPath(c))).find((p) => p !== undefined);
  if (near !== undefined)
    return `the generator wrote ${near}, which differs in case or Unicode form: check urls.lowercase and urls.removeAccents in site.config.ts against the generator's settings (Hugo: disablePathToLower, removePathAccents)`;
  const ugly = first.replace(/\/index\.html$/, '.html');
  if (ugly !== first && pages.has(ugly))
    return `the generator wrote ${ugly} (uglyURLs): end the route with .html instead of /`;
  const name = first
    .replace(/\/?index\.html$/, '')
    .split('/')
    .pop();
  const elsewhere = name
    ? [...pages].find(
        (page) =>
          page
            .replace(/\/?index\.html$/, '')
            .split('/')
            .pop() === name,
      )
    : undefined;
  if (elsewhere !== undefined)
    return `the generator wrote ${elsewhere}: the route of this type and language in site.config.ts differs from the address the generator gives it (Hugo: permalinks); make them agree`;
  return 'the generator wrote no page for it: it publishes this file under a rule the index does not know, or the generator ran on other content; run it again before the build, or leave the file out (draft: true)';
}

/** Case and Unicode form folded, to tell a near miss from a missing page. */
function foldPath(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
