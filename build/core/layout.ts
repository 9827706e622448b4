import type { Problem } from './errors.ts';
import {
  CANONICAL_LANGUAGE,
  type ContentType,
  LANGUAGES,
  type Language,
  normalizeLanguage,
} from './languages.ts';
import type { ContentLayout } from './site-config.ts';

/** Where a file sits says what it is. `lang` is undefined under the `field` rule until its front matter is read. */
export interface Location {
  type: ContentType;
  /** File name without language and extension; for a page bundle (`name/index.md`), the folder name. */
  name: string;
  lang?: Language;
}

export type LocationResult = Location | { problem: Omit<Problem, 'file'> };

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
  switch (layout.language) {
    case 'suffix':
      return bySuffix(file, segments, type);
    case 'folder':
      return byFolder(file, segments, type, layout);
    case 'field':
      return { type, name: nameOf(file, segments) };
  }
}

function nameOf(stem: string, folders: readonly string[]): string {
  return stem === 'index' && folders.length > 0 ? (folders[folders.length - 1] ?? stem) : stem;
}

function bySuffix(file: string, folders: string[], type: ContentType): LocationResult {
  const dot = file.lastIndexOf('.');
  if (dot <= 0) return { type, name: nameOf(file, folders), lang: CANONICAL_LANGUAGE };
  const suffix = file.slice(dot + 1);
  // `gpt.4.md` or `notes.draft.md` are names with a dot, not languages.
  if (!LANGUAGE_LIKE.test(suffix)) return { type, name: nameOf(file, folders), lang: CANONICAL_LANGUAGE };
  const lang = normalizeLanguage(suffix);
  if (!lang) return { problem: unknownLanguage(`suffix ".${suffix}"`, suffix) };
  return { type, name: nameOf(file.slice(0, dot), folders), lang };
}

function byFolder(file: string, folders: string[], type: ContentType, layout: ContentLayout): LocationResult {
  const first = folders[0];
  if (first === undefined) return { type, name: nameOf(file, folders), lang: CANONICAL_LANGUAGE };
  const lang = LANGUAGES.find((l) => layout.languageFolders[l].toLowerCase() === first.toLowerCase());
  if (lang) return { type, name: nameOf(file, folders.slice(1)), lang };
  if (LANGUAGE_LIKE.test(first)) return { problem: unknownLanguage(`folder "${first}/"`, first, layout) };
  return { type, name: nameOf(file, folders), lang: CANONICAL_LANGUAGE };
}

export function unknownLanguage(what: string, value: string, layout?: ContentLayout): Omit<Problem, 'file'> {
  const expected = layout
    ? LANGUAGES.map((l) => `${layout.languageFolders[l]}/`).join(', ')
    : LANGUAGES.map((l) => `.${l}`).join(', ');
  return {
    code: 'language_unknown',
    line: 1,
    field: 'language',
    message: `unknown language ${what}`,
    hint: `use ${expected}${value.toLowerCase().startsWith('pt') ? ' (Brazilian Portuguese is pt-br)' : ''}`,
  };
}
