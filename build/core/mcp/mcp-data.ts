import type { AsPlainObject } from 'minisearch';
import { isoSeconds } from '../dates.ts';
import { LANGUAGES, type Language, URL_FIELD } from '../languages.ts';
import type { ContentModel } from '../model.ts';
import type { ContentItemV1 } from '../serializers/v1.ts';
import type { SiteConfig } from '../site-config.ts';
import { buildSearchIndex, type SearchDocument } from './search-index.ts';

/** Where the build publishes what the MCP server needs; the Function reads it through `env.ASSETS`. */
export const MCP_DATA_PATH = 'mcp/data.json';
/**
 * Bumped when the shape changes, so a Function never misreads a file from another release.
 * 2: one search document per entry; translations carry only what the item does not.
 */
export const MCP_DATA_FORMAT = 2;

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
  /**
   * The other translations' titles and descriptions. Every byte here is fetched and parsed by each
   * cold isolate, so nothing the item already holds is repeated.
   */
  translations: Partial<Record<Exclude<Language, 'es'>, TranslationText>>;
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

export interface McpSite {
  site: string;
  name?: string;
  description?: string;
  documentation: string;
  /** Hosts the HTTP endpoint answers for besides loopback: the site's own, then the configured extras. */
  hosts: string[];
}

export interface McpData {
  format: typeof MCP_DATA_FORMAT;
  generated: string;
  site: McpSite;
  entries: McpEntry[];
  /** The MiniSearch index of every translation, prepared at build time. */
  search: AsPlainObject;
}

export interface McpDataContext {
  config: SiteConfig;
  generated: Date;
  /** The v1 body's items, so MCP answers are the index's items and never drift from them. */
  items: readonly ContentItemV1[];
}

export function buildMcpData(model: ContentModel, ctx: McpDataContext): McpData {
  const { config } = ctx;
  const documents: SearchDocument[] = [];
  const entries = model.entries.map((entry, i): McpEntry => {
    const item = ctx.items[i];
    if (!item || item.url !== entry.translations.es.url) throw new Error('MCP data: items out of step');
    const present = LANGUAGES.flatMap((lang) => {
      const t = entry.translations[lang];
      return t ? [[lang, t] as const] : [];
    });
    // Tags every translation has are indexed once for the entry; the rest under their language.
    const shared = [...new Set(entry.translations.es.tags)].filter((tag) =>
      present.every(([, t]) => t.tags.includes(tag)),
    );
    const translations: McpEntry['translations'] = {};
    const text: SearchDocument['text'] = {};
    for (const [lang, t] of present) {
      const description = t.description !== undefined ? { description: t.description } : {};
      if (lang !== 'es') translations[lang] = { title: t.title, ...description };
      text[lang] = { title: t.title, ...description, tags: t.tags.filter((tag) => !shared.includes(tag)) };
    }
    documents.push({ id: i, text, tags: shared, technologies: entry.technologies ?? [] });
    return { item, ...(entry.date !== undefined && { date: entry.date }), translations };
  });
  const site = new URL(config.site);
  return {
    format: MCP_DATA_FORMAT,
    generated: isoSeconds(ctx.generated),
    site: {
      site: config.site,
      ...(config.name !== undefined && { name: config.name }),
      ...(config.description !== undefined && { description: config.description }),
      documentation: config.documentation,
      hosts: [...new Set([site.hostname, ...config.mcp.allowedHosts])],
    },
    entries,
    search: buildSearchIndex(documents),
  };
}

/**
 * A loaded data file is checked just enough to fail with a clear message instead of a TypeError: a
 * missing asset can come back as the site's HTML page, and an older build as another format.
 */
export function parseMcpData(value: unknown): McpData {
  const data = value as Partial<McpData> | null;
  if (typeof data !== 'object' || data === null || data.format !== MCP_DATA_FORMAT) {
    throw new Error(
      `${MCP_DATA_PATH} is missing or has another format (expected format ${MCP_DATA_FORMAT}); rebuild the site with content-index build`,
    );
  }
  if (!Array.isArray(data.entries) || typeof data.search !== 'object' || typeof data.site !== 'object') {
    throw new Error(`${MCP_DATA_PATH} is incomplete; rebuild the site with content-index build`);
  }
  return data as McpData;
}
