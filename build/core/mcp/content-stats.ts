import { CONTENT_TYPES, LANGUAGES, PLURAL } from '../edge/languages.ts';
import { type ContentStats, hasTranslation, type McpEntry } from '../edge/mcp/mcp-data.ts';

/** `content_stats`' answer depends only on the build, so the build works it out once. */
export function contentStats(entries: readonly McpEntry[], generated: string): ContentStats {
  const counts = { posts: 0, projects: 0, tips: 0, total: entries.length };
  for (const type of CONTENT_TYPES) counts[PLURAL[type]] = entries.filter((e) => e.item.type === type).length;
  const languages = Object.fromEntries(
    LANGUAGES.map((lang) => {
      const items = entries.filter((e) => hasTranslation(e, lang)).length;
      return [
        lang,
        { items, share: entries.length === 0 ? 0 : Math.round((items / entries.length) * 10000) / 10000 },
      ];
    }),
  ) as ContentStats['languages'];
  // Spelled as the newest item spells it; counted regardless of case.
  const technologies = new Map<string, { name: string; count: number }>();
  for (const entry of entries) {
    for (const name of new Set(entry.item.technologies ?? [])) {
      const key = name.toLowerCase();
      const seen = technologies.get(key);
      if (seen) seen.count++;
      else technologies.set(key, { name, count: 1 });
    }
  }
  let newest: McpEntry | undefined;
  for (const entry of entries) {
    if (entry.date !== undefined && (!newest?.date || Date.parse(entry.date) > Date.parse(newest.date))) {
      newest = entry;
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
        ? { date: newest.date, type: newest.item.type, title: newest.item.title, url: newest.item.url }
        : null,
    generated,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
