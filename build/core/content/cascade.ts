import type { ContentLayout } from '../config/site-config.ts';
import { readDate } from '../edge/dates.ts';
import type { Language } from '../edge/languages.ts';
import type { FrontMatter } from './front-matter.ts';
import type { BranchFile, SourceFile } from './model.ts';
import {
  hugoPageFacts,
  leftOutBecause,
  type PublicationRules,
  type UnpublishedBranch,
} from './publication.ts';

/**
 * Hugo's `cascade`, as Hugo 0.111 applies it to what decides publication. A list page's file
 * (`_index.md`, per language) may carry `cascade:`, a map (or a list of maps, each with an optional
 * `_target` of `path`, `kind`, `lang`, `environment`; a single map's is not read) of front-matter values
 * for itself and every page below it that does not set the key itself; a nearer list page's value wins.
 * And a list page Hugo does not publish (a draft, dated ahead, expired: by its own front matter or a
 * cascade) takes every page below it with it, whatever those pages say. Only the keys that decide
 * publication are cascaded here.
 */

/** The front-matter keys whose cascaded values the index applies (lowercase, as Hugo reads keys). */
const PUBLICATION_KEYS = new Set([
  'draft',
  'date',
  'publishdate',
  'pubdate',
  'published',
  'expirydate',
  'unpublishdate',
  '_build',
  'build',
  'headless',
]);

export interface Cascaded {
  /** The file as Hugo reads it: its own front matter, and the cascaded keys it does not set. */
  file: SourceFile;
  branch?: UnpublishedBranch;
  /**
   * The first instant after now at which a list page above it comes out or goes (its date or
   * publishDate, its expiryDate, with what cascades to it): the clock alone then changes the page,
   * whatever the page's own dates say.
   */
  changesAt?: string;
}

/** A `_target` glob compiled as Hugo matches it (picomatch's, with `dot`): whether a path matches. */
export type CompileGlob = (glob: string) => (value: string) => boolean;

export interface CascadeOptions {
  branches: readonly BranchFile[];
  /**
   * Compiles the `_target` globs. The build's stage gives picomatch's, loaded only for a site with list
   * pages: every command loads this module, few sites cascade.
   */
  glob: CompileGlob;
  rules: PublicationRules;
  /** The build's instant, in the published form. */
  now: string;
  /** The content folder, relative to the project root (POSIX; `''` for the root itself). */
  contentDir: string;
  layout: ContentLayout;
}

type Block = { target?: Target; values: [string, unknown][] };
type Matcher = ReturnType<CompileGlob>;
interface Target {
  path?: Matcher;
  kind?: Matcher;
  lang?: Matcher;
  environment?: Matcher;
}

/** The list pages as Hugo reads them: what cascades to each place, and each list page's front matter. */
function listPages(options: Pick<CascadeOptions, 'branches' | 'glob' | 'contentDir' | 'layout'>) {
  const byPlace = new Map<string, BranchFile>();
  for (const branch of options.branches) byPlace.set(place(branch.lang, branch.dir), branch);
  const blocks = new Map<BranchFile, Block[]>();
  const blocksOf = (branch: BranchFile) => {
    const known = blocks.get(branch);
    if (known) return known;
    const made = cascadeBlocks(branch.data, options.glob);
    blocks.set(branch, made);
    return made;
  };
  const keyOf = (lang: Language) => options.layout.languageSuffixes?.[lang] ?? lang;
  const pathOf = (file: string) =>
    `/${withinContent(file, options.contentDir, options.layout)}`.toLowerCase();

  /** The branches above a place, the home page's first, the place's own (a list page's) last. */
  const chain = (lang: Language, dir: string): BranchFile[] => {
    const segments = dir === '' ? [] : dir.split('/');
    const out: BranchFile[] = [];
    for (let i = 0; i <= segments.length; i++) {
      const found = byPlace.get(place(lang, segments.slice(0, i).join('/')));
      if (found) out.push(found);
    }
    return out;
  };
  /** The cascaded values that reach a page or list page, nearest last. */
  const cascadedTo = (
    branches: readonly BranchFile[],
    page: { path: string; kind: string; lang: Language },
  ) => {
    const values = new Map<string, unknown>();
    for (const branch of branches) {
      // Within one list page's cascade the first block that sets a key wins, as hugo 0.111 merges
      // them (two blocks for the same pages: `- draft: true` then `- draft: false` is a draft).
      const own = new Map<string, unknown>();
      for (const block of blocksOf(branch)) {
        if (block.target && !matches(block.target, page, keyOf(page.lang))) continue;
        for (const [key, value] of block.values) if (!own.has(key)) own.set(key, value);
      }
      for (const [key, value] of own) values.set(key, value);
    }
    return values;
  };
  const read = new Map<BranchFile, { front: FrontMatter; facts: ReturnType<typeof hugoPageFacts> }>();
  /** A list page's front matter as Hugo reads it: its own, and what cascades to it. */
  const branchFront = (branch: BranchFile) => {
    const known = read.get(branch);
    if (known) return known;
    const values = cascadedTo(chain(branch.lang, branch.dir), {
      path: pathOf(branch.path),
      kind: branch.dir === '' ? 'home' : 'section',
      lang: branch.lang,
    });
    const data = withValues(branch.data, values) as Record<string, unknown>;
    const raw = lowercased(data);
    const date = raw.get('date');
    const written = typeof date === 'string' ? readDate(date) : undefined;
    const front = {
      draft: raw.get('draft') === true,
      ...(written?.ok && { date: written.published }),
    } as FrontMatter;
    const pseudo = { path: branch.path, data, lines: {}, lang: branch.lang } as unknown as SourceFile;
    const made = { front, facts: hugoPageFacts(pseudo, front) };
    read.set(branch, made);
    return made;
  };
  return { chain, cascadedTo, branchFront, pathOf };
}

