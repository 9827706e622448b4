import { isoSeconds } from './dates.ts';
import type { Problem } from './errors.ts';
import { type FrontMatter, validateFrontMatter } from './front-matter.ts';
import { CANONICAL_LANGUAGE, LANGUAGES, type Language } from './languages.ts';
import type {
  ContentEntry,
  ContentModel,
  LeftOut,
  SourceFile,
  Translation,
  UnreadableSource,
} from './model.ts';
import { printable } from './printable.ts';
import { type ContentLayout, type SiteConfig, siteUrl } from './site-config.ts';
import { slugProblem } from './slug.ts';

/** localeCompare's order, without making a collator per comparison (26,000 files sorted per build). */
const LOCALE = new Intl.Collator();

export interface AssembleOptions {
  /** Include files marked `draft: true`. */
  drafts?: boolean;
  /** Include files dated after `now`. */
  future?: boolean;
  now: Date;
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
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const checked = new Map<SourceFile, FrontMatter>();
  for (const file of files) {
    const result = validated(file);
    warnings.push(...result.warnings);
    if (!result.ok) {
      problems.push(...result.problems);
      continue;
    }
    // A file without a slug of its own publishes under its name, which follows the same rule.
    const why = result.data.slug === undefined ? slugProblem(file.name) : undefined;
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
  }

  // Group on translationKey when present (Hugo's rule), otherwise on the file name, within a type.
  const groups = new Map<string, SourceFile[]>();
  for (const file of files) {
    const key = translationKeyOf(file) ?? file.name;
    const id = `${file.type}/${key}`;
    const group = groups.get(id);
    if (group) group.push(file);
    else groups.set(id, [file]);
  }

