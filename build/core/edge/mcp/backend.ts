import type { ContentType, Language } from '../languages.ts';
import type { WorkMeter } from './budget.ts';
import type { McpEntry, McpInfo } from './mcp-data.ts';
import type { SearchField } from './search-fields.ts';

/**
 * Where the MCP tools read the index from. Two backends answer the same queries: `embedded` (the data
 * bundled into the Function, searched by search-index.ts) and `d1` (Cloudflare D1, searched with SQLite
 * FTS5). The tools (tools.ts) do the rest alike: arguments, cursors, translations, errors.
 */
export interface McpBackend {
  readonly kind: 'embedded' | 'd1';
  /** A page of the entries that pass the filters, in index order, and how many pass. */
  list(query: ListQuery): Promise<ListPage>;
  /** The best entries for the query's terms, every term required when any entry has them all. */
  search(query: SearchRequest): Promise<Found>;
}

export interface ListQuery {
  type?: ContentType;
  lang?: Language;
  /** Lower case: technologies match regardless of case. */
  technology?: string;
  /** How many matching entries to skip. */
  offset: number;
  /** The position of the last entry of the previous page, when known: a backend may seek past it instead. */
  after?: number;
  limit: number;
}

export interface ListPage {
  entries: McpEntry[];
  total: number;
  /** The position of the page's last entry, for the next page's cursor. */
  last: number;
}

export interface SearchRequest {
  /** Folded, without common words (text.ts `searchTerms`); never empty. */
  terms: readonly string[];
  type?: ContentType;
  lang?: Language;
  limit: number;
  /**
   * Charged with every word match the search scores, as it scores it (budget.ts): past the request's
   * budget it throws SearchWorkExceeded and the search stops. D1 matches in the database and does not
   * use it.
   */
  meter?: WorkMeter;
}

export interface Found {
  /** `all`: every term matched; `any`: no entry had them all, so the best partial matches are given. */
  mode: 'all' | 'any';
  total: number;
  hits: FoundEntry[];
  /** Word matches the Function scored (0 on D1, where the database does it). */
  work: number;
}

export interface FoundEntry {
  entry: McpEntry;
  /** The language whose text matched best (the filter's language when there is one). */
  lang: Language;
  /** Relevance, higher is better; comparable only within one answer (each backend scores its own way). */
  score: number;
  fields: SearchField[];
  /** About 160 characters of the matched language's text around the best match, matched words marked (snippet.ts). */
  snippet: string;
}

/** What a server needs: the build's information and a backend. Made once per isolate (or stdio process). */
export interface LoadedMcp {
  info: McpInfo;
  backend: McpBackend;
}
