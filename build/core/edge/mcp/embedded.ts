import { CONTENT_TYPES } from '../languages.ts';
import type { FoundEntry, ListQuery, McpBackend, SearchRequest } from './backend.ts';
import {
  languageBit,
  languageBits,
  languagesOfBits,
  MCP_DATA_FORMAT,
  type McpEntry,
  type McpInfo,
  type McpPrepared,
} from './mcp-data.ts';
import { ALL_FIELDS, buildSearchIndex, documentTerms, fieldText, loadSearchIndex } from './search-index.ts';

/**
 * The embedded backend's data: a plain object the build writes as a module that the Function imports,
 * so it is part of the Worker and evaluated once when the isolate starts, never fetched or parsed in a
 * request. Its large parts are strings, which the runtime reads far faster than the same data as object
 * literals (JSON.parse of a string literal took half the time of an object literal at 5,000 items):
 *
 * - `entries`: one JSON line per entry, parsed only when a request returns that entry;
 * - `types` and `languages`: one character per entry (the type's index in CONTENT_TYPES; the language
 *   bits), so filters need no parsed entry;
 * - `search`: the prepared MiniSearch index as JSON, loaded at startup and then dropped.
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
  search: string;
}

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
  return {
    format: MCP_DATA_FORMAT,
    backend: 'embedded',
    info: prepared.info,
    entries: prepared.entries.map((entry) => JSON.stringify(entry)).join('\n'),
    types: prepared.entries.map((entry) => CONTENT_TYPES.indexOf(entry.item.type)).join(''),
    languages: prepared.entries.map(languageBits).join(''),
    technologies: [...technologies],
    search: JSON.stringify(buildSearchIndex(prepared.documents)),
  };
}

/**
 * A lower bound of the module's size (renderMcpModule(embeddedData(prepared))), worked out without
 * building the search index: `auto` then sees that a large site is past the ceiling for a fraction of
 * the index's cost. The entries count as their JSON's length (UTF-16 units, never more than its UTF-8
 * bytes); every (term, field, entry) of the index as its least form in MiniSearch's JSON written as a
 * string literal, `\"<id>\":<count>` and a comma or brace: seven bytes and the id's digits.
 */
export function embeddedSizeAtLeast(prepared: McpPrepared, ceiling?: number): number {
  let bytes = 0;
  for (const entry of prepared.entries) bytes += JSON.stringify(entry).length;
  // The bound cannot exceed what counting every word as a distinct term gives (a word is a letter and
  // a separator at least): when even that is under the ceiling, nothing is tokenized.
  let most = ceiling === undefined ? Number.POSITIVE_INFINITY : bytes;
  if (ceiling !== undefined)
    prepared.documents.forEach((doc, i) => {
      for (const field of ALL_FIELDS)
        most += Math.ceil(((fieldText(doc, field)?.length ?? -1) + 1) / 2) * (7 + String(i).length);
    });
  if (ceiling !== undefined && most <= ceiling) return bytes;
  prepared.documents.forEach((doc, i) => {
    const perTerm = 7 + String(i).length;
    for (const terms of documentTerms(doc)) if (terms) bytes += new Set(terms).size * perTerm;
  });
  return bytes;
}

/** Loads the search index now: the Function calls this in its global scope, at startup. */
export function createEmbeddedBackend(data: EmbeddedData): McpBackend {
  const search = loadSearchIndex(JSON.parse(data.search));
  // Each line is a slice of the one string, not a copy; an entry is parsed when an answer includes it.
  const lines = data.entries === '' ? [] : data.entries.split('\n');
  const { types, languages } = data;
  const technologies = new Map(data.technologies);
  const count = lines.length;
  const entry = (i: number): McpEntry => JSON.parse(lines[i] as string);
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
        terms: query.terms,
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
        hits: found.hits.map(
          (hit): FoundEntry => ({
            entry: entry(hit.entry),
            lang: hit.lang,
            score: hit.score,
            fields: hit.fields,
          }),
        ),
      };
    },
  };
}