/**
 * The list pages Hugo writes no page for (`_build.render` never or link, their own or cascaded to them,
 * a list page's own cascade included): a section whose list page is one has no page at its address.
 */
export function unrenderedLists(
  options: Pick<CascadeOptions, 'branches' | 'glob' | 'contentDir' | 'layout'>,
): BranchFile[] {
  const { branchFront } = listPages(options);
  return options.branches.filter((branch) => {
    const { facts } = branchFront(branch);
    return facts.problems.length === 0 && facts.unrendered;
  });
}

/** Applies the branches' cascades to pages; the same page object back when nothing reaches it. */
export function cascader(options: CascadeOptions): (file: SourceFile) => Cascaded {
  if (options.branches.length === 0) return (file) => ({ file });
  const { chain, cascadedTo, branchFront, pathOf } = listPages(options);
  /** The first instant after now at which the clock alone changes whether Hugo publishes a list page. */
  const branchChange = (branch: BranchFile): string | undefined => {
    const { facts } = branchFront(branch);
    if (facts.problems.length > 0) return undefined;
    let first: string | undefined;
    for (const date of [facts.publishDate, facts.expiryDate])
      if (date !== undefined && date > options.now && (first === undefined || date < first)) first = date;
    return first;
  };
  const unpublished = new Map<BranchFile, UnpublishedBranch | null>();
  /** Whether Hugo publishes a list page: by its own front matter and what cascades to it. */
  const branchState = (branch: BranchFile): UnpublishedBranch | undefined => {
    const known = unpublished.get(branch);
    if (known !== undefined) return known ?? undefined;
    const above = chain(branch.lang, branch.dir);
    const { front, facts } = branchFront(branch);
    const because =
      facts.problems.length > 0
        ? undefined
        : leftOutBecause(
            front,
            { ...facts, unrendered: false, unlisted: false, headless: false },
            branch.lang,
            options.rules,
            options.now,
          );
    let state: UnpublishedBranch | undefined;
    if (
      because &&
      (because.reason === 'draft' || because.reason === 'future' || because.reason === 'expired')
    )
      state = {
        reason: because.reason,
        ...(because.date !== undefined && { date: because.date }),
        file: branch.path,
      };
    // A list page Hugo does not publish takes its own list pages with it too.
    for (const parent of above) {
      if (parent === branch || state) continue;
      state = branchState(parent);
    }
    unpublished.set(branch, state ?? null);
    return state;
  };

  return (file) => {
    const branches = chain(file.lang, file.dir);
    if (branches.length === 0) return { file };
    let branch: UnpublishedBranch | undefined;
    for (const above of branches) branch ??= branchState(above);
    const values = cascadedTo(branches, { path: pathOf(file.path), kind: 'page', lang: file.lang });
    const own = new Set(ownKeys(file.data));
    for (const key of [...values.keys()]) if (own.has(key)) values.delete(key);
    const cascaded: Cascaded = { file: values.size === 0 ? file : withCascade(file, values) };
    if (branch) cascaded.branch = branch;
    for (const above of branches) {
      const date = branchChange(above);
      if (date !== undefined && (cascaded.changesAt === undefined || date < cascaded.changesAt))
        cascaded.changesAt = date;
    }
    return cascaded;
  };
}

const CASCADED = new WeakMap<SourceFile, { key: string; file: SourceFile }>();

/** The page with the cascaded values added, kept per page while they stay the same (dev's saves). */
function withCascade(file: SourceFile, values: ReadonlyMap<string, unknown>): SourceFile {
  const key = JSON.stringify([...values]);
  const known = CASCADED.get(file);
  if (known?.key === key) return known.file;
  const made = {
    path: file.path,
    type: file.type,
    name: file.name,
    dir: file.dir,
    lang: file.lang,
    ...(file.bundle && { bundle: true }),
    data: withValues(file.data, values),
  } as SourceFile;
  // The page's own, which may be read only when asked (stages/parse-cache.ts).
  Object.defineProperty(made, 'body', PAGE_BODY);
  if (file.bodyKey !== undefined) made.bodyKey = file.bodyKey;
  Object.defineProperty(made, 'lines', PAGE_LINES);
  PAGES.set(made, file);
  CASCADED.set(file, { key, file: made });
  return made;
}

