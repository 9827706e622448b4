import { CONTENT_TYPES, LANGUAGES, type Language } from '../languages.ts';
import type { FoundEntry, ListQuery, McpBackend, SearchRequest } from './backend.ts';
import {
  languageBit,
  languageBits,
  languagesOfBits,
  MCP_DATA_FORMAT,
  type McpEntry,
  type McpInfo,
  type McpItem,
  type McpPrepared,
} from './mcp-data.ts';
import { documentTerms, type SearchDocument } from './search-fields.ts';
import {
  buildSearchIndex,
  type DocumentPostings,
  documentPostings,
  joinPostings,
  loadSearchIndex,
} from './search-index.ts';
import { hitSnippet } from './snippet.ts';

/**
 * The embedded backend's data: a plain object the build writes as a module that the Function imports,
 * so it is part of the Worker and evaluated once when the isolate starts, never fetched or parsed in a
 * request. Its large parts are strings, which the runtime reads far faster than the same data as object
 * literals (JSON.parse of a string literal took half the time of an object literal at 5,000 items):
 *
 * - `entries`: one JSON line per entry, parsed only when a request returns that entry;
 * - `types` and `languages`: one character per entry (the type's index in CONTENT_TYPES; the language
 *   bits), so filters need no parsed entry;
 * - `search*`: the search index (search-index.ts), strings read where they lie;
 * - `bodies`: one line per entry, each language's body text (LANGUAGES order, separated by U+0001), for
 *   the snippets of the hits.
 */
export interface EmbeddedData {
  format: typeof MCP_DATA_FORMAT;
  backend: 'embedded';
  info: McpInfo;
  entries: string;
  types: string;
  languages: string;
  /** Each lower-cased technology with the positions of the entries that use it, in index order. */
  technologies: [string, number[]][];
  searchFields: string[];
  searchTerms: string;
  searchOffsets: string;
  searchPostings: string;
  searchLengths: string;
  bodies: string;
}

const BODY_SEPARATOR = '\u0001';

/** Build time: the prepared material in the embedded backend's form. */
export function embeddedData(prepared: McpPrepared): EmbeddedData {
  const technologies = new Map<string, number[]>();
  prepared.entries.forEach((entry, i) => {
    for (const name of new Set((entry.item.technologies ?? []).map((t) => t.toLowerCase()))) {
      const positions = technologies.get(name);
      if (positions) positions.push(i);
      else technologies.set(name, [i]);
    }
  });
  const index = buildSearchIndex(prepared.documents);
  return {
    format: MCP_DATA_FORMAT,
    backend: 'embedded',
    info: prepared.info,
    entries: prepared.entries.map((entry) => JSON.stringify(entry)).join('\n'),
    types: prepared.entries.map((entry) => CONTENT_TYPES.indexOf(entry.item.type)).join(''),
    languages: prepared.entries.map(languageBits).join(''),
    technologies: [...technologies],
    searchFields: index.fields,
    searchTerms: index.terms,
    searchOffsets: index.offsets,
    searchPostings: index.postings,
    searchLengths: index.lengths,
    bodies: prepared.documents.map(bodiesLine).join('\n'),
  };
}

function bodiesLine(doc: SearchDocument): string {
  const line = LANGUAGES.map((lang) => doc.text[lang]?.body ?? '').join(BODY_SEPARATOR);
  return line.length === LANGUAGES.length - 1 ? '' : line;
}

/**
 * One entry's share of the embedded data, worked out from that entry alone: the build keeps it per item
 * (build/core/output/item-fragments.ts) and joins the data from every item's ({@link joinEmbedded}).
 */
export interface EmbeddedItem {
  /** The entry as one JSON line. */
  line: string;
  /** Its type's index in CONTENT_TYPES. */
  type: number;
  /** Its language bits. */
  languages: number;
  /** Its technologies, lower-cased, each once. */
  technologies: string[];
  postings: DocumentPostings;
  /** Its line of `bodies`. */
  bodies: string;
}

export function embeddedItem({ entry, document }: McpItem): EmbeddedItem {
  return {
    line: JSON.stringify(entry),
    type: CONTENT_TYPES.indexOf(entry.item.type),
    languages: languageBits(entry),
    technologies: [...new Set((entry.item.technologies ?? []).map((t) => t.toLowerCase()))],
    postings: documentPostings(document),
    bodies: bodiesLine(document),
  };
}

