import type { ContentType, Language } from '../edge/languages.ts';

/** One Markdown file after loading: where it is, what it claims to be, and its raw front matter. */
export interface SourceFile {
  /** Relative to the project root, POSIX separators. */
  path: string;
  type: ContentType;
  /** File name without language and extension; for a page bundle, the folder name. */
  name: string;
  /** Folders from the content folder to the page (layout.ts `Location.dir`), for `{path}` and `{section}`. */
  dir: string;
  lang: Language;
  /** A page bundle's page (`name/index.md`): Hugo's `headless` applies to it. */
  bundle?: boolean;
  /** Parsed front matter, before validation. */
  data: unknown;
  /** The Markdown body reduced to its words (stages/parse/body-text.js), when bodies are read. */
  body?: string;
  /**
   * Set when the body has words: the hash of the file it is read from, the same for the same words.
   * An entry's key is made of it instead of the body (see `bodyKeyOf`), so that a build knows an
   * entry unchanged without reading its bodies, which it may then read only when asked.
   */
  bodyKey?: string;
  /** 1-based line of each top-level front-matter key. */
  lines: Readonly<Record<string, number>>;
}

/**
 * A Hugo list page's file (`_index.md`, `_index.en.md`): not an item, but its front matter's `cascade`
 * reaches the pages below it, and a list page Hugo does not publish takes them with it.
 */
export interface BranchFile {
  /** Relative to the project root, POSIX separators. */
  path: string;
  /** Its folder from the content folder (`posts/2024`; `''` for the home page), a language folder left out. */
  dir: string;
  lang: Language;
  data: unknown;
}

/** A file that was found but whose front matter could not be read (or whose language field could not be). */
export interface UnreadableSource {
  type: ContentType;
  name: string;
  /** Undefined when the language was to come from the front matter. */
  lang: Language | undefined;
  /** As found by a plain look at the text, when the file names one. */
  translationKey: string | undefined;
}

export interface Translation {
  lang: Language;
  title: string;
  description?: string;
  slug: string;
  url: string;
  tags: string[];
  /** This file's date, when it has one (translations may be published later), in the published form. */
  date?: string;
  /** When the page was published, when that is not its date (Hugo's `publishDate`), in the published form. */
  publishDate?: string;
  /** Source file, for messages and reports. */
  file: string;
  /** The body reduced to its words and capped (stages/parse/body-text.js), for MCP search. */
  body?: string;
}

const BODY_KEYS = new WeakMap<Translation, string>();

/** The file each translation given a body by key reads it from (takeBody). */
const BODY_FILES = new WeakMap<Translation, Pick<SourceFile, 'body'>>();

/**
 * One getter for every such translation, not a closure of each: a getter of its own put each of a
 * large site's translations in V8's dictionary mode (see stages/load.ts).
 */
const FILE_BODY: PropertyDescriptor = {
  get(this: Translation) {
    return BODY_FILES.get(this)?.body;
  },
  enumerable: true,
  configurable: true,
};

/**
 * Gives a translation its file's body, read from the file only when asked, and known meanwhile by the
 * file's `bodyKey`; a file without one gives its body as it is. A copy of the translation (another
 * `publishDate`) is given its body the same way.
 */
export function takeBody(translation: Translation, file: Pick<SourceFile, 'body' | 'bodyKey'>): void {
  if (file.bodyKey === undefined) {
    if (file.body) translation.body = file.body;
    return;
  }
  Object.defineProperty(translation, 'body', FILE_BODY);
  BODY_FILES.set(translation, file);
  BODY_KEYS.set(translation, file.bodyKey);
}

/** The translation with other values, its body (read or not) carried over as takeBody gave it. */
export function translationWith(translation: Translation, values: Partial<Translation>): Translation {
  const copy = {} as Translation;
  const key = BODY_KEYS.get(translation);
  for (const name of Object.keys(translation) as (keyof Translation)[]) {
    if (name === 'body' && key !== undefined) {
      const descriptor = Object.getOwnPropertyDescriptor(translation, 'body') as PropertyDescriptor;
      Object.defineProperty(copy, 'body', descriptor);
      const file = BODY_FILES.get(translation);
      if (file) BODY_FILES.set(copy, file);
    } else (copy as unknown as Record<string, unknown>)[name] = translation[name];
  }
  Object.assign(copy, values);
  if (key !== undefined) BODY_KEYS.set(copy, key);
  return copy;
}

/**
 * The translation's body known by another key, or by none when it has no words: its file was read
 * changed since it was hashed (stages/load.ts readUnreadBodies), and the body is what was read then.
 */
export function rekeyBody(translation: Translation, key: string | undefined): void {
  if (key === undefined) BODY_KEYS.delete(translation);
  else BODY_KEYS.set(translation, key);
}

/** What a translation's body is known by without reading it (takeBody), if it has one. */
export function bodyKeyOf(translation: Translation): string | undefined {
  return BODY_KEYS.get(translation);
}

/** Whether a translation has a body with words, without reading one takeBody left unread. */
export function hasBody(translation: Translation | undefined): boolean {
  if (!translation) return false;
  return BODY_KEYS.has(translation) || Boolean(translation.body);
}

/** One post, project or tip with all its published translations, the canonical one always among them. */
export interface ContentEntry {
  id: string;
  type: ContentType;
  /** From the canonical file, when it has one, in the published form `2025-03-14T09:30:00Z` (UTC, whole seconds). */
  date?: string;
  image?: string;
  technologies?: string[];
  /** The canonical language's translation (also in `translations`): the item's title, description and `url`. */
  canonical: Translation;
  translations: Partial<Record<Language, Translation>>;
}

/**
 * Why a file is not published: `draft`, `future` (its date, or Hugo's `publishDate`, has not come),
 * `expired` (Hugo's `expiryDate` has passed), `unrendered` (Hugo's `_build.render` is never or link:
 * no page), `unlisted` (`_build.list: never`: a page Hugo lists nowhere), `headless` (a headless page
 * bundle: no page), `language-disabled` (Hugo's `disableLanguages`), `no-canonical` (an item with no
 * file in the canonical language, with `content.withoutCanonical: 'leave-out'`).
 */
export type LeftOutReason =
  | 'draft'
  | 'future'
  | 'expired'
  | 'unrendered'
  | 'unlisted'
  | 'headless'
  | 'language-disabled'
  | 'no-canonical';

export interface LeftOut {
  file: string;
  /** The item the file belongs to (`post/rag-en-produccion`): one item may leave out several files. */
  item: string;
  /** With `along`, the reason its canonical file was left out for. */
  reason: LeftOutReason;
  /** For `future`, the date that has not come yet; for `expired`, the date that has passed: in the published form. */
  date?: string;
  /** The address the page would have, when it could be worked out (the output's pages are matched to it). */
  url?: string;
  /** True when the canonical file was left out (or there is none), which takes its translations with it. */
  wholeItem: boolean;
  /** True for a translation left out only because its canonical file was (it is no draft, nor dated ahead). */
  along?: true;
}

/** A symbolic link among the content that the build read through: shown in the report, so nothing read is a surprise. */
export interface FollowedLink {
  /** The link, relative to the project root. */
  file: string;
  /** Its target, relative to the project root. */
  target: string;
}

export interface ContentModel {
  /** Newest first; undated entries last; ties by canonical address. Every output keeps this order. */
  entries: ContentEntry[];
  leftOut: LeftOut[];
}
