import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptSite, expectBothDirections } from '../helpers/hugo-judge.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

// The index is the site, on Hugo sites no one wrote by hand: fast-check draws trilingual sites (Spanish
// or English by default, the default language in a folder or not, Portuguese disabled or not; the
// configuration in TOML, YAML, JSON or Hugo's config folder) of page files and bundles, in sections and
// a folder below one, paired by file name or translationKey, whose front matter mixes every publication
// rule (draft, date and publishDate ahead, expiryDate passed, _build, headless bundles, slugs, a page's
// own url, aliases; dates in each form both read, keys in any case), with list pages that cascade some
// of them (a map, or a list with _target; YAML or TOML) or are not published or rendered themselves;
// each language's files in one content folder or in one of its own (contentDir). Each site is adopted as
// a user adopts one (`init`, then hugo and the build), and the real hugo is the judge, both ways
// (tests/helpers/hugo-judge.ts). A failing site is printed with its seed and path:
// HUGO_SITES_SEED=<seed> HUGO_SITES_PATH=<path> builds it alone. Skipped without hugo.
const hugoVersion = spawnSync('hugo', ['version'], { encoding: 'utf8' });
const hasHugo = hugoVersion.status === 0;
if (!hasHugo)
  console.warn('hugo-random-sites.test.ts: skipped, hugo is not on the PATH (apt-get install hugo)');

const RUNS = Number(process.env.HUGO_SITES_RUNS ?? 12);
const SEED = Number(process.env.HUGO_SITES_SEED ?? 4242);
const PATH = process.env.HUGO_SITES_PATH;

const LAYOUTS = join(PROJECT_ROOT, 'tests/fixtures/hugo-sites/es-default-bundles/layouts');
const LANGS = ['es', 'en', 'pt-br'] as const;
type Lang = (typeof LANGS)[number];
/** Sections, and a folder below one (a nested section when it has a list page). */
const FOLDERS = ['posts', 'proyectos', 'posts/sub'] as const;

/** A field in one file of `every`. */
const rarely = <T>(value: fc.Arbitrary<T>, every = 5) =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
const PAST = '2020-01-01';
const AHEAD = '2099-01-01';

/** Hugo's configuration: the default (canonical) language, whether it has a folder, a disabled language. */
const config = fc.record({
  defaultLang: fc.constantFrom<Lang>('es', 'es', 'en'),
  inSubdir: rarely(fc.constant(true), 4).map((on) => on === true),
  disabled: rarely(fc.constant('pt-br' as const), 4),
  // Each language's pages in a folder of its own (`contentDir`), without language suffixes.
  dirs: rarely(fc.constant(true), 3).map((on) => on === true),
  // The configuration's file as init finds it: hugo.toml, hugo.yaml, config.json or config/_default/.
  form: fc.constantFrom('toml', 'toml', 'yaml', 'json', 'dir'),
});
type Config = typeof config extends fc.Arbitrary<infer C> ? C : never;
/** Hugo's configuration as data: what each of its forms below writes. */
function hugoConfig(c: Config): { site: Record<string, unknown>; languages: Record<string, unknown> } {
  return {
    site: {
      baseURL: 'https://blog.example.org/',
      title: 'Blog aleatorio',
      defaultContentLanguage: c.defaultLang,
      ...(c.inSubdir && { defaultContentLanguageInSubdir: true }),
      ...(c.disabled && { disableLanguages: [c.disabled] }),
    },
    languages: Object.fromEntries(
      LANGS.map((lang, i) => [lang, { weight: i + 1, ...(c.dirs && { contentDir: `content/${lang}` }) }]),
    ),
  };
}

/** The configuration's files, in the form drawn: hugo.toml, hugo.yaml, config.json, or config/_default/. */
function configFiles(c: Config): Record<string, string> {
  const { site, languages } = hugoConfig(c);
  const toml = (values: Record<string, unknown>) =>
    Object.entries(values).map(([key, value]) => `${key} = ${tomlValue(value)}`);
  const tables = (prefix: string) =>
    Object.entries(languages).flatMap(([lang, values]) => [
      `[${prefix}${lang}]`,
      ...toml(values as Record<string, unknown>).map((line) => `  ${line}`),
    ]);
  switch (c.form) {
    case 'yaml':
      return { 'hugo.yaml': yaml.dump({ ...site, languages }) };
    case 'json':
      return { 'config.json': `${JSON.stringify({ ...site, languages }, null, 2)}\n` };
    case 'dir':
      // Hugo's config folder: the site's keys in hugo.toml, the languages in a file named after the key.
      return {
        'config/_default/hugo.toml': `${toml(site).join('\n')}\n`,
        'config/_default/languages.toml': `${tables('').join('\n')}\n`,
      };
    default:
      return { 'hugo.toml': `${[...toml(site), ...tables('languages.')].join('\n')}\n` };
  }
}