/**
 * The embedded data of the items in index order (their positions are their places in `items`): what
 * {@link embeddedData} makes of the whole material, which tests/mcp/search-postings.test.ts holds it to.
 */
export function joinEmbedded(info: McpInfo, items: readonly EmbeddedItem[]): EmbeddedData {
  const technologies = new Map<string, number[]>();
  items.forEach((item, i) => {
    for (const name of item.technologies) {
      const positions = technologies.get(name);
      if (positions) positions.push(i);
      else technologies.set(name, [i]);
    }
  });
  const index = joinPostings(items.map((item) => item.postings));
  return {
    format: MCP_DATA_FORMAT,
    backend: 'embedded',
    info,
    entries: items.map((item) => item.line).join('\n'),
    types: items.map((item) => item.type).join(''),
    languages: items.map((item) => item.languages).join(''),
    technologies: [...technologies],
    searchFields: index.fields,
    searchTerms: index.terms,
    searchOffsets: index.offsets,
    searchPostings: index.postings,
    searchLengths: index.lengths,
    bodies: items.map((item) => item.bodies).join('\n'),
  };
}

/**
 * The embedded data as the backend reads it: its tables, with the entries and their bodies by position.
 * From the data itself (embeddedTables) or from the bytes of the module the build writes
 * (packed-data.ts), which decodes an entry only when it is asked for.
 */
export interface EmbeddedTables extends Omit<EmbeddedData, 'entries' | 'bodies'> {
  count: number;
  /** Entry `i` as its JSON line. */
  entryLine(i: number): string;
  /** Entry `i`'s line of `bodies` ('' when it has none). */
  bodiesLine(i: number): string;
}

export function embeddedTables(data: EmbeddedData | EmbeddedTables): EmbeddedTables {
  if (!('entries' in data)) return data;
  const { entries, bodies, ...rest } = data;
  // Each line is a slice of the one string, not a copy.
  const lines = entries === '' ? [] : entries.split('\n');
  const bodyLines = bodies.split('\n');
  return {
    ...rest,
    count: lines.length,
    entryLine: (i) => lines[i] ?? '',
    bodiesLine: (i) => bodyLines[i] ?? '',
  };
}

/** A body of some length among the first entries, with its language: what startup warms snippets on. */
export function sampleBody(data: EmbeddedTables): { text: string; lang: Language } | undefined {
  for (let i = 0; i < Math.min(50, data.count); i++) {
    const texts = data.bodiesLine(i).split(BODY_SEPARATOR);
    const at = texts.findIndex((text) => text.length >= 800);
    if (at >= 0) return { text: texts[at] as string, lang: LANGUAGES[at] as Language };
  }
  return undefined;
}

/**
 * A lower bound of the module's size (renderMcpModule(embeddedData(prepared))), worked out without
 * building the search index: `auto` then sees that a large site is past the ceiling for a fraction of
 * the index's cost. The entries and the body texts count as their length (UTF-16 units, never more
 * than their UTF-8 bytes); every (term, entry) of the index as the two characters a posting takes at
 * least, and every term as its length and a line break.
 */
export function embeddedSizeAtLeast(prepared: McpPrepared, ceiling?: number): number {
  return embeddedSizeBound(
    prepared.entries.map((entry, i) =>
      embeddedSizeItem({ entry, document: prepared.documents[i] as SearchDocument }),
    ),
    ceiling,
  );
}

/**
 * What the size bound counts of one entry: its line's and body texts' length and, when asked, its
 * distinct terms (the build keeps both per item).
 */
export interface EmbeddedSizeItem {
  /** Its JSON line's length and its body texts' lengths. */
  text: number;
  /** Worked out only when the texts alone are under the ceiling (it tokenizes every text). */
  terms(): readonly string[];
}

export function embeddedSizeItem({ entry, document }: McpItem): EmbeddedSizeItem {
  let text = JSON.stringify(entry).length;
  for (const t of Object.values(document.text)) text += t.body?.length ?? 0;
  return {
    text,
    terms: () => {
      const distinct = new Set<string>();
      for (const terms of documentTerms(document)) for (const term of terms ?? []) distinct.add(term);
      return [...distinct];
    },
  };
}

