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
  /** Parsed front matter, before validation. */
  data: unknown;
  /** The Markdown body reduced to its words (stages/parse/body-text.js), when bodies are read. */
  body?: string;
  /** 1-based line of each top-level front-matter key. */
  lines: Readonly<Record<string, number>>;
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
  /** Source file, for messages and reports. */
  file: string;
  /** The body reduced to its words and capped (stages/parse/body-text.js), for MCP search. */
  body?: string;
}

/** One post, project or tip with all its published translations. Spanish is always present. */
export interface ContentEntry {
  id: string;
  type: ContentType;
  /** From the Spanish file, when it has one, in the published form `2025-03-14T09:30:00Z` (UTC, whole seconds). */
  date?: string;
  image?: string;
  technologies?: string[];
  translations: { es: Translation } & Partial<Record<Exclude<Language, 'es'>, Translation>>;
}

export type LeftOutReason = 'draft' | 'future';

export interface LeftOut {
  file: string;
  /** The item the file belongs to (`post/rag-en-produccion`): one item may leave out several files. */
  item: string;
  /** With `along`, the reason its Spanish file was left out for. */
  reason: LeftOutReason;
  /** For `future`: the date that has not come yet, in the published form. */
  date?: string;
  /** True when the Spanish file was left out, which takes its translations with it. */
  wholeItem: boolean;
  /** True for a translation left out only because its Spanish file was (it is no draft, nor dated ahead). */
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
