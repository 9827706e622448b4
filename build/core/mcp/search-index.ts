import MiniSearch, { type AsPlainObject, type Options, type SearchResult } from 'minisearch';
import { LANGUAGES, type Language } from '../languages.ts';

/** One searchable document: one translation of one entry. Technologies belong to the entry, so every translation carries them. */
export interface SearchDocument {
  /** `entry * LANGUAGES.length + language`: a number keeps the serialized index small. */
  id: number;
  title: string;
  description?: string;
  tags: string[];
  technologies: string[];
}

export const SEARCH_FIELDS = ['title', 'description', 'tags', 'technologies'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/**
 * Case and accent folding: `Programación` and `programacion` become the same term, in every language.
 * NFD splits a letter from its combining marks, which are then dropped (ñ → n, ç → c, ã → a).
 */
export function foldTerm(term: string): string {
  return term.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

// The same options build the index (at build time) and load it (in the Function): MiniSearch requires it.
const INDEX_OPTIONS: Options<SearchDocument> = {
  idField: 'id',
  fields: [...SEARCH_FIELDS],
  storeFields: [],
  processTerm: (term) => foldTerm(term) || null,
  extractField: (doc, field) => {
    const value = doc[field as keyof SearchDocument];
    return Array.isArray(value) ? value.join(' ') : value;
  },
};

/** Prefix matching needs a few letters, or `de` would match half the Spanish vocabulary. */
const MIN_PREFIX_LENGTH = 3;
/** One typo (an edit distance of 1) is tolerated on words of this length or more. */
const MIN_FUZZY_LENGTH = 5;

const BOOST: Record<SearchField, number> = { title: 3, tags: 2, technologies: 2, description: 1 };

export function documentId(entry: number, lang: Language): number {
  return entry * LANGUAGES.length + LANGUAGES.indexOf(lang);
}

export function parseDocumentId(id: number): { entry: number; lang: Language } {
  const lang = LANGUAGES[id % LANGUAGES.length] as Language;
  return { entry: Math.floor(id / LANGUAGES.length), lang };
}

/** Indexes the documents (build time). The plain object is what the build publishes. */
export function buildSearchIndex(documents: readonly SearchDocument[]): AsPlainObject {
  const index = new MiniSearch<SearchDocument>(INDEX_OPTIONS);
  index.addAll(documents);
  return index.toJSON();
}

export interface SearchIndex {
  /** Terms of the query after tokenizing and folding; empty when it has nothing to search for. */
  terms(query: string): string[];
  search(query: string, filter: (doc: { entry: number; lang: Language }) => boolean): SearchResults;
}

export interface SearchResults {
  /** `all`: every word matched; `any`: nothing matched every word, so the best partial matches are given. */
  mode: 'all' | 'any';
  hits: SearchHit[];
}

export interface SearchHit {
  entry: number;
  lang: Language;
  score: number;
  fields: SearchField[];
}

/** Loads the prepared index without re-indexing anything: a cold isolate only parses it. */
export function loadSearchIndex(prepared: AsPlainObject): SearchIndex {
  const index = MiniSearch.loadJS<SearchDocument>(prepared, INDEX_OPTIONS);
  const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
  return {
    terms: (query) =>
      tokenize(query)
        .map(foldTerm)
        .filter((t) => t !== ''),
    search(query, filter) {
      const run = (combineWith: 'AND' | 'OR') =>
        index.search(query, {
          combineWith,
          boost: BOOST,
          prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
          fuzzy: (term) => (term.length >= MIN_FUZZY_LENGTH ? 1 : false),
          filter: (result) => filter(parseDocumentId(result.id as number)),
        });
      // Every word must match when possible; otherwise the best partial matches beat an empty answer.
      const all = run('AND');
      if (all.length > 0) return { mode: 'all', hits: all.map(toHit) };
      return { mode: 'any', hits: run('OR').map(toHit) };
    },
  };
}

function toHit(result: SearchResult): SearchHit {
  const { entry, lang } = parseDocumentId(result.id as number);
  const fields = new Set(Object.values(result.match).flat());
  return { entry, lang, score: result.score, fields: SEARCH_FIELDS.filter((f) => fields.has(f)) };
}
