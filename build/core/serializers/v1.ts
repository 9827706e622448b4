import type { SiteConfig } from '../config/site-config.ts';
import type { ContentEntry, ContentModel } from '../content/model.ts';
import type { ContentItemV1 } from '../edge/content-item-v1.ts';
import { isoSeconds } from '../edge/dates.ts';
import { PLURAL, URL_FIELD } from '../edge/languages.ts';

export type { ContentItemV1 } from '../edge/content-item-v1.ts';

export interface DeprecationV1 {
  version: string;
  successor: string;
  successor_url: string;
  deprecated_at: string;
  sunset_at: string;
  documentation?: string;
}

export interface ContentIndexV1 {
  site: string;
  name?: string;
  description?: string;
  languages: string[];
  generated: string;
  documentation: string;
  openapi: string;
  sections: { name: string; url: string }[];
  counts: { posts: number; projects: number; tips: number; total: number };
  content: ContentItemV1[];
  versions: { current: string; deprecation: DeprecationV1 | null };
}

export interface SerializeContext {
  config: SiteConfig;
  generated: Date;
  /** The latest published version's name, e.g. `v1`. */
  current: string;
  deprecation: DeprecationV1 | null;
}

/** Keys in the order docs/api.md (ContentIndex) lists them, so the bytes are stable and read naturally. */
export function serializeV1(model: ContentModel, ctx: SerializeContext): ContentIndexV1 {
  const index = envelopeV1(typeCounts(model.entries), ctx);
  index.content = model.entries.map(itemV1);
  return index;
}

/** How many items of each type a body lists, and in all. */
export type TypeCounts = ContentIndexV1['counts'];

export function typeCounts(entries: readonly { type: ContentEntry['type'] }[]): TypeCounts {
  const counts = { posts: 0, projects: 0, tips: 0, total: entries.length };
  for (const entry of entries) counts[PLURAL[entry.type]]++;
  return counts;
}

/**
 * The body around its items (`content` left empty): the build joins it with each item's JSON, kept per
 * item (build/core/output/item-fragments.ts), instead of serializing every item again.
 */
export function envelopeV1(counts: TypeCounts, ctx: SerializeContext): ContentIndexV1 {
  const { config } = ctx;
  return {
    site: config.site,
    ...(config.name !== undefined && { name: config.name }),
    ...(config.description !== undefined && { description: config.description }),
    languages: [...config.languages],
    generated: isoSeconds(ctx.generated),
    documentation: config.documentation,
    openapi: new URL('openapi.json', config.site).href,
    sections: config.sections.map((s) => ({ name: s.name, url: s.url })),
    counts,
    content: [],
    versions: { current: ctx.current, deprecation: ctx.deprecation },
  };
}

/**
 * One entry as the body lists it: it depends on the entry alone. `url` is the canonical page's,
 * `url_en` and `url_pt` the English and Portuguese pages' whenever they exist (the canonical one too): a
 * client reading `url_en` for English finds it whatever the site's canonical language. A Spanish page
 * that is not canonical has no v1 field (docs/api.md, ContentItem).
 */
export function itemV1(entry: ContentEntry): ContentItemV1 {
  const { canonical } = entry;
  const item: ContentItemV1 = {
    type: entry.type,
    title: canonical.title,
    ...(canonical.description !== undefined && { description: canonical.description }),
    url: canonical.url,
  };
  for (const lang of ['en', 'pt-br'] as const) {
    const translation = entry.translations[lang];
    if (translation) item[URL_FIELD[lang]] = translation.url;
  }
  if (entry.image !== undefined) item.image = entry.image;
  if (entry.technologies !== undefined) item.technologies = [...entry.technologies];
  return item;
}