  const entries: ContentEntry[] = [];
  const leftOut: LeftOut[] = [];
  const nowPublished = isoSeconds(options.now);
  for (const [id, group] of groups) {
    const byLang = new Map<Language, SourceFile>();
    for (const file of group) {
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
    const canonicalFile = byLang.get(CANONICAL_LANGUAGE);
    if (!canonicalFile) {
      // The Spanish file may be there but unreadable: its own error says so, and says enough.
      if (mayBeCanonical(group, options.unreadable ?? [])) continue;
      for (const file of byLang.values()) {
        problems.push({
          code: 'translation_orphan',
          file: file.path,
          line: file.lines.translationKey ?? 1,
          field: 'translationKey',
          message: `this ${file.lang} translation has no Spanish (canonical) file`,
          hint: `add ${printable(canonicalFileFor(file, config.content))}, or set translationKey to the Spanish file's translationKey or name`,
        });
      }
      continue;
    }

    const included = new Map<Language, Checked>();
    for (const lang of LANGUAGES) {
      const file = byLang.get(lang);
      const data = file && checked.get(file);
      if (!file || !data) continue;
      const reason = exclusion(data, options, nowPublished);
      if (reason) {
        const record: LeftOut = { file: file.path, reason, wholeItem: lang === CANONICAL_LANGUAGE };
        if (reason === 'future' && data.date) record.date = data.date;
        leftOut.push(record);
        continue;
      }
      included.set(lang, { file, data });
    }
    // Images are checked on every file (translations too), so a mistake surfaces before it is published.
    for (const file of byLang.values()) {
      const data = checked.get(file);
      if (data?.image !== undefined) {
        const image = resolvedImage(data.image, config.images);
        if (!image.ok) problems.push({ ...image.problem, file: file.path, line: file.lines.image ?? 1 });
      }
    }

    const canonical = included.get(CANONICAL_LANGUAGE);
    // An invalid Spanish file has already been reported; a left-out one takes its translations with it.
    if (!canonical || !checked.has(canonicalFile)) continue;
    const translations = {} as ContentEntry['translations'];
    for (const [lang, { file, data }] of included) {
      translations[lang] = translationOf(file, data, config);
    }
    const entry: ContentEntry = { id, type: canonical.file.type, translations };
    if (canonical.data.date) entry.date = canonical.data.date;
    if (canonical.data.image !== undefined) {
      const image = resolvedImage(canonical.data.image, config.images);
      if (image.ok) entry.image = image.url;
    }
    if (entry.type === 'project') entry.technologies = canonical.data.technologies ?? [];
    entries.push(entry);
  }

  const byPath = new Map(files.map((f) => [f.path, f]));
  problems.push(...addressConflicts(entries, (path) => byPath.get(path)?.lines.slug ?? 1));
  if (problems.length > 0) return { ok: false, problems, warnings };
  sortEntries(entries);
  leftOut.sort((a, b) => LOCALE.compare(a.file, b.file));
  return { ok: true, model: { entries, leftOut }, warnings };
}

/**
 * Whether an unreadable file could be the missing Spanish file of a group: same type, Spanish or of an
 * unknown language, and paired to it by name or by the translationKey its text shows.
 */
function mayBeCanonical(group: readonly SourceFile[], unreadable: readonly UnreadableSource[]): boolean {
  const keys = new Set(group.flatMap((file) => [file.name, translationKeyOf(file) ?? file.name]));
  return unreadable.some(
    (u) =>
      u.type === group[0]?.type &&
      (u.lang === undefined || u.lang === CANONICAL_LANGUAGE) &&
      (keys.has(u.name) || (u.translationKey !== undefined && keys.has(u.translationKey))),
  );
}

function translationKeyOf(file: SourceFile): string | undefined {
  const data = file.data as Record<string, unknown> | null;
  const key = typeof data === 'object' && data !== null ? data.translationKey : undefined;
  return typeof key === 'string' && key.trim() !== '' ? key : undefined;
}

/** Where the missing Spanish file would go, in the site's own layout. */
function canonicalFileFor(file: SourceFile, layout: ContentLayout): string {
  switch (layout.language) {
    case 'suffix':
      return file.path.replace(new RegExp(`\\.${file.lang}(\\.[a-z]+)$`), `.${CANONICAL_LANGUAGE}$1`);
    case 'folder': {
      const from = `/${layout.languageFolders[file.lang]}/`;
      const at = file.path.lastIndexOf(from);
      return at < 0
        ? `a Spanish file for ${file.path}`
        : `${file.path.slice(0, at)}/${layout.languageFolders[CANONICAL_LANGUAGE]}/${file.path.slice(at + from.length)}`;
    }
    case 'field':
      return `a Spanish file (${layout.languageField}: ${CANONICAL_LANGUAGE}) named ${file.name} or with the same translationKey`;
  }
}

/** Validated dates all have the published form (UTC, whole seconds), which sorts as text sorts. */
function exclusion(data: FrontMatter, options: AssembleOptions, now: string): LeftOut['reason'] | undefined {
  if (data.draft === true && !options.drafts) return 'draft';
  if (data.date && !options.future && data.date > now) return 'future';
  return undefined;
}

// Dev rebuilds keep the SourceFile of an unchanged file (the same object, stages/load.ts): what is
// worked out from it alone is kept by it, so that a save redoes one file's share.
const VALIDATED = new WeakMap<SourceFile, ReturnType<typeof validateFrontMatter>>();
const TRANSLATED = new WeakMap<FrontMatter, { site: string; pattern: string; translation: Translation }>();
const IMAGES = new Map<string, ImageResult>();

function validated(file: SourceFile): ReturnType<typeof validateFrontMatter> {
  let result = VALIDATED.get(file);
  if (!result) {
    result = validateFrontMatter(file);
    VALIDATED.set(file, result);
  }
  return result;
}

/** A translation, kept by its validated front matter (itself kept by its file) for the same routes. */
function translationOf(file: SourceFile, data: FrontMatter, config: SiteConfig): Translation {
  const pattern = config.routes[file.type][file.lang];
  const known = TRANSLATED.get(data);
  if (known && known.site === config.site && known.pattern === pattern) return known.translation;
  const translation = newTranslation(file, data, config);
  TRANSLATED.set(data, { site: config.site, pattern, translation });
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

function newTranslation(file: SourceFile, data: FrontMatter, config: SiteConfig): Translation {
  const slug = data.slug ?? file.name;
  const pattern = config.routes[file.type][file.lang];
  const translation: Translation = {
    lang: file.lang,
    title: data.title,
    slug,
    url: siteUrl(config.site, pattern.replaceAll('{slug}', encodeURIComponent(slug))),
    tags: data.tags ?? [],
    file: file.path,
  };
  if (data.description !== undefined) translation.description = data.description;
  if (data.date) translation.date = data.date;
  return translation;
}

type ImageResult = { ok: true; url: string } | { ok: false; problem: Omit<Problem, 'file' | 'line'> };

/** A relative image resolves on the image host; an absolute one must already be there. */
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
  const host = new URL(imageBase).host;
  // Shown without any user name or password: a message must not repeat a credential.
  const shown = () => `${url.protocol}//${url.host}${url.pathname}${url.search}${url.hash}`;
  const hint = `upload the image to ${imageBase} and write its path relative to it, e.g. image: posts/cover.png`;
  if (url.host !== host) {
    return {
      ok: false,
      problem: {
        code: 'image_host',
        field: 'image',
        message: `${shown()} is not on the image host ${host}`,
        hint,
      },
    };
  }
  // Published addresses are fetched by browsers and crawlers: plain http is a mixed-content warning or
  // a downgrade, and a user name or password in an address would publish a credential.
  if (url.protocol !== 'https:') {
    return {
      ok: false,
      problem: {
        code: 'image_host',
        field: 'image',
        message: `${shown()} must be an https: address`,
        hint,
      },
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      problem: {
        code: 'image_host',
        field: 'image',
        message: 'must not carry a user name or password (user:password@host)',
        hint,
      },
    };
  }
  return { ok: true, url: url.href };
}

function addressConflicts(entries: readonly ContentEntry[], slugLine: (file: string) => number): Problem[] {
  const owners = new Map<string, Translation>();
  const problems: Problem[] = [];
  const all = entries.flatMap((e) => Object.values(e.translations) as Translation[]);
  // Almost always every address is once: the files are sorted (to name the owner) only when one is not.
  const addresses = new Set<string>();
  for (const translation of all) addresses.add(translation.url);
  if (addresses.size === all.length) return problems;
  all.sort((a, b) => LOCALE.compare(a.file, b.file));
  for (const translation of all) {
    const owner = owners.get(translation.url);
    if (!owner) {
      owners.set(translation.url, translation);
      continue;
    }
    problems.push({
      code: 'address_conflict',
      file: translation.file,
      line: slugLine(translation.file),
      field: 'slug',
      message: `publishes ${translation.url}, the same address as ${printable(owner.file)}`,
      hint: 'give one of the two files a different slug',
    });
  }
  return problems;
}

/**
 * Newest first, undated last, ties by canonical address. Dates have one form (UTC, whole seconds, fixed
 * width), so comparing them as text is comparing them in time, and nothing is parsed.
 */
function sortEntries(entries: ContentEntry[]): void {
  const keyed = entries.map((entry) => ({ entry, date: entry.date ?? '', url: entry.translations.es.url }));
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  keyed.sort((a, b) => order(b.date, a.date) || order(a.url, b.url));
  keyed.forEach((k, i) => {
    entries[i] = k.entry;
  });
}
