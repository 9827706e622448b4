import type { ContentLayout } from '../config/site-config.ts';
import { type ContentType, LANGUAGES, type Language, normalizeLanguage } from '../edge/languages.ts';
import type { Problem } from '../errors.ts';

/** Where a file sits says what it is. `lang` is undefined under the `field` rule until its front matter is read. */
export interface Location {
  type: ContentType;
  /** File name without language and extension; for a page bundle (`name/index.md`), the folder name. */
  name: string;
  /**
   * The folders from the content folder to the page, POSIX: a page bundle's own folder and the `folder`
   * rule's language folder left out (`posts/2024` for `posts/2024/hola.es.md` and `posts/2024/hola/index.md`).
   */
  dir: string;
  lang?: Language;
  /** A page bundle's page (`name/index.md`). */
  bundle?: true;
}

/** `skip`: a file of a language the site has and content-index does not publish (`skipLanguages`). */
export type LocationResult = Location | { problem: Omit<Problem, 'file'> } | { skip: string };

const EXTENSION = /\.(md|markdown|mdx)$/i;
/** Looks like a language code: two or three letters, optionally a region. */
const LANGUAGE_LIKE = /^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?$/i;

/** The folder part of a glob before its first wildcard: `blog/**\/*.md` → `blog`. */
export function globBase(glob: string): string {
  const segments = glob.split('/');
  const firstWild = segments.findIndex((s) => /[*?[\]{}()!]/.test(s));
  return segments.slice(0, firstWild === -1 ? segments.length - 1 : firstWild).join('/');
}

/**
 * Reads type, name and language off a path relative to the content folder. `base` is the static part
 * of the glob that matched it, so names and language folders are read below it.
 */
export function locate(
  relPath: string,
  type: ContentType,
  base: string,
  layout: ContentLayout,
): LocationResult {
  const within = base && relPath.startsWith(`${base}/`) ? relPath.slice(base.length + 1) : relPath;
  const segments = within.split('/');
  const file = (segments.pop() ?? '').replace(EXTENSION, '');
  // The folders above the glob's base are part of the page's place too (`{path}` in a route).
  const above = base && relPath.startsWith(`${base}/`) ? base.split('/') : [];
  switch (layout.language) {
    case 'suffix':
      return bySuffix(file, segments, above, type, layout);
    case 'folder':
      return byFolder(file, segments, above, type, layout);
    case 'field':
      return { type, ...named(file, segments, above) };
  }
}

/** A page bundle (`name/index.md`) is named after its folder, which is then not one of the page's folders. */
function named(
  stem: string,
  folders: readonly string[],
  above: readonly string[],
): { name: string; dir: string; bundle?: true } {
  // Hugo reads paths without regard to case: `INDEX.md` is a bundle's page too.
  const bundle = stem.toLowerCase() === 'index' && folders.length > 0;
  const own = bundle ? folders.slice(0, -1) : folders;
  return {
    name: bundle ? (folders[folders.length - 1] ?? stem) : stem,
    dir: [...above, ...own].join('/'),
    ...(bundle && { bundle: true as const }),
  };
}

function bySuffix(
  file: string,
  folders: string[],
  above: string[],
  type: ContentType,
  layout: ContentLayout,
): LocationResult {
  const unmarked = { type, ...named(file, folders, above), lang: layout.defaultLanguage };
  const dot = file.lastIndexOf('.');
  if (dot <= 0) return unmarked;
  const suffix = file.slice(dot + 1);
  if (layout.skipLanguages.includes(suffix.toLowerCase())) return { skip: suffix };
  if (layout.languageSuffixes) {
    // The whole list, as Hugo's languages are: another suffix is part of the name. Hugo matches it as written.
    const listed = LANGUAGES.find((l) => layout.languageSuffixes?.[l] === suffix);
    return listed ? { type, ...named(file.slice(0, dot), folders, above), lang: listed } : unmarked;
  }
  // `gpt.4.md` or `notes.draft.md` are names with a dot, not languages.
  if (!LANGUAGE_LIKE.test(suffix)) return unmarked;
  const lang = normalizeLanguage(suffix);
  if (!lang) return { problem: unknownLanguage(`suffix ".${suffix}"`, suffix, layout) };
  return { type, ...named(file.slice(0, dot), folders, above), lang };
}

function byFolder(
  file: string,
  folders: string[],
  above: string[],
  type: ContentType,
  layout: ContentLayout,
): LocationResult {
  const first = folders[0];
  const unmarked = { type, ...named(file, folders, above), lang: layout.defaultLanguage };
  if (first === undefined) return unmarked;
  if (layout.skipLanguages.includes(first.toLowerCase())) return { skip: first };
  const lang = LANGUAGES.find((l) => layout.languageFolders[l].toLowerCase() === first.toLowerCase());
  if (lang) return { type, ...named(file, folders.slice(1), above), lang };
  if (LANGUAGE_LIKE.test(first)) return { problem: unknownLanguage(`folder "${first}/"`, first, layout) };
  return unmarked;
}

export function unknownLanguage(what: string, value: string, layout?: ContentLayout): Omit<Problem, 'file'> {
  const expected =
    layout?.language === 'folder'
      ? LANGUAGES.map((l) => `${layout.languageFolders[l]}/`).join(', ')
      : LANGUAGES.map((l) => `.${layout?.languageSuffixes?.[l] ?? l}`).join(', ');
  return {
    code: 'language_unknown',
    line: 1,
    field: 'language',
    message: `unknown language ${what}`,
    hint: `use ${expected}${value.toLowerCase().startsWith('pt') ? ' (Brazilian Portuguese is pt-br)' : ''}`,
  };
}