/** Publication front matter, far from today on either side: hugo and the build read the same clock. */
const publication = fc.record({
  // The forms both read: a day, with a time and a zone or an offset, with a space, without a zone.
  date: rarely(
    fc.constantFrom(
      '2024-03-01',
      '2023-07-15T10:00:00Z',
      '2023-07-15T10:00:00+02:00',
      '2023-07-15 10:00:00',
      '2023-07-15T10:00:00',
      AHEAD,
    ),
    2,
  ),
  draft: rarely(fc.boolean()),
  publishDate: rarely(fc.constantFrom(PAST, AHEAD)),
  expiryDate: rarely(fc.constantFrom(PAST, AHEAD)),
  _build: rarely(
    fc.constantFrom(
      { render: 'never' },
      { list: 'never' },
      { render: 'always', list: 'local' },
      { render: 'link' },
      { publishResources: false },
    ),
    6,
  ),
});
const page = fc.record({
  publication,
  // Dates as YAML's own timestamps, or as quoted text.
  bareDates: fc.boolean(),
  // TOML front matter (`+++`), as `hugo new` writes it, its dates TOML's own.
  toml: rarely(fc.constant(true), 4),
  // Front-matter keys as authors write them: Hugo reads a page's own in any case.
  upperKeys: rarely(fc.constant(true), 4),
  slug: rarely(fc.constant(true), 4),
  headless: rarely(fc.constant(true), 6),
  // Its own address, outside the sections.
  url: rarely(fc.constant(true), 8),
  // Old addresses hugo writes a redirect page at: in its section, outside the sections, or another
  // item's in its language (a page there wins over the alias; where that item is left out, the alias
  // is written). Another language's alias written over a page stops the build (hugo-witness.test.ts).
  aliases: rarely(fc.constantFrom('section', 'outside', 'sibling'), 5),
});
const item = fc.record({
  folder: fc.constantFrom(...FOLDERS),
  bundle: fc.boolean(),
  // Paired by translationKey, each language's file under a name of its own.
  keyed: rarely(fc.constant(true), 4),
  // The default language most of the time; a page only in the others sometimes.
  es: fc.oneof({ weight: 4, arbitrary: page.map((p) => p as typeof p | undefined) }, fc.constant(undefined)),
  en: fc.oneof({ weight: 2, arbitrary: page.map((p) => p as typeof p | undefined) }, fc.constant(undefined)),
  'pt-br': rarely(page, 3),
});
const cascadeBlock = fc.oneof(
  fc.record({ draft: fc.boolean() }),
  fc.record({ expiryDate: fc.constantFrom(PAST, AHEAD) }),
  fc.record({ publishDate: fc.constantFrom(PAST, AHEAD) }),
  // In lower case: the only form of a date a cascade list's block gives for hugo 0.111.
  fc.record({ expirydate: fc.constantFrom(PAST, AHEAD) }),
  fc.record({ publishdate: fc.constantFrom(PAST, AHEAD) }),
  fc.record({ _build: fc.constantFrom({ list: 'never' }, { render: 'never' }) }),
  fc.record({
    draft: fc.constant(true),
    _target: fc.oneof(
      fc.record({ lang: fc.constantFrom('en', 'es') }),
      fc.record({ kind: fc.constantFrom('page', 'section') }),
      fc.record({ path: fc.constantFrom('/posts/sub/**', '/posts/item-1*', '**/index*') }),
    ),
  }),
);
/**
 * A cascade list's blocks, each key set by one of them only: hugo 0.111 applies two blocks with
 * different targets that both set a key in the random order of a Go map (the same page built ten times
 * was a draft once), so no judge can say which wins. Two blocks for the same pages, where the first
 * wins every time, are in hugo-rules.test.ts.
 */
