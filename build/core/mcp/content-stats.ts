import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language, PLURAL } from '../edge/languages.ts';
import type { ContentStats } from '../edge/mcp/mcp-data.ts';

/** What `content_stats` counts of one item (its facts: build/core/output/item-fragments.ts). */
export interface StatsItem {
  type: ContentType;
  /** The languages it has. */
  languages: readonly Language[];
  technologies?: readonly string[];
  /** Its Spanish file's date, in the published form. */
  date?: string;
  title: string;
  url: string;
}

/** `content_stats`' answer depends only on the build, so the build works it out once. */
export function contentStats(items: readonly StatsItem[], generated: string): ContentStats {
  const counts = { posts: 0, projects: 0, tips: 0, total: items.length };
  for (const type of CONTENT_TYPES) counts[PLURAL[type]] = items.filter((e) => e.type === type).length;
  const languages = Object.fromEntries(
    LANGUAGES.map((lang) => {
      const count = items.filter((e) => e.languages.includes(lang)).length;
      return [
        lang,
        {
          items: count,
          share: items.length === 0 ? 0 : Math.round((count / items.length) * 10000) / 10000,
        },
      ];
    }),
  ) as ContentStats['languages'];
  // Spelled as the newest item spells it; counted regardless of case.
  const technologies = new Map<string, { name: string; count: number }>();
  for (const item of items) {
    for (const name of new Set(item.technologies ?? [])) {
      const key = name.toLowerCase();
      const seen = technologies.get(key);
      if (seen) seen.count++;
      else technologies.set(key, { name, count: 1 });
    }
  }
  let newest: StatsItem | undefined;
  for (const item of items) {
    if (item.date !== undefined && (!newest?.date || Date.parse(item.date) > Date.parse(newest.date))) {
      newest = item;
    }
  }
  return {
    counts,
    languages,
    technologies: [...technologies.values()].sort(
      (a, b) => b.count - a.count || compare(a.name.toLowerCase(), b.name.toLowerCase()),
    ),
    newest:
      newest?.date !== undefined
        ? { date: newest.date, type: newest.type, title: newest.title, url: newest.url }
        : null,
    generated,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