/** embeddedSizeAtLeast of the entries' size items, in index order. */
export function embeddedSizeBound(items: readonly EmbeddedSizeItem[], ceiling?: number): number {
  let bytes = 0;
  for (const item of items) bytes += item.text;
  if (ceiling !== undefined && bytes > ceiling) return bytes;
  const vocabulary = new Set<string>();
  for (const item of items) {
    const distinct = item.terms();
    bytes += 2 * distinct.length;
    for (const term of distinct) vocabulary.add(term);
  }
  for (const term of vocabulary) bytes += term.length + 1;
  return bytes;
}

/** Loads the search index now: the Function calls this in its global scope, at startup. */
export function createEmbeddedBackend(data: EmbeddedData | EmbeddedTables): McpBackend {
  const tables = embeddedTables(data);
  const search = loadSearchIndex({
    fields: tables.searchFields,
    terms: tables.searchTerms,
    offsets: tables.searchOffsets,
    postings: tables.searchPostings,
    lengths: tables.searchLengths,
  });
  const bodyOf = (i: number, lang: Language): string | undefined => {
    const line = tables.bodiesLine(i);
    if (!line) return undefined;
    return line.split(BODY_SEPARATOR)[LANGUAGES.indexOf(lang)] || undefined;
  };
  const { types, languages, count } = tables;
  const technologies = new Map(tables.technologies);
  // Parsed entries are kept (they are only ever read: answers copy them): a warm isolate answers the
  // same popular items again and again, and parsing each was a third of a 100-hit search.
  const parsed = new Map<number, McpEntry>();
  const entry = (i: number): McpEntry => {
    let found = parsed.get(i);
    if (!found) {
      found = JSON.parse(tables.entryLine(i)) as McpEntry;
      if (parsed.size >= 2000) parsed.clear();
      parsed.set(i, found);
    }
    return found;
  };
  const accepts = ({ type, lang }: Pick<ListQuery, 'type' | 'lang'>) => {
    const typeCode = type === undefined ? undefined : String(CONTENT_TYPES.indexOf(type));
    const bit = lang === undefined ? 0 : languageBit(lang);
    if (typeCode === undefined && bit === 0) return undefined;
    return (i: number) =>
      (typeCode === undefined || types[i] === typeCode) && (bit === 0 || (Number(languages[i]) & bit) !== 0);
  };
  return {
    kind: 'embedded',
    async list(query) {
      const accept = accepts(query);
      const candidates =
        query.technology === undefined ? undefined : (technologies.get(query.technology) ?? []);
      let matching: number[];
      if (candidates) matching = accept ? candidates.filter(accept) : candidates;
      else if (accept) {
        matching = [];
        for (let i = 0; i < count; i++) if (accept(i)) matching.push(i);
      } else {
        // No filter: the page is a range, and nothing else is visited.
        const end = Math.min(count, query.offset + query.limit);
        const page: McpEntry[] = [];
        for (let i = query.offset; i < end; i++) page.push(entry(i));
        return { entries: page, total: count, last: end - 1 };
      }
      const positions = matching.slice(query.offset, query.offset + query.limit);
      return { entries: positions.map(entry), total: matching.length, last: positions.at(-1) ?? -1 };
    },
    async search(query: SearchRequest) {
      const accept = accepts(query);
      const found = search.search({
        words: query.terms,
        limit: query.limit,
        ...(query.lang !== undefined && { lang: query.lang }),
        ...(accept && { accept }),
        ...(query.meter !== undefined && { meter: query.meter }),
        languages: (i) => languagesOfBits(Number(languages[i])),
      });
      return {
        mode: found.mode,
        total: found.total,
        work: found.work,
        hits: found.hits.map((hit): FoundEntry => {
          const found = entry(hit.entry);
          return {
            entry: found,
            lang: hit.lang,
            score: hit.score,
            fields: hit.fields,
            snippet: hitSnippet(
              found,
              hit,
              hit.fields.includes('body') ? bodyOf(hit.entry, hit.lang) : undefined,
              query.terms,
            ),
          };
        }),
      };
    },
  };
}