function apart(blocks: Record<string, unknown>[]): Record<string, unknown>[] {
  const taken = new Set<string>();
  return blocks.filter((block) => {
    const keys = Object.keys(block).filter((key) => key !== '_target');
    if (keys.some((key) => taken.has(key))) return false;
    for (const key of keys) taken.add(key);
    return true;
  });
}
/** A list page in one language: its own publication, and what it cascades below it (a map, or a list of them). */
const listPage = fc.record({
  publication: fc.record({
    draft: rarely(fc.boolean(), 6),
    expiryDate: rarely(fc.constantFrom(PAST, AHEAD), 6),
  }),
  cascade: rarely(
    fc.oneof(cascadeBlock, fc.array(cascadeBlock, { minLength: 1, maxLength: 2 }).map(apart)),
    2,
  ),
  // TOML, its cascade in tables (`[cascade]`, `[[cascade]]`) and its dates TOML's own.
  toml: rarely(fc.constant(true), 3),
});
const site = fc.record({
  config,
  items: fc.array(item, { minLength: 2, maxLength: 7 }),
  lists: fc.array(
    fc.record({ folder: fc.constantFrom(...FOLDERS), lang: fc.constantFrom(...LANGS), page: listPage }),
    { maxLength: 3 },
  ),
});

const DATE_KEYS = new Set(['date', 'publishDate', 'expiryDate', 'publishdate', 'expirydate']);
function frontMatter(
  fields: Record<string, unknown>,
  style: { bareDates?: boolean; upperKeys?: boolean | undefined; toml?: boolean | undefined } = {},
): string {
  const lines = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const written = style.upperKeys ? key[0]?.toUpperCase() + key.slice(1) : key;
      const date = DATE_KEYS.has(key) && typeof value === 'string';
      if (style.toml) return `${written} = ${date ? value : tomlValue(value)}`;
      return `${written}: ${date && style.bareDates ? value : JSON.stringify(value)}`;
    });
  const fence = style.toml ? '+++' : '---';
  return `${fence}\n${lines.join('\n')}\n${fence}\n`;
}

