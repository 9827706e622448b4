import type { SiteConfig } from '../config/site-config.ts';
import type { ContentEntry, ContentModel } from '../content/model.ts';
import type { ContentItemV1 } from '../edge/content-item-v1.ts';
import { isoSeconds } from '../edge/dates.ts';
import { LANGUAGES } from '../edge/languages.ts';
import {
  languagesOf,
  type McpEntry,
  type McpInfo,
  type McpItem,
  type McpPrepared,
} from '../edge/mcp/mcp-data.ts';
import type { SearchDocument } from '../edge/mcp/search-fields.ts';
import { contentStats, type StatsItem } from './content-stats.ts';

export interface McpDataContext {
  config: SiteConfig;
  generated: Date;
  /** The v1 body's items, so MCP answers are the index's items and never drift from them. */
  items: readonly ContentItemV1[];
}

/** The whole MCP material of a model (the build joins it from each item's {@link prepareMcpItem} instead). */
export function prepareMcp(model: ContentModel, ctx: McpDataContext): McpPrepared {
  const documents: SearchDocument[] = [];
  const entries = model.entries.map((entry, i): McpEntry => {
    const item = ctx.items[i];
    if (!item || item.url !== entry.canonical.url) throw new Error('MCP data: items out of step');
    const prepared = prepareMcpItem(entry, item, i);
    documents.push(prepared.document);
    return prepared.entry;
  });
  return { info: mcpInfo(entries.map(statsItem), ctx), entries, documents };
}

/**
 * One item's MCP material, from that item alone (and its position in the index): its entry (what the
 * tools answer with) and its search document (what both backends index, body texts included). The
 * build keeps it per item, by the item's validated input (build/core/output/item-fragments.ts), and
 * gives the document its position when it joins them.
 */
export function prepareMcpItem(entry: ContentEntry, item: ContentItemV1, position: number): McpItem {
  const present = LANGUAGES.flatMap((lang) => {
    const t = entry.translations[lang];
    return t ? [[lang, t] as const] : [];
  });
  // Tags every translation has are indexed once for the entry; the rest under their language.
  const canonical = entry.canonical.lang;
  const shared = [...new Set(entry.canonical.tags)].filter((tag) =>
    present.every(([, t]) => t.tags.includes(tag)),
  );
  const translations: McpEntry['translations'] = {};
  const tags: NonNullable<McpEntry['tags']> = {};
  const text: SearchDocument['text'] = {};
  for (const [lang, t] of present) {
    const description = t.description !== undefined ? { description: t.description } : {};
    if (lang !== canonical) {
      // v1 has no field for a Spanish page that is not canonical: its address comes along here.
      translations[lang] = { title: t.title, ...description, ...(lang === 'es' && { url: t.url }) };
    }
    // Shared first, as the D1 backend puts them back together.
    const own = t.tags.filter((tag) => !shared.includes(tag));
    if (t.tags.length > 0) tags[lang] = [...shared, ...own];
    text[lang] = {
      title: t.title,
      ...description,
      tags: own,
      ...(t.body && { body: t.body }),
    };
  }
  return {
    entry: {
      item,
      ...(entry.date !== undefined && { date: entry.date }),
      ...(canonical !== 'es' && { lang: canonical }),
      translations,
      ...(Object.keys(tags).length > 0 && { tags }),
    },
    document: { id: position, text, tags: shared, technologies: entry.technologies ?? [] },
  };
}

/** What `content_stats` counts of an MCP entry. */
export function statsItem(entry: McpEntry): StatsItem {
  const { item } = entry;
  return {
    type: item.type,
    languages: languagesOf(entry),
    ...(item.technologies !== undefined && { technologies: item.technologies }),
    ...(entry.date !== undefined && { date: entry.date }),
    title: item.title,
    url: item.url,
  };
}

/** The site, the build and the statistics: what every MCP request may need. */
export function mcpInfo(items: readonly StatsItem[], ctx: Omit<McpDataContext, 'items'>): McpInfo {
  const { config } = ctx;
  const canonical = config.canonicalLanguage;
  const site = new URL(config.site);
  const generated = isoSeconds(ctx.generated);
  return {
    generated,
    site: {
      site: config.site,
      ...(canonical !== 'es' && { canonicalLanguage: canonical }),
      languages: [...config.languages],
      ...(config.name !== undefined && { name: config.name }),
      ...(config.description !== undefined && { description: config.description }),
      documentation: config.documentation,
      hosts: [...new Set([site.hostname, ...config.mcp.allowedHosts])],
    },
    stats: contentStats(items, generated),
  };
}
