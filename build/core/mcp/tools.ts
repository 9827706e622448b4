import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language, PLURAL } from '../languages.ts';
import type { ContentItemV1 } from '../serializers/v1.ts';
import { CursorError, decodeCursor, encodeCursor } from './cursor.ts';
import {
  hasTranslation,
  languagesOf,
  type McpData,
  type McpEntry,
  type TranslationInfo,
  translationOf,
} from './mcp-data.ts';
import { loadSearchIndex, type SearchIndex, type SearchResults } from './search-index.ts';
import { type JsonSchema, TOOL_SCHEMAS } from './tool-schemas.ts';

/** The data file and its search index, loaded once per isolate (or per stdio process) and shared by every request. */
export interface LoadedMcp {
  data: McpData;
  search: SearchIndex;
}

export function loadMcp(data: McpData): LoadedMcp {
  return { data, search: loadSearchIndex(data.search) };
}

/** A bad argument the schema cannot catch (a forged cursor, a query without words): a tool error, not a crash. */
export class ToolArgumentError extends Error {}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  run(mcp: LoadedMcp, args: Record<string, unknown>): Record<string, unknown>;
}

/** Every tool only reads the published index: agents may call them freely and repeat them. */
export const TOOL_ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

interface Translated {
  translation?: { lang: Language } & TranslationInfo;
}

export interface ListContentArgs {
  type?: ContentType;
  lang?: Language;
  technology?: string;
  limit?: number;
  cursor?: string;
}

export interface ListContentResult extends Record<string, unknown> {
  items: (ContentItemV1 & Translated)[];
  total: number;
  next_cursor: string | null;
}

export function listContent({ data }: LoadedMcp, args: ListContentArgs): ListContentResult {
  const limit = args.limit ?? 20;
  const technology = args.technology?.toLowerCase();
  const matches = data.entries.filter(
    (entry) =>
      (args.type === undefined || entry.item.type === args.type) &&
      (args.lang === undefined || hasTranslation(entry, args.lang)) &&
      (technology === undefined ||
        (entry.item.technologies ?? []).some((t) => t.toLowerCase() === technology)),
  );
  // A cursor only continues the listing it came from: same filters, same build of the index.
  const binding = JSON.stringify([data.generated, args.type ?? null, args.lang ?? null, technology ?? null]);
  let offset = 0;
  if (args.cursor !== undefined) {
    try {
      offset = decodeCursor(args.cursor, binding, matches.length);
    } catch (error) {
      if (!(error instanceof CursorError)) throw error;
      throw new ToolArgumentError(
        `Invalid arguments for tool list_content: cursor: ${error.message}. Pass the next_cursor of the previous page with the same filters, or omit cursor to start from the first page.`,
      );
    }
  }
  const next = offset + limit;
  return {
    items: matches.slice(offset, next).map((entry) => withTranslation(entry, args.lang)),
    total: matches.length,
    next_cursor: next < matches.length ? encodeCursor(next, binding) : null,
  };
}

export interface SearchContentArgs {
  query: string;
  type?: ContentType;
  lang?: Language;
  limit?: number;
}

export interface SearchContentResult extends Record<string, unknown> {
  query: string;
  total: number;
  match: SearchResults['mode'];
  items: (ContentItemV1 &
    Required<Translated> & { score: number; matched_language: Language; matched_fields: string[] })[];
}

export function searchContent({ data, search }: LoadedMcp, args: SearchContentArgs): SearchContentResult {
  if (search.words(args.query).length === 0) {
    throw new ToolArgumentError(
      'Invalid arguments for tool search_content: query: has no words to search for. Give at least one word (letters or digits).',
    );
  }
  if (search.terms(args.query).length === 0) {
    throw new ToolArgumentError(
      `Invalid arguments for tool search_content: query: has only common words (${search.words(args.query).join(', ')}), which are not searched. Add a word that says what to look for.`,
    );
  }
  const { lang, type } = args;
  const { entries } = data;
  const { mode, total, hits } = search.search(args.query, {
    limit: args.limit ?? 10,
    ...(lang !== undefined && { lang }),
    ...((lang !== undefined || type !== undefined) && {
      accept: (i) => {
        const entry = entries[i];
        return (
          entry !== undefined &&
          (lang === undefined || hasTranslation(entry, lang)) &&
          (type === undefined || entry.item.type === type)
        );
      },
    }),
    languages: (i) => {
      const entry = entries[i];
      return entry ? languagesOf(entry) : [];
    },
  });
  return {
    query: args.query,
    total,
    match: mode,
    items: hits.map((hit) => {
      const entry = data.entries[hit.entry] as McpEntry;
      const { translation } = withTranslation(entry, hit.lang);
      return {
        ...entry.item,
        score: Math.round(hit.score * 1000) / 1000,
        matched_language: hit.lang,
        matched_fields: hit.fields,
        translation: translation as Required<Translated>['translation'],
      };
    }),
  };
}

export interface ContentStatsResult extends Record<string, unknown> {
  counts: Record<'posts' | 'projects' | 'tips' | 'total', number>;
  languages: Record<Language, { items: number; share: number }>;
  technologies: { name: string; count: number }[];
  newest: { date: string; type: ContentType; title: string; url: string } | null;
  generated: string;
}

export function contentStats({ data }: LoadedMcp): ContentStatsResult {
  const { entries } = data;
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
  ) as ContentStatsResult['languages'];
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
    generated: data.generated,
  };
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'list_content',
    title: 'List content',
    description:
      'List the posts, projects and tips of the site in the order of the content index (newest first), optionally only one type, only items available in one language (es, en, pt-br), or only projects using a technology. Paged: pass next_cursor back as cursor.',
    inputSchema: TOOL_SCHEMAS.list_content.input,
    outputSchema: TOOL_SCHEMAS.list_content.output,
    run: (mcp, args) => listContent(mcp, args as ListContentArgs),
  },
  {
    name: 'search_content',
    title: 'Search content',
    description:
      'Search titles, descriptions, tags and technologies in Spanish, English and Brazilian Portuguese at once. Ignores case and accents, matches word beginnings and tolerates one typo in longer words. Results are ranked, with a score and the language that matched.',
    inputSchema: TOOL_SCHEMAS.search_content.input,
    outputSchema: TOOL_SCHEMAS.search_content.output,
    run: (mcp, args) => searchContent(mcp, args as unknown as SearchContentArgs),
  },
  {
    name: 'content_stats',
    title: 'Content statistics',
    description:
      'Counts per type, translation coverage per language, technologies with how many projects use them, the newest item and when the index was generated.',
    inputSchema: TOOL_SCHEMAS.content_stats.input,
    outputSchema: TOOL_SCHEMAS.content_stats.output,
    run: (mcp) => contentStats(mcp),
  },
];

function withTranslation(entry: McpEntry, lang: Language | undefined): ContentItemV1 & Translated {
  const translation = lang === undefined ? undefined : translationOf(entry, lang);
  return translation
    ? { ...entry.item, translation: { lang: lang as Language, ...translation } }
    : { ...entry.item };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
