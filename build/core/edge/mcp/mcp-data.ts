import type { ContentItemV1 } from '../content-item-v1.ts';
import { type ContentType, itemUrl, LANGUAGES, type Language } from '../languages.ts';
import type { SearchDocument } from './search-fields.ts';

/**
 * Bumped when the shape of what the build hands the Function changes, so a Function never misreads data
 * from another release. 3: the data is a module bundled into the Function (embedded) or tables in D1.
 * 4: technology names are indexed as words (`C++` → `cplusplus`, text.ts), so format-3 indexes would not
 * find what queries now ask for. 5: bodies indexed, words stemmed, the embedded index in search-index.ts's
 * form (no longer MiniSearch's), body texts for snippets. 6: a site's canonical language may be other
 * than Spanish (the entry says so), and a Spanish translation that is not canonical carries its address
 * (D1: a `url` column). 7: the embedded data in a binary module beside the JavaScript one (packed-data.ts).
 */
export const MCP_DATA_FORMAT = 7;

export interface TranslationInfo {
  title: string;
  description?: string;
  url: string;
}

/** What a translation adds to the item: its address is the item's `url_en`/`url_pt`. */
export interface TranslationText {
  title: string;
  description?: string;
  /** Only for a Spanish page that is not the canonical one: v1's item has no field for its address. */
  url?: string;
}

export interface McpEntry {
  /** Exactly the item of `/api/v1/content.json`, in the same order. Its title, description and url are the canonical translation's. */
  item: ContentItemV1;
  date?: string;
  /** The canonical language when it is not Spanish (the site's `canonicalLanguage`). */
  lang?: Exclude<Language, 'es'>;
  /** The other translations' titles and descriptions: nothing the item already holds is repeated. */
  translations: Partial<Record<Language, TranslationText>>;
  /** Each translation's tags, for the snippet of a hit that matched in them (not part of the answers' items). */
  tags?: Partial<Record<Language, string[]>>;
}

/** The language of the item's title, description and `url`. */
export function canonicalOf(entry: McpEntry): Language {
  return entry.lang ?? 'es';
}

function urlOf(entry: McpEntry, lang: Language): string | undefined {
  const canonical = canonicalOf(entry);
  if (lang === 'es' && canonical !== 'es') return entry.translations.es?.url;
  return itemUrl(entry.item, lang, canonical);
}

/** A translation of an entry, whole: undefined when the entry has none in that language. */
export function translationOf(entry: McpEntry, lang: Language): TranslationInfo | undefined {
  const url = urlOf(entry, lang);
  if (url === undefined) return undefined;
  if (lang === canonicalOf(entry)) {
    const { title, description } = entry.item;
    return { title, ...(description !== undefined && { description }), url };
  }
  const text = entry.translations[lang];
  return (
    text && {
      title: text.title,
      ...(text.description !== undefined && { description: text.description }),
      url,
    }
  );
}

/** Whether the entry exists in the language: the item (or the Spanish translation) carries its address. */
export function hasTranslation(entry: McpEntry, lang: Language): boolean {
  return urlOf(entry, lang) !== undefined;
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
  /** The canonical language when it is not Spanish: every entry's `lang`. */
  canonicalLanguage?: Exclude<Language, 'es'>;
  /** The languages the site publishes (its `languages`); absent in data of builds before it: all three. */
  languages?: Language[];
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

/**
 * One entry's MCP material (build/core/mcp/prepare-mcp.ts `prepareMcpItem`): kept per item by the
 * build, whose joins give each document its position.
 */
export interface McpItem {
  entry: McpEntry;
  document: SearchDocument;
}

/** The build's MCP material, before a backend's form is chosen for it. */
export interface McpPrepared {
  info: McpInfo;
  entries: McpEntry[];
  /** One search document per entry, in the same order. */
  documents: SearchDocument[];
}
