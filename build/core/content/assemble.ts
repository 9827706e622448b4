import { addressSegment, expandRoute } from '../config/route-pattern.ts';
import { type ContentLayout, type SiteConfig, siteUrl } from '../config/site-config.ts';
import { isoSeconds } from '../edge/dates.ts';
import { LANGUAGES, type Language } from '../edge/languages.ts';
import type { Problem } from '../errors.ts';
import { printable } from '../printable.ts';
import { compareText } from '../text-order.ts';
import { type CompileGlob, cascader } from './cascade.ts';
import { type FrontMatter, validateFrontMatter } from './front-matter.ts';
import {
  type BranchFile,
  type ContentEntry,
  type ContentModel,
  type LeftOut,
  type SourceFile,
  type Translation,
  takeBody,
  translationWith,
  type UnreadableSource,
} from './model.ts';
import {
  type HugoPageFacts,
  hugoPageFacts,
  leftOutBecause,
  type PublicationRules,
  type UnpublishedBranch,
} from './publication.ts';
import { slugProblem } from './slug.ts';

export interface AssembleOptions {
  /** Include files marked `draft: true`. */
  drafts?: boolean;
  /** Include files dated after `now`. */
  future?: boolean;
  /** Hugo's page rules and switches (publication.ts), for a Hugo site. */
  hugo?: PublicationRules['hugo'];
  now: Date;
  /**
   * A Hugo site's list pages' files (`_index.md`): their `cascade` and publication (cascade.ts), with
   * what compiles their `_target` globs.
   */
  cascade?: { branches: readonly BranchFile[]; glob: CompileGlob };
  /** The content folder read, relative to the project root (POSIX), which `_target.path` is matched from. */
  contentDir?: string;
  /** Files found but not read: a translation group one of them may belong to is not reported as orphaned. */
  unreadable?: readonly UnreadableSource[];
}

export type AssembleResult =
  | { ok: true; model: ContentModel; warnings: Problem[] }
  | { ok: false; problems: Problem[]; warnings: Problem[] };

interface Checked {
  file: SourceFile;
  data: FrontMatter;
}

/**
 * Validates every file and pairs translations into entries. Collects every problem instead of stopping
 * at the first, so one build run tells the author everything that needs fixing.
 */
export function assemble(
  files: readonly SourceFile[],
  config: SiteConfig,
  options: AssembleOptions,
): AssembleResult {
  const { items, problems } = assembleItems(files, config, options);
  const entries = items.flatMap((item) => (item.entry ? [item.entry] : []));
  const order = new Map(files.map((file, i) => [file.path, i]));
  const warnings = items
    .flatMap((item) => item.warnings)
    .sort((a, b) => (order.get(a.file ?? '') ?? 0) - (order.get(b.file ?? '') ?? 0));
  const byPath = new Map(files.map((f) => [f.path, f]));
  problems.push(
    ...addressConflicts(entries, config.urls.lowercase, (path) => byPath.get(path)?.lines.slug ?? 1),
  );
  if (problems.length > 0) return { ok: false, problems, warnings };
  sortEntries(entries);
  const leftOut = items.flatMap((item) => item.leftOut).sort(leftOutOrder);
  return { ok: true, model: { entries, leftOut }, warnings };
}

/** One item as its files make it: its entry (none when its canonical file is left out), what it leaves out. */
export interface AssembledItem {
  /** `post/rag-en-produccion`: the type and the translation key (or file name) that pairs its files. */
  id: string;
  entry?: ContentEntry;
  leftOut: LeftOut[];
  /** Its files' warnings, each file's in order. */
  warnings: Problem[];
  /**
   * The earliest date after `now` any of its files carries (published form): the item may change when
   * the clock reaches it (a future-dated file comes due, a Hugo page expires), with no file changed.
   */
  changesAt?: string;
}

/** The item a file belongs to: Hugo pairs translations on translationKey, else on the file name, within a type. */
export function itemOf(file: SourceFile): string {
  return `${file.type}/${translationKeyOf(file) ?? file.name}`;
}

