import type { ContentItemV1 } from '../content-item-v1.ts';
import { type ContentType, LANGUAGES, type Language, URL_FIELD } from '../languages.ts';
import type { SearchDocument } from './search-fields.ts';

/**
 * Bumped when the shape of what the build hands the Function changes, so a Function never misreads data
 * from another release. 3: the data is a module bundled into the Function (embedded) or tables in D1.
 * 4: technology names are indexed as words (`C++` → `cplusplus`, text.ts), so format-3 indexes would not
 * find what queries now ask for. 5: bodies indexed, words stemmed, the embedded index in search-index.ts's
 * form (no longer MiniSearch's), body texts for snippets.
 */
export const MCP_DATA_FORMAT = 5;

export interface TranslationInfo {
  title: string;
  description?: string;
  url: string;
}

/** What a translation adds to the item: its address is the item's `url_en`/`url_pt`. */
export interface TranslationText {
  title: string;
  description?: string;
}

export interface McpEntry {
  /** Exactly the item of `/api/v1/content.json`, in the same order. Its title, description and url are the Spanish translation's. */
  item: ContentItemV1;
  date?: string;
  /** The other translations' titles and descriptions: nothing the item already holds is repeated. */
  translations: Partial<Record<Exclude<Language, 'es'>, TranslationText>>;
  /** Each translation's tags, for the snippet of a hit that matched in them (not part of the answers' items). */
  tags?: Partial<Record<Language, string[]>>;
}

/** A translation of an entry, whole: undefined when the entry has none in that language. */
export function translationOf(entry: McpEntry, lang: Language): TranslationInfo | undefined {
  const url = entry.item[URL_FIELD[lang]];
  if (url === undefined) return undefined;
  if (lang === 'es') {
    const { title, description } = entry.item;
    return { title, ...(description !== undefined && { description }), url };
  }
  const text = entry.translations[lang];
  return text && { ...text, url };
}

/** Whether the entry exists in the language: the item carries an address for each translation. */
export function hasTranslation(entry: McpEntry, lang: Language): boolean {
  return entry.item[URL_FIELD[lang]] !== undefined;
}

/** The languages an entry has, in the order of LANGUAGES. */
export function languagesOf(entry: McpEntry): Language[] {
  return LANGUAGES.filter((lang) => hasTranslation(entry, lang));
}

/** One bit per language (es 1, en 2, pt-br 4): how both backends store which translations an entry has. */
export function languageBits(entry: McpEntry): number {
  return LANGUAGES.reduce((bits, lang, i) => (hasTranslation(entry, lang) ? bits | (1 << i) : bits), 0);
}

export function languagesOfBits(bits: number): Language[] {
  return LANGUAGES.filter((_, i) => (bits & (1 << i)) !== 0);
}

export function languageBit(lang: Language): number {
  return 1 << LANGUAGES.indexOf(lang);
}

/** `content_stats`' answer. It depends only on the build, so the build works it out once. */
export interface ContentStats extends Record<string, unknown> {
  counts: Record<'posts' | 'projects' | 'tips' | 'total', number>;
  languages: Record<Language, { items: number; share: number }>;
  technologies: { name: string; count: number }[];
  newest: { date: string; type: ContentType; title: string; url: string } | null;
  generated: string;
}

export interface McpSite {
  site: string;
  name?: string;
  description?: string;
  documentation: string;
  /** Hosts the HTTP endpoint answers for besides loopback: the site's own, then the configured extras. */
  hosts: string[];
}

/** What every request may need and no backend has to look up: the site, the build, the statistics. */
export interface McpInfo {
  generated: string;
  site: McpSite;
  /** `content_stats`' answer, worked out at build time. */
  stats: ContentStats;
}

/** The build's MCP material, before a backend's form is chosen for it. */
export interface McpPrepared {
  info: McpInfo;
  entries: McpEntry[];
  /** One search document per entry, in the same order. */
  documents: SearchDocument[];
}
