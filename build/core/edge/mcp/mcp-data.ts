import type { SiteConfig } from '../../config/site-config.ts';
import type { ContentModel } from '../../content/model.ts';
import type { ContentItemV1 } from '../../serializers/v1.ts';
import { isoSeconds } from '../dates.ts';
import { LANGUAGES, type Language, URL_FIELD } from '../languages.ts';
import type { SearchDocument } from './search-index.ts';
import { type ContentStats, contentStats } from './stats.ts';

/**
 * Bumped when the shape of what the build hands the Function changes, so a Function never misreads data
 * from another release. 3: the data is a module bundled into the Function (embedded) or tables in D1.
 * 4: technology names are indexed as words (`C++` → `cplusplus`, text.ts), so format-3 indexes would not
 * find what queries now ask for.
 */
export const MCP_DATA_FORMAT = 4;

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

export interface McpDataContext {
  config: SiteConfig;
  generated: Date;
  /** The v1 body's items, so MCP answers are the index's items and never drift from them. */
  items: readonly ContentItemV1[];
}

export function prepareMcp(model: ContentModel, ctx: McpDataContext): McpPrepared {
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
  const generated = isoSeconds(ctx.generated);
  return {
    info: {
      generated,
      site: {
        site: config.site,
        ...(config.name !== undefined && { name: config.name }),
        ...(config.description !== undefined && { description: config.description }),
        documentation: config.documentation,
        hosts: [...new Set([site.hostname, ...config.mcp.allowedHosts])],
      },
      stats: contentStats(entries, generated),
    },
    entries,
    documents,
  };
}