/** The drawn values in TOML: strings, booleans, lists of strings, inline tables of those. */
function tomlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{ ${Object.entries(value)
      .map(([key, inner]) => `${key} = ${tomlValue(inner)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
}

function aliasOf(
  kind: 'section' | 'outside' | 'sibling',
  folder: string,
  i: number,
  lang: Lang,
  c: Config,
): string {
  if (kind === 'outside') return `/viejo/${i}-${lang}/`;
  if (kind === 'section') return `/${folder}/viejo-${i}-${lang}/`;
  const prefix = lang === c.defaultLang && !c.inSubdir ? '' : `${lang}/`;
  return `/${prefix}${folder}/item-${i + 1}/`;
}

/**
 * A list page's front matter in TOML as authors write it: its cascade as a table, or an array of
 * tables (`[[cascade]]`) with their `_target` and `_build` as sub-tables; dates unquoted.
 */
function tomlListPage(fields: Record<string, unknown>): string {
  const lines: string[] = [];
  const table = (header: string, values: Record<string, unknown>) => {
    const nested: [string, Record<string, unknown>][] = [];
    if (header) lines.push(header);
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined || key === 'cascade') continue;
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        nested.push([key, value as Record<string, unknown>]);
      else lines.push(`${key} = ${DATE_KEYS.has(key) ? value : tomlValue(value)}`);
    }
    const at = header.replace(/^\[+|\]+$/g, '');
    for (const [key, value] of nested) table(`[${at ? `${at}.` : ''}${key}]`, value);
  };
  table('', fields);
  const { cascade } = fields;
  if (Array.isArray(cascade)) for (const block of cascade) table('[[cascade]]', block);
  else if (cascade) table('[cascade]', cascade as Record<string, unknown>);
  return `+++\n${lines.join('\n')}\n+++\n`;
}

/** The site's files: content/ as drawn, the default language's without a suffix. */
type Site = typeof site extends fc.Arbitrary<infer S> ? S : never;
function filesOf(drawn: Site): Record<string, string> {
  const files: Record<string, string> = {};
  const { dirs, defaultLang } = drawn.config;
  const suffix = (lang: Lang) => (dirs || lang === defaultLang ? '' : `.${lang}`);
  const content = (lang: Lang) => (dirs ? `content/${lang}` : 'content');
  drawn.items.forEach((it, i) => {
    for (const lang of LANGS) {
      const p = it[lang];
      if (!p) continue;
      const name = it.keyed && lang !== defaultLang ? `otro-${i}` : `item-${i}`;
      const path = it.bundle
        ? `${content(lang)}/${it.folder}/${name}/index${suffix(lang)}.md`
        : `${content(lang)}/${it.folder}/${name}${suffix(lang)}.md`;
      files[path] = `${frontMatter(
        {
          title: `Item ${i} ${lang}`,
          ...p.publication,
          ...(it.keyed && { translationKey: `clave-${i}` }),
          ...(p.slug && { slug: `slug-${i}-${lang}` }),
          ...(p.url && { url: `/aparte/p-${i}-${lang}/` }),
          ...(p.headless && it.bundle && { headless: true }),
          ...(p.aliases && { aliases: [aliasOf(p.aliases, it.folder, i, lang, drawn.config)] }),
        },
        p,
      )}Texto ${i}.\n`;
    }
  });
  for (const list of drawn.lists) {
    const fields = {
      title: `Sección ${list.folder}`,
      ...list.page.publication,
      ...(list.page.cascade && { cascade: list.page.cascade }),
    };
    files[`${content(list.lang)}/${list.folder}/_index${suffix(list.lang)}.md`] = list.page.toml
      ? tomlListPage(fields)
      : frontMatter(fields);
  }
  return files;
}

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe.skipIf(!hasHugo)(
  `random Hugo sites, judged by ${hasHugo ? hugoVersion.stdout.split(' ')[1] : 'hugo'}`,
  () => {
    it('index exactly the pages hugo wrote under their sections, each other page named with its reason', async () => {
      const seen = { indexed: 0, leftOut: 0, inDirs: 0, aliases: 0, tomlCascades: 0 };
      await fc.assert(
        fc.asyncProperty(site, async (drawn) => {
          if (root) await rm(root, { recursive: true, force: true });
          root = await mkdtemp(join(tmpdir(), 'content-index-hugo-random-'));
          for (const [path, text] of Object.entries(configFiles(drawn.config))) {
            await mkdir(dirname(join(root, path)), { recursive: true });
            await writeFile(join(root, path), text);
          }
          await cp(LAYOUTS, join(root, 'layouts'), { recursive: true });
          for (const [path, text] of Object.entries(filesOf(drawn))) {
            await mkdir(dirname(join(root, path)), { recursive: true });
            await writeFile(join(root, path), text);
          }
          // HUGO_SITES_KEEP=<folder>: the site's sources copied there, to build it by hand.
          const keep = process.env.HUGO_SITES_KEEP;
          if (keep) {
            await rm(keep, { recursive: true, force: true });
            await cp(root, keep, { recursive: true });
          }
          const adopted = await adoptSite(root);
          seen.indexed += adopted.index.content.length;
          seen.leftOut += adopted.report.leftOut.length;
          if (drawn.config.dirs) seen.inDirs += adopted.index.content.length;
          seen.aliases += adopted.pages.filter((page) => page.includes('viejo')).length;
          seen.tomlCascades += drawn.lists.filter((list) => list.page.toml && list.page.cascade).length;
          // The sections the index lists (a section with no published item is not one), in each
          // language's folder; the nested section's list pages are lists, not items.
          const { defaultLang, inSubdir, disabled } = drawn.config;
          const prefix = (lang: Lang) => (lang === defaultLang && !inSubdir ? '' : `${lang}/`);
          const langs = LANGS.filter((lang) => lang !== disabled);
          const sections = adopted.index.sections.map((s) =>
            new URL(s.url).pathname.slice(1).slice(prefix(defaultLang).length),
          );
          await expectBothDirections(
            adopted,
            langs.flatMap((lang) => sections.map((section) => `${prefix(lang)}${section}`)),
            langs.map((lang) => `${prefix(lang)}posts/sub/index.html`),
          );
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true, ...(PATH && { path: PATH }) },
      );
      // Neither side is vacuous: the sites publish items, and leave some out.
      expect(seen.indexed).toBeGreaterThan(0);
      // Nor are the content folders per language, the alias pages hugo writes beside the items, or the
      // cascades in TOML.
      if (!PATH)
        for (const count of [seen.leftOut, seen.inDirs, seen.aliases, seen.tomlCascades])
          expect(count).toBeGreaterThan(0);
    }, 300_000);
  },
);
