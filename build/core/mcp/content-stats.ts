import { dateMs } from '../edge/dates.ts';
import {
  CONTENT_TYPES,
  type ContentType,
  LANGUAGES,
  type Language,
  languageCounts,
  PLURAL,
} from '../edge/languages.ts';
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

/**
 * `content_stats`' answer depends only on the build, so the build works it out once: in one pass over
 * the items, since a dev save at 10,000 items works it out again (one filter per type and language and
 * a Set per item took some 15 ms of it).
 */
export function contentStats(items: readonly StatsItem[], generated: string): ContentStats {
  const byType: Record<ContentType, number> = { post: 0, project: 0, tip: 0 };
  const byLanguage = languageCounts();
  // Spelled as the newest item spells it; counted regardless of case.
  const technologies = new Map<string, { name: string; count: number }>();
  let newest: StatsItem | undefined;
  let newestAt = Number.NaN;
  for (const item of items) {
    byType[item.type]++;
    for (const lang of item.languages) byLanguage[lang]++;
    const names = item.technologies ?? [];
    names.forEach((name, i) => {
      // A name written twice in one item counts once (as written: two spellings count twice).
      if (names.indexOf(name) !== i) return;
      const key = name.toLowerCase();
      const seen = technologies.get(key);
      if (seen) seen.count++;
      else technologies.set(key, { name, count: 1 });
    });
    if (item.date === undefined) continue;
    const at = dateMs(item.date);
    if (!newest?.date || at > newestAt) {
      newest = item;
      newestAt = at;
    }
  }
  const counts = { posts: 0, projects: 0, tips: 0, total: items.length };
  for (const type of CONTENT_TYPES) counts[PLURAL[type]] = byType[type];
  const languages = Object.fromEntries(
    LANGUAGES.map((lang) => {
      const count = byLanguage[lang];
      return [
        lang,
        {
          items: count,
          share: items.length === 0 ? 0 : Math.round((count / items.length) * 10000) / 10000,
        },
      ];
    }),
  ) as ContentStats['languages'];
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