/** The page each page with cascaded values was made from. */
const PAGES = new WeakMap<SourceFile, SourceFile>();

// One getter for every such page, not a closure of each: see stages/load.ts on dictionary mode.
const PAGE_BODY: PropertyDescriptor = {
  get(this: SourceFile) {
    return PAGES.get(this)?.body;
  },
  enumerable: true,
  configurable: true,
};
const PAGE_LINES: PropertyDescriptor = {
  get(this: SourceFile) {
    return PAGES.get(this)?.lines ?? {};
  },
  enumerable: true,
  configurable: true,
};

function withValues(data: unknown, values: ReadonlyMap<string, unknown>): unknown {
  const own = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {};
  const keys = new Set(ownKeys(own));
  const added = Object.fromEntries([...values].filter(([key]) => !keys.has(key)));
  return { ...added, ...own };
}

/** A list page's cascade blocks: the publication keys of each, with its target. */
function cascadeBlocks(data: unknown, compile: CompileGlob): Block[] {
  const cascade = lowercased(data).get('cascade');
  const isList = Array.isArray(cascade);
  const list = isList ? cascade : cascade === undefined ? [] : [cascade];
  const out: Block[] = [];
  for (const item of list) {
    const entries = lowercased(item);
    const values = isList ? listValues(item) : [...entries].filter(([key]) => PUBLICATION_KEYS.has(key));
    if (values.length === 0) continue;
    // Hugo 0.111 reads a single cascade map in its form from before 0.76, which had no `_target`: the
    // key is one more value, and the others reach every page below (the list page too). Honoured, it
    // published pages that hugo did not write (tests/commands/hugo-random-sites.test.ts found it).
    const target = isList ? lowercased(entries.get('_target')) : new Map<string, unknown>();
    const glob = (key: string) => {
      const value = target.get(key);
      return typeof value === 'string' && value !== '' ? compile(value.toLowerCase()) : undefined;
    };
    const made: Target = {};
    for (const key of ['path', 'kind', 'lang', 'environment'] as const) {
      const matcher = glob(key);
      if (matcher) made[key] = matcher;
    }
    out.push({ ...(Object.keys(made).length > 0 && { target: made }), values });
  }
  return out;
}

/** Keys Hugo 0.111 reads from a page's front matter in whatever case they are written. */
const ANY_CASE_KEYS = new Set(['draft', 'headless']);

/**
 * The publication values of one block of a cascade list, as Hugo 0.111 reads them: it does not lower
 * the case of a list's keys as it does a page's own and a single map's, and it looks for its date
 * keys and `_build` in lower case, so `expiryDate` or `publishDate` in a list reaches no page
 * (`draft` and `headless` it finds in any case; `published` as a boolean, not as a date).
 */
function listValues(block: unknown): [string, unknown][] {
  const values = new Map<string, unknown>();
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return [];
  for (const [key, value] of Object.entries(block)) {
    const lower = key.toLowerCase();
    if (!PUBLICATION_KEYS.has(lower) || values.has(lower)) continue;
    const read =
      key === lower || ANY_CASE_KEYS.has(lower) || (lower === 'published' && typeof value === 'boolean');
    if (read) values.set(lower, value);
  }
  return [...values];
}

/** Hugo's `_target`: each key given is a glob the page must match (`hugo` builds for production). */
function matches(target: Target, page: { path: string; kind: string }, langKey: string): boolean {
  if (target.path && !target.path(page.path)) return false;
  if (target.kind && !target.kind(page.kind)) return false;
  if (target.lang && !target.lang(langKey.toLowerCase())) return false;
  if (target.environment && !target.environment('production')) return false;
  return true;
}

/** A file's path from its language's content folder, as `_target.path` matches it (`posts/a.en.md`). */
function withinContent(file: string, contentDir: string, layout: ContentLayout): string {
  const within =
    contentDir !== '' && file.startsWith(`${contentDir}/`) ? file.slice(contentDir.length + 1) : file;
  if (layout.language !== 'folder') return within;
  const [first, ...rest] = within.split('/');
  return Object.values(layout.languageFolders).includes(first ?? '') ? rest.join('/') : within;
}

function place(lang: Language, dir: string): string {
  return `${lang}\u0000${dir.toLowerCase()}`;
}

function ownKeys(data: unknown): string[] {
  return typeof data === 'object' && data !== null ? Object.keys(data).map((k) => k.toLowerCase()) : [];
}

/** A mapping's values by lowercased key (the first spelling wins), as Hugo reads keys. */
function lowercased(value: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, inner] of Object.entries(value))
    if (!out.has(key.toLowerCase())) out.set(key.toLowerCase(), inner);
  return out;
}
