import type { ContentItemV1 } from '../content-item-v1.ts';
import { type ContentType, type Language, normalizeLanguage } from '../languages.ts';
import type { Found, LoadedMcp } from './backend.ts';
import { type RequestBudget, SearchWorkExceeded } from './budget.ts';
import { CursorError, type CursorPosition, checkCursorOffset, decodeCursor, encodeCursor } from './cursor.ts';
import type { ContentStats } from './mcp-data.ts';
import { type McpEntry, type TranslationInfo, translationOf } from './mcp-data.ts';
import { queryWords, searchTerms } from './text.ts';
import { type JsonSchema, TOOL_SCHEMAS } from './tool-schemas.ts';

export type { LoadedMcp } from './backend.ts';

/** A bad argument the schema cannot catch (a forged cursor, a query without words): a tool error, not a crash. */
export class ToolArgumentError extends Error {}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** `budget`: the request's (budget.ts); the tool claims the items it may return before it works. */
  run(
    mcp: LoadedMcp,
    args: Record<string, unknown>,
    budget?: RequestBudget,
  ): Promise<Record<string, unknown>>;
}

/**
 * A tool's call as every MCP answer makes it: its result, and the result's JSON (the text an answer
 * carries beside it), charged to the request's budget.
 */
export async function callTool(
  tool: ToolDefinition,
  mcp: LoadedMcp,
  args: Record<string, unknown>,
  budget: RequestBudget,
): Promise<{ result: Record<string, unknown>; text: string }> {
  const result = await tool.run(mcp, args, budget);
  const text = JSON.stringify(result);
  budget.chargeResult(tool.name, text);
  return { result, text };
}

/** Every tool only reads the published index: agents may call them freely and repeat them. */
export const TOOL_ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

interface Translated {
  translation?: { lang: Language } & TranslationInfo;
}

export interface ListContentArgs {
  type?: ContentType;
  /** Any case (`pt-BR`, `EN`, `pt_br`), as the build reads languages; answers use the canonical code. */
  lang?: string;
  technology?: string;
  limit?: number;
  cursor?: string;
}

export interface ListContentResult extends Record<string, unknown> {
  items: (ContentItemV1 & Translated)[];
  total: number;
  next_cursor: string | null;
}

export async function listContent(
  { info, backend }: LoadedMcp,
  args: ListContentArgs,
  budget?: RequestBudget,
): Promise<ListContentResult> {
  const limit = args.limit ?? 20;
  const technology = args.technology?.toLowerCase();
  const lang = language('list_content', args.lang);
  budget?.claimItems('list_content', limit);
  // A cursor only continues the listing it came from: same filters, same build of the index.
  const binding = JSON.stringify([info.generated, args.type ?? null, lang ?? null, technology ?? null]);
  const cursorError = (error: unknown) => {
    if (!(error instanceof CursorError)) return error;
    return new ToolArgumentError(
      `Invalid arguments for tool list_content: cursor: ${error.message}. Pass the next_cursor of the previous page with the same filters, or omit cursor to start from the first page.`,
    );
  };
  let position: CursorPosition = { offset: 0 };
  if (args.cursor !== undefined) {
    try {
      position = decodeCursor(args.cursor, binding);
    } catch (error) {
      throw cursorError(error);
    }
  }
  const { offset } = position;
  const page = await backend.list({
    ...(args.type !== undefined && { type: args.type }),
    ...(lang !== undefined && { lang }),
    ...(technology !== undefined && { technology }),
    ...position,
    limit,
  });
  if (offset > 0) {
    try {
      checkCursorOffset(offset, page.total);
    } catch (error) {
      throw cursorError(error);
    }
  }
  const next = offset + limit;
  return {
    items: page.entries.map((entry) => withTranslation(entry, lang)),
    total: page.total,
    next_cursor: next < page.total ? encodeCursor({ offset: next, after: page.last }, binding) : null,
  };
}

export interface SearchContentArgs {
  query: string;
  type?: ContentType;
  /** Any case, as in {@link ListContentArgs}. */
  lang?: string;
  limit?: number;
}