/**
 * Validates the files and pairs them into items, one item per {@link itemOf}, in the order the items'
 * files come: what each item is depends on its own files alone (and the configuration and clock), so a
 * build may assemble only the items whose files changed. The checks across items (addresses) and the
 * order are {@link assemble}'s.
 */
export function assembleItems(
  sources: readonly SourceFile[],
  config: SiteConfig,
  options: AssembleOptions,
): { items: AssembledItem[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const warnings = new Map<SourceFile, Problem[]>();
  const checked = new Map<SourceFile, FrontMatter>();
  const days = new Map<SourceFile, string>();
  const facts = new Map<SourceFile, HugoPageFacts>();
  const urls = JSON.stringify(config.urls);
  const rules: PublicationRules = {
    drafts: (options.drafts ?? false) || (options.hugo?.buildDrafts ?? false),
    future: (options.future ?? false) || (options.hugo?.buildFuture ?? false),
    ...(options.hugo && { hugo: options.hugo }),
  };
  const { canonicalLanguage: canonicalLang, languages } = config;
  // A Hugo site's cascades (its _index.md files) reach the pages below them, as Hugo applies them.
  const above = new Map<SourceFile, UnpublishedBranch>();
  /** When a list page above a page comes out or goes, by the clock alone. */
  const branchChanges = new Map<SourceFile, string>();
  let files = sources;
  if (options.hugo && options.cascade && options.cascade.branches.length > 0) {
    const cascade = cascader({
      branches: options.cascade.branches,
      glob: options.cascade.glob,
      rules,
      now: isoSeconds(options.now),
      contentDir: options.contentDir ?? config.content.dir,
      layout: config.content,
    });
    files = sources.map((source) => {
      const cascaded = cascade(source);
      if (cascaded.branch) above.set(cascaded.file, cascaded.branch);
      if (cascaded.changesAt !== undefined) branchChanges.set(cascaded.file, cascaded.changesAt);
      return cascaded.file;
    });
  }
  for (const file of files) {
    if (!languages.includes(file.lang) && !options.hugo?.disabledLanguages.includes(file.lang)) {
      problems.push({
        code: 'language_unknown',
        file: file.path,
        line: 1,
        field: 'language',
        message: `is a ${file.lang} file, and ${file.lang} is not one of the site's languages (${languages.join(', ')})`,
        hint: `add '${file.lang}' to languages in site.config.ts, or leave its files out with content.skipLanguages`,
      });
      continue;
    }
    const result = validated(file, config, urls);
    if (result.warnings.length > 0) warnings.set(file, result.warnings);
    if (!result.ok) {
      problems.push(...result.problems);
      continue;
    }
    if (options.hugo) {
      const known = hugoPageFacts(file, result.data);
      if (known.problems.length > 0) {
        problems.push(...known.problems);
        continue;
      }
      const branch = above.get(file);
      facts.set(file, branch ? { ...known, above: branch } : known);
    }
    // A file without a slug of its own publishes under its name, which follows the same rule.
    const why =
      result.data.slug === undefined ? slugProblem(addressSegment(file.name, config.urls)) : undefined;
    if (why) {
      problems.push({
        code: 'field_invalid',
        file: file.path,
        line: 1,
        field: 'slug',
        message: `the file name cannot be the page's slug: ${JSON.stringify(file.name)} ${why}`,
        hint: 'rename the file (or its bundle folder), or give it a slug: in the front matter',
      });
      continue;
    }
    checked.set(file, result.data);
    if (result.day !== undefined) days.set(file, result.day);
  }

  // Group on translationKey when present (Hugo's rule), otherwise on the file name, within a type.
  const groups = new Map<string, SourceFile[]>();
  for (const file of files) {
    const id = itemOf(file);
    const group = groups.get(id);
    if (group) group.push(file);
    else groups.set(id, [file]);
  }

  const items: AssembledItem[] = [];
  const nowPublished = isoSeconds(options.now);
  /** The address a left-out file would have, when it can be worked out: the output's pages are matched to it. */
  const wouldBe = (record: LeftOut, file: SourceFile): LeftOut => {
    const data = checked.get(file);
    if (!data) return record;
    const translation = translationOf(file, data, days.get(file), config, urls);
    return 'problem' in translation ? record : { ...record, url: translation.url };
  };
  for (const [id, group] of groups) {
    const leftOut: LeftOut[] = [];
    const item: AssembledItem = {
      id,
      leftOut,
      warnings: group.flatMap((file) => warnings.get(file) ?? []),
    };
    items.push(item);
    // Its date, Hugo's publishDate (a page comes out) and expiryDate (a page goes), and those of the
    // list pages above it (one that goes takes the page with it): what the clock changes.
    for (const file of group) {
      const page = facts.get(file);
      const dates = [checked.get(file)?.date, page?.publishDate, page?.expiryDate, branchChanges.get(file)];
      for (const date of dates) {
        if (
          date !== undefined &&
          date > nowPublished &&
          (item.changesAt === undefined || date < item.changesAt)
        )
          item.changesAt = date;
      }
    }
    const byLang = new Map<Language, SourceFile>();
    for (const file of group) {
      if (!languages.includes(file.lang)) {
        leftOut.push(
          wouldBe({ file: file.path, item: id, reason: 'language-disabled', wholeItem: false }, file),
        );
        continue;
      }
      const first = byLang.get(file.lang);
      if (first) {
        problems.push({
          code: 'translation_duplicate',
          file: file.path,
          line: file.lines.translationKey ?? 1,
          field: 'translationKey',
          message: `a second ${file.lang} file for "${id}"; ${printable(first.path)} is the first`,
          hint: 'give one of them a different file name or translationKey',
        });
      } else {
        byLang.set(file.lang, file);
      }
    }
    const canonicalFile = byLang.get(canonicalLang);
    if (!canonicalFile) {
      // The canonical file may be there but unreadable: its own error says so, and says enough.
      if (mayBeCanonical(group, canonicalLang, options.unreadable ?? [])) continue;
      const leave = config.content.withoutCanonical === 'leave-out';
      for (const file of byLang.values()) {
        if (leave) {
          // A draft (or a page Hugo would not publish anyway) is left out for that reason first.
          const data = checked.get(file);
          const because = data && leftOutBecause(data, facts.get(file), file.lang, rules, nowPublished);
          const record = wouldBe(
            { file: file.path, item: id, reason: because?.reason ?? 'no-canonical', wholeItem: true },
            file,
          );
          if (because?.date !== undefined) record.date = because.date;
          leftOut.push(record);
          continue;
        }
        problems.push({
          code: 'translation_orphan',
          file: file.path,
          line: file.lines.translationKey ?? 1,
          field: 'translationKey',
          message: `this ${file.lang} translation has no ${LANGUAGE_NAME[canonicalLang]} (canonical) file`,
          hint: noCanonicalSuffix(config.content, canonicalLang)
            ? `the site's languages have no ${LANGUAGE_NAME[canonicalLang]} one (content.languageSuffixes in site.config.ts, from Hugo's languages): add ${canonicalLang} there (in Hugo: a languages.${canonicalLang} entry, then content-index init again on a new site.config.ts) and a ${LANGUAGE_NAME[canonicalLang]} file for each item`
            : `add ${printable(canonicalFileFor(file, config.content, canonicalLang))}, or set translationKey to the ${LANGUAGE_NAME[canonicalLang]} file's translationKey or name; or, to leave such items out, set content: { withoutCanonical: 'leave-out' } in site.config.ts`,
        });
      }
      continue;
    }

    const included = new Map<Language, Checked>();
    let whole: LeftOut | undefined;
    for (const lang of LANGUAGES) {
      const file = byLang.get(lang);
      const data = file && checked.get(file);
      if (!file || !data) continue;
      const because = leftOutBecause(data, facts.get(file), lang, rules, nowPublished);
      if (because) {
        const record = wouldBe(
          { file: file.path, item: id, reason: because.reason, wholeItem: lang === canonicalLang },
          file,
        );
        if (because.date !== undefined) record.date = because.date;
        if (record.wholeItem) whole = record;
        leftOut.push(record);
        continue;
      }
      included.set(lang, { file, data });
    }
    // A left-out canonical file takes its translations with it: each is named, so every file is accounted for.
    if (whole) {
      for (const { file } of included.values())
        leftOut.push(
          wouldBe({ file: file.path, item: id, reason: whole.reason, wholeItem: false, along: true }, file),
        );
    }
    // Images are checked on every file (translations too), so a mistake surfaces before it is published.
    for (const file of byLang.values()) {
      const data = checked.get(file);
      if (data?.image !== undefined) {
        const image = resolvedImage(data.image, config.images);
        if (!image.ok) problems.push({ ...image.problem, file: file.path, line: file.lines.image ?? 1 });
      }
    }

    const canonical = included.get(canonicalLang);
    // An invalid canonical file has already been reported; a left-out one takes its translations with it.
    if (!canonical || !checked.has(canonicalFile)) continue;
    const translations: ContentEntry['translations'] = {};
    let addressed = true;
    for (const [lang, { file, data }] of included) {
      const translation = translationOf(file, data, days.get(file), config, urls);
      if ('problem' in translation) {
        problems.push(translation.problem);
        addressed = false;
      } else {
        const publishDate = facts.get(file)?.publishDate;
        translations[lang] =
          publishDate !== undefined && publishDate !== translation.date
            ? translationWith(translation, { publishDate })
            : translation;
      }
    }
    const canonicalTranslation = translations[canonicalLang];
    if (!addressed || !canonicalTranslation) continue;
    const entry: ContentEntry = {
      id,
      type: canonical.file.type,
      canonical: canonicalTranslation,
      translations,
    };
    if (canonical.data.date) entry.date = canonical.data.date;
    if (canonical.data.image !== undefined) {
      const image = resolvedImage(canonical.data.image, config.images);
      if (image.ok) entry.image = image.url;
    }
    if (entry.type === 'project') entry.technologies = canonical.data.technologies ?? [];
    item.entry = entry;
  }
  return { items, problems };
}

/** The report's order of left-out files. */
export function leftOutOrder(a: LeftOut, b: LeftOut): number {
  return compareText(a.file, b.file);
}

/**
 * Whether an unreadable file could be the missing Spanish file of a group: same type, Spanish or of an
 * unknown language, and paired to it by name or by the translationKey its text shows.
 */
function mayBeCanonical(
  group: readonly SourceFile[],
  canonical: Language,
  unreadable: readonly UnreadableSource[],
): boolean {
  const keys = new Set(group.flatMap((file) => [file.name, translationKeyOf(file) ?? file.name]));
  return unreadable.some(
    (u) =>
      u.type === group[0]?.type &&
      (u.lang === undefined || u.lang === canonical) &&
      (keys.has(u.name) || (u.translationKey !== undefined && keys.has(u.translationKey))),
  );
}

function translationKeyOf(file: SourceFile): string | undefined {
  const data = file.data as Record<string, unknown> | null;
  const key = typeof data === 'object' && data !== null ? data.translationKey : undefined;
  return typeof key === 'string' && key.trim() !== '' ? key : undefined;
}

const LANGUAGE_NAME: Record<Language, string> = { es: 'Spanish', en: 'English', 'pt-br': 'Portuguese' };

/** A suffix list without the canonical language (a Hugo site's languages): no file name can make its file. */
function noCanonicalSuffix(layout: ContentLayout, canonical: Language): boolean {
  return (
    layout.language === 'suffix' &&
    layout.languageSuffixes !== undefined &&
    layout.languageSuffixes[canonical] === undefined
  );
}

/** Where the missing canonical file would go, in the site's own layout. */
function canonicalFileFor(file: SourceFile, layout: ContentLayout, canonical: Language): string {
  const name = LANGUAGE_NAME[canonical];
  switch (layout.language) {
    case 'suffix': {
      const [, stem = file.path, extension = ''] = /^(.*?)(\.[A-Za-z]+)$/.exec(file.path) ?? [];
      // A file of the layout's default language carries no suffix: the canonical one goes before the extension.
      const base = file.lang === layout.defaultLanguage ? stem : stem.replace(/\.[^./]+$/, '');
      return `${base}.${layout.languageSuffixes?.[canonical] ?? canonical}${extension}`;
    }
    case 'folder': {
      const from = `/${layout.languageFolders[file.lang]}/`;
      const at = file.path.lastIndexOf(from);
      return at < 0
        ? `a ${name} file for ${file.path}`
        : `${file.path.slice(0, at)}/${layout.languageFolders[canonical]}/${file.path.slice(at + from.length)}`;
    }
    case 'field':
      return `a ${name} file (${layout.languageField}: ${canonical}) named ${file.name} or with the same translationKey`;
  }
}

// Dev rebuilds keep the SourceFile of an unchanged file (the same object, stages/load.ts): what is
// worked out from it alone is kept by it, so that a save redoes one file's share.
type Validated = ReturnType<typeof validateFrontMatter>;
type Addressed = Translation | { problem: Problem };
const VALIDATED = new WeakMap<SourceFile, { urls: string; result: Validated }>();
const TRANSLATED = new WeakMap<FrontMatter, { key: string; translation: Addressed }>();
const IMAGES = new Map<string, ImageResult>();

function validated(file: SourceFile, config: SiteConfig, urls: string): Validated {
  const known = VALIDATED.get(file);
  if (known && known.urls === urls) return known.result;
  const result = validateFrontMatter(file, config.urls);
  VALIDATED.set(file, { urls, result });
  return result;
}

/** A translation, kept by its validated front matter (itself kept by its file) for the same routes. */
function translationOf(
  file: SourceFile,
  data: FrontMatter,
  day: string | undefined,
  config: SiteConfig,
  urls: string,
): Addressed {
  const key = `${config.site}\u0000${config.routes[file.type][file.lang]}\u0000${urls}\u0000${day ?? ''}\u0000${file.dir}`;
  const known = TRANSLATED.get(data);
  if (known && known.key === key) return known.translation;
  const translation = newTranslation(file, data, day, config);
  TRANSLATED.set(data, { key, translation });
  return translation;
}

function resolvedImage(image: string, imageBase: string): ImageResult {
  const key = `${imageBase}\u0000${image}`;
  let result = IMAGES.get(key);
  if (!result) {
    result = resolveImage(image, imageBase);
    if (IMAGES.size > 100_000) IMAGES.clear();
    IMAGES.set(key, result);
  }
  return result;
}

function newTranslation(
  file: SourceFile,
  data: FrontMatter,
  day: string | undefined,
  config: SiteConfig,
): Addressed {
  const slug = data.slug ?? file.name;
  const address = addressOf(file, data, day, config);
  if (typeof address !== 'string') return address;
  const translation: Translation = {
    lang: file.lang,
    title: data.title,
    slug,
    url: address,
    tags: data.tags ?? [],
    file: file.path,
  };
  if (data.description !== undefined) translation.description = data.description;
  if (data.date) translation.date = data.date;
  takeBody(translation, file);
  return translation;
}

/** The page's address: its route filled in, or (Hugo's rule) the `url` its front matter sets. */
function addressOf(
  file: SourceFile,
  data: FrontMatter,
  day: string | undefined,
  config: SiteConfig,
): string | { problem: Problem } {
  const pattern = config.routes[file.type][file.lang];
  if (config.urls.style === 'hugo') {
    const url = frontMatterUrl(data);
    if (typeof url === 'string' && url.startsWith('/')) {
      // Hugo takes it as written, from the site's root: no language prefix, no lowercasing.
      const path = /\.[a-z0-9]+$/i.test(url) || url.endsWith('/') ? url : `${url}/`;
      return siteUrl(config.site, path.split('/').map(encodeSegment).join('/'));
    }
    if (url !== undefined) {
      return {
        problem: {
          code: 'field_invalid',
          file: file.path,
          line: file.lines.url ?? 1,
          field: 'url',
          message: `${JSON.stringify(url)}: content-index reads a url written from the site's root only`,
          hint: 'start it with / and the language folder Hugo puts it under, e.g. url: /en/about/',
        },
      };
    }
  }
  const filled = expandRoute(
    pattern,
    {
      ...(data.slug !== undefined && { slug: data.slug }),
      filename: file.name,
      title: data.title,
      dir: file.dir,
      ...(day !== undefined && { day }),
    },
    config.urls,
  );
  if (filled.ok) return siteUrl(config.site, filled.path);
  return {
    problem: {
      code: 'field_invalid',
      file: file.path,
      line: filled.token === 'title' || filled.token === 'slugOrTitle' ? (file.lines.title ?? 1) : 1,
      field: ['year', 'month', 'day'].includes(filled.token) ? 'date' : filled.token,
      message: `${filled.message}; the ${file.type} route for ${file.lang} is ${pattern}`,
      hint:
        filled.token === 'section'
          ? 'move the file into a folder, or change the route in site.config.ts'
          : ['year', 'month', 'day'].includes(filled.token)
            ? 'give it a date, or change the route in site.config.ts'
            : 'give it a slug, or change the route in site.config.ts',
    },
  };
}

/** Hugo reads front-matter keys without regard to case (`URL`, `url`). */
function frontMatterUrl(data: FrontMatter): unknown {
  const key = Object.keys(data).find((k) => k.toLowerCase() === 'url');
  return key === undefined ? undefined : (data as unknown as Record<string, unknown>)[key];
}

/** Percent-encode what an address cannot carry as it is, keeping what already is an escape. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(decodeSafely(segment));
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

type ImageResult = { ok: true; url: string } | { ok: false; problem: Omit<Problem, 'file' | 'line'> };

/**
 * A relative image resolves on the image host, under its folder; an absolute one must already be there.
 * What is published is what was written: a value the URL parser would rewrite (`..` segments, a path
 * from the host's root outside its folder) is refused rather than published as another address.
 */
export function resolveImage(image: string, imageBase: string): ImageResult {
  let url: URL;
  try {
    url = new URL(image, imageBase);
  } catch {
    return {
      ok: false,
      problem: {
        code: 'field_invalid',
        field: 'image',
        message: `is not a valid address: ${JSON.stringify(image)}`,
      },
    };
  }
  const base = new URL(imageBase);
  const host = base.host;
  // Quoted as written, without any user name or password: a message must not repeat a credential.
  const shown = url.username !== '' || url.password !== '' ? withoutCredentials(image) : image;
  const hint = `upload the image to ${imageBase} and write its path relative to it, e.g. image: posts/cover.png`;
  const refused = (code: Problem['code'], message: string, why = hint): ImageResult => ({
    ok: false,
    problem: { code, field: 'image', message, hint: why },
  });
  // Published addresses are fetched by browsers and crawlers: only https on the image host (javascript:,
  // data: or plain http would be a script, an inline blob, a mixed-content warning or a downgrade).
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return refused('image_host', `${shown} must be an https: address on the image host ${host}`);
  if (url.host !== host) return refused('image_host', `${shown} is not on the image host ${host}`);
  if (url.protocol !== 'https:') return refused('image_host', `${shown} must be an https: address`);
  if (url.username !== '' || url.password !== '')
    return refused('image_host', 'must not carry a user name or password (user:password@host)');
  const dotHint = `write the path from the image host’s folder ${imageBase} without .. segments, e.g. image: posts/cover.png`;
  // The path as written, up to its query: the URL parser reads \ as / and %2e as a dot.
  const segments = (image.split(/[?#]/)[0] ?? '').split(/[\\/]/);
  if (segments.some((segment) => /^(?:\.|%2e){2}$/i.test(segment)))
    return refused(
      'field_invalid',
      `${shown} has a .. segment, which would publish another address than the one written`,
      dotHint,
    );
  // A relative path stays in the host's folder; an absolute address on the host is taken as written.
  const relative = !/^[a-z][a-z0-9+.-]*:/i.test(image);
  if (relative && !url.href.startsWith(base.href))
    return refused(
      'image_host',
      `${shown} resolves to ${url.href}, outside the image host’s folder ${base.href}`,
      dotHint,
    );
  return { ok: true, url: url.href };
}

/** `https://user:secret@host/a.png` → `https://host/a.png`: the rest as written. */
function withoutCredentials(written: string): string {
  const authority = /^([a-z][a-z0-9+.-]*:[\\/]*)([^\\/?#]*)/i.exec(written);
  if (!authority) return written;
  const [whole, scheme = '', rest = ''] = authority;
  const at = rest.lastIndexOf('@');
  return at < 0 ? written : `${scheme}${rest.slice(at + 1)}${written.slice(whole.length)}`;
}

/**
 * One address, one item. Addresses are compared as a reader's browser and the host's file system see
 * them: after Unicode NFC (`café` typed composed or decomposed is one word) and without regard to case
 * (`Hola` and `hola` are one file where the output is copied to a case-insensitive disk, and one page
 * to a reader). Two files whose addresses compare equal are an error naming both; `slugLine` gives the
 * line of a file's slug.
 */
export function addressConflicts(
  entries: readonly ContentEntry[],
  lowercased: boolean,
  slugLine: (file: string) => number,
): Problem[] {
  const owners = new Map<string, Translation>();
  const problems: Problem[] = [];
  const all = entries.flatMap((e) => Object.values(e.translations) as Translation[]);
  // Almost always every address is once: the files are sorted (to name the owner) only when one is not.
  const addresses = new Set<string>();
  for (const translation of all) addresses.add(addressKey(translation.url));
  if (addresses.size === all.length) return problems;
  all.sort((a, b) => compareText(a.file, b.file));
  for (const translation of all) {
    const key = addressKey(translation.url);
    const owner = owners.get(key);
    if (!owner) {
      owners.set(key, translation);
      continue;
    }
    const same = owner.url === translation.url;
    const how =
      same || decodeSafely(owner.url) === decodeSafely(translation.url)
        ? 'the same address as'
        : decodeSafely(owner.url).normalize('NFC') === decodeSafely(translation.url).normalize('NFC')
          ? `the same address, once its Unicode is normalized (NFC), as ${printable(owner.url)} of`
          : `an address that differs only by case from ${printable(owner.url)} of`;
    problems.push({
      code: 'address_conflict',
      file: translation.file,
      line: slugLine(translation.file),
      field: 'slug',
      message: `publishes ${translation.url}, ${how} ${printable(owner.file)}`,
      hint: same
        ? 'give one of the two files a different slug'
        : `give one of the two files a different slug${lowercased ? '' : " (addresses are compared without regard to case or Unicode form: a reader's browser and a case-insensitive disk take them for one)"}`,
    });
  }
  return problems;
}

/** An address as compared for collisions: decoded, NFC, lowercase. */
export function addressKey(url: string): string {
  return decodeSafely(url).normalize('NFC').toLowerCase();
}

/**
 * Newest first, undated last, ties by canonical address. Dates have one form (UTC, whole seconds, fixed
 * width), so comparing them as text is comparing them in time, and nothing is parsed.
 */
function sortEntries(entries: ContentEntry[]): void {
  const keyed = entries.map((entry) => ({ entry, date: entry.date, url: entry.canonical.url }));
  keyed.sort(entryOrder);
  keyed.forEach((k, i) => {
    entries[i] = k.entry;
  });
}

/** The index's order of two entries, by their date and canonical address. */
export function entryOrder(a: { date?: string; url: string }, b: { date?: string; url: string }): number {
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return order(b.date ?? '', a.date ?? '') || order(a.url, b.url);
}