export interface SearchContentResult extends Record<string, unknown> {
  query: string;
  total: number;
  match: 'all' | 'any';
  items: (ContentItemV1 &
    Required<Translated> & {
      score: number;
      matched_language: Language;
      matched_fields: string[];
      snippet: string;
    })[];
}

export async function searchContent(
  { backend }: LoadedMcp,
  args: SearchContentArgs,
  budget?: RequestBudget,
): Promise<SearchContentResult> {
  const words = queryWords(args.query);
  if (words.length === 0) {
    throw new ToolArgumentError(
      'Invalid arguments for tool search_content: query: has no words to search for. Give at least one word (letters or digits).',
    );
  }
  const terms = searchTerms(args.query);
  if (terms.length === 0) {
    throw new ToolArgumentError(
      `Invalid arguments for tool search_content: query: has only common words (${words.join(', ')}), which are not searched. Add a word that says what to look for.`,
    );
  }
  const lang = language('search_content', args.lang);
  const limit = args.limit ?? 10;
  budget?.claimItems('search_content', limit);
  let found: Found;
  try {
    found = await backend.search({
      terms,
      limit,
      ...(args.type !== undefined && { type: args.type }),
      ...(lang !== undefined && { lang }),
      ...(budget && { meter: budget.searchMeter() }),
    });
  } catch (error) {
    if (budget && error instanceof SearchWorkExceeded)
      throw budget.searchTooBroad('search_content', error.left);
    throw error;
  }
  return {
    query: args.query,
    total: found.total,
    match: found.mode,
    items: found.hits.map((hit) => {
      const { translation } = withTranslation(hit.entry, hit.lang);
      return {
        ...hit.entry.item,
        score: Math.round(hit.score * 1000) / 1000,
        matched_language: hit.lang,
        matched_fields: hit.fields,
        snippet: hit.snippet,
        translation: translation as Required<Translated>['translation'],
      };
    }),
  };
}

/** Worked out by the build (stats.ts): the same answer for every call until the next deploy. */
export async function contentStats({ info }: LoadedMcp): Promise<ContentStats> {
  return info.stats;
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'list_content',
    title: 'List content',
    description:
      'List the posts, projects and tips of the site in the order of the content index (newest first), optionally only one type, only items available in one language (es, en, pt-br), or only projects using a technology. Paged: pass next_cursor back as cursor.',
    inputSchema: TOOL_SCHEMAS.list_content.input,
    outputSchema: TOOL_SCHEMAS.list_content.output,
    run: (mcp, args, budget) => listContent(mcp, args as ListContentArgs, budget),
  },
  {
    name: 'search_content',
    title: 'Search content',
    description:
      'Search the full text of every item (titles, descriptions, bodies, tags and technologies) in Spanish, English and Brazilian Portuguese at once. Ignores case and accents, matches other forms of a word (plural, verb forms) and word beginnings, and tolerates one typo in longer words. Results are ranked, titles first, each with a score, the language that matched and a snippet of its text with the matched words marked.',
    inputSchema: TOOL_SCHEMAS.search_content.input,
    outputSchema: TOOL_SCHEMAS.search_content.output,
    run: (mcp, args, budget) => searchContent(mcp, args as unknown as SearchContentArgs, budget),
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

/** The canonical code of a `lang` argument (the schema has let through only what this accepts). */
function language(tool: string, value: string | undefined): Language | undefined {
  if (value === undefined) return undefined;
  const lang = normalizeLanguage(value);
  if (lang === undefined) {
    throw new ToolArgumentError(
      `Invalid arguments for tool ${tool}: lang: must be one of es, en, pt-br, in any case.`,
    );
  }
  return lang;
}

function withTranslation(entry: McpEntry, lang: Language | undefined): ContentItemV1 & Translated {
  const translation = lang === undefined ? undefined : translationOf(entry, lang);
  return translation
    ? { ...entry.item, translation: { lang: lang as Language, ...translation } }
    : { ...entry.item };
}
