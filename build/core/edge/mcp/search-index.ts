import MiniSearch, { type AsPlainObject, type Options, type SearchResult } from 'minisearch';
import { LANGUAGES, type Language } from '../languages.ts';
import type { WorkMeter } from './budget.ts';
import { MIN_FUZZY_LENGTH, MIN_PREFIX_LENGTH, processTerm, searchTerms, tokenize } from './text.ts';

/**
 * One searchable document per entry, with each language's text in fields of its own. One document per
 * translation would index an entry's tags and technologies (the same in every language) once per
 * language and score each translation separately: at 10,000 items a popular tag then meant scoring
 * 6,500 documents per query, and loading the index took twice as long.
 */
export interface SearchDocument {
  /** The entry's position in the data file's `entries`: a number keeps the serialized index small. */
  id: number;
  /** Each translation's title and description, and the tags only that translation has. */
  text: Partial<Record<Language, { title: string; description?: string; tags: string[] }>>;
  /** The tags every translation has. */
  tags: string[];
  technologies: string[];
}

export const SEARCH_FIELDS = ['title', 'description', 'tags', 'technologies'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** `title:es`, `description:en`, `tags:pt-br`: one language's text; `tags`, `technologies`: every language's. */
export type IndexField = `${'title' | 'description' | 'tags'}:${Language}` | 'tags' | 'technologies';

const LANGUAGE_FIELDS = ['title', 'description', 'tags'] as const;
export const SHARED_FIELDS = ['tags', 'technologies'] as const;

export function fieldsOf(lang: Language): IndexField[] {
  return LANGUAGE_FIELDS.map((field): IndexField => `${field}:${lang}`);
}

export const ALL_FIELDS: IndexField[] = [...LANGUAGES.flatMap(fieldsOf), ...SHARED_FIELDS];

/** What an index field says to a client: its kind, and its language when it has one. */
export function describeField(field: string): { kind: SearchField; lang?: Language } {
  const [kind, lang] = field.split(':') as [SearchField, Language | undefined];
  return lang === undefined ? { kind } : { kind, lang };
}

// The same options build the index (at build time) and load it (in the Function): MiniSearch requires it.
const INDEX_OPTIONS: Options<SearchDocument> = {
  idField: 'id',
  fields: ALL_FIELDS,
  storeFields: [],
  // Words and terms as the D1 backend's FTS5 table has them (text.ts); common words are left out of the
  // index and of queries alike (see stop-words.ts).
  tokenize,
  processTerm,
  // Nothing (undefined) for a field a document lacks, not '': an empty string would count as a word in
  // the field lengths that scores are normalized by.
  extractField: (doc, field) => {
    if (field === 'id') return doc.id as unknown as string;
    return fieldText(doc, field) as string;
  },
};

/** The text of one index field of a document, or undefined when the document has none there. */
export function fieldText(doc: SearchDocument, field: string): string | undefined {
  const { kind, lang } = describeField(field);
  const text = lang === undefined ? doc : doc.text[lang];
  const value = text?.[kind as keyof typeof text] as string | string[] | undefined;
  const joined = Array.isArray(value) ? value.join(' ') : value;
  return joined || undefined;
}

const TERMS = new WeakMap<SearchDocument, readonly (readonly string[] | undefined)[]>();

/**
 * The terms (text.ts `searchTerms`) of each index field of a document, in ALL_FIELDS order; undefined
 * where the document has no text. Worked out once per document: the embedded module's size bound and
 * the D1 import both read them.
 */
export function documentTerms(doc: SearchDocument): readonly (readonly string[] | undefined)[] {
  let terms = TERMS.get(doc);
  if (!terms) {
    terms = ALL_FIELDS.map((field) => {
      const text = fieldText(doc, field);
      return text === undefined ? undefined : termsOf(text);
    });
    TERMS.set(doc, terms);
  }
  return terms;
}

// By text as well: documents are made anew by every build, their texts mostly the same (dev rebuilds).
const TEXT_TERMS = new Map<string, readonly string[]>();

function termsOf(text: string): readonly string[] {
  let terms = TEXT_TERMS.get(text);
  if (!terms) {
    terms = searchTerms(text);
    if (TEXT_TERMS.size >= 500_000) TEXT_TERMS.clear();
    TEXT_TERMS.set(text, terms);
  }
  return terms;
}

export const BOOST: Record<SearchField, number> = { title: 3, tags: 2, technologies: 2, description: 1 };
const FIELD_BOOST = Object.fromEntries(ALL_FIELDS.map((f) => [f, BOOST[describeField(f).kind]]));

/** Indexes the documents (build time). The plain object is what the build publishes. */
export function buildSearchIndex(documents: readonly SearchDocument[]): AsPlainObject {
  const index = new MiniSearch<SearchDocument>(INDEX_OPTIONS);
  index.addAll(documents);
  return index.toJSON();
}

/** A query for either backend: its terms (text.ts), already folded and without common words. */
export interface SearchQuery {
  terms: readonly string[];
  /** Only this language's text (and the tags and technologies every language shares) is searched. */
  lang?: Language;
  /** How many hits to return (the best ones). */
  limit: number;
  /**
   * Charged with every word match (an item's field holding a query word, a prefix's continuation or a
   * one-typo variant) as it is scored; it stops the search past the request's budget (budget.ts).
   */
  meter?: WorkMeter;
}

export interface SearchOptions extends SearchQuery {
  /** Only the entries it accepts are scored (the language and type filters). */
  accept?: (entry: number) => boolean;
  /** The languages an entry has: a hit is reported in one of them. */
  languages: (entry: number) => readonly Language[];
}

export interface SearchResults {
  /** `all`: every word matched; `any`: nothing matched every word, so the best partial matches are given. */
  mode: 'all' | 'any';
  /** How many entries matched. */
  total: number;
  /** The best `limit` entries, highest score first (ties: index order). */
  hits: SearchHit[];
  /** Word matches scored (see {@link SearchQuery.maxWork}). */
  work: number;
}

export interface SearchHit {
  entry: number;
  /** The language whose text matched best (the filter's language when there is one). */
  lang: Language;
  score: number;
  /** Where the words were found, in that language's text and the shared tags and technologies. */
  fields: SearchField[];
}

export interface SearchIndex {
  search(options: SearchOptions): SearchResults;
}

/** The index fields a search looks in: one language's and the shared ones, or all of them. */
export function searchedFields(lang: Language | undefined): IndexField[] {
  return lang === undefined ? ALL_FIELDS : [...fieldsOf(lang), ...SHARED_FIELDS];
}

/** Loads the prepared index without re-indexing anything: a cold isolate only parses it. */
export function loadSearchIndex(prepared: AsPlainObject): SearchIndex {
  const index = MiniSearch.loadJS<SearchDocument>(prepared, INDEX_OPTIONS);
  return {
    search(options) {
      const { accept, lang, limit } = options;
      const { meter } = options;
      // Terms are processed already; processing them again leaves them as they are.
      const query = options.terms.join(' ');
      // MiniSearch calls this for every match it scores, before building a result for it: it counts
      // the work (and stops the search past its budget), and gives a rejected entry (the type and
      // language filters) a boost of 0, which skips it sooner than `filter`, applied only once every
      // match is scored.
      let work = 0;
      const boostDocument = (id: unknown) => {
        work++;
        meter?.spend(1);
        return accept === undefined || accept(id as number) ? 1 : 0;
      };
      // One OR query scores every match once. An entry with every word has the same score in it as in
      // an AND query (the sum of its terms' scores times their number), so the AND answer is the OR
      // results that matched every word: MiniSearch's own AND would score every match again when it
      // finds nothing and the partial matches are wanted.
      const results = index.search(query, {
        combineWith: 'OR',
        fields: searchedFields(lang),
        boost: FIELD_BOOST,
        prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
        fuzzy: (term) => (term.length >= MIN_FUZZY_LENGTH ? 1 : false),
        boostDocument,
      });
      // Every word must match when possible; otherwise the best partial matches beat an empty answer.
      const words = new Set(options.terms).size;
      const all = results.filter((r) => r.queryTerms.length === words);
      const [mode, chosen] = all.length > 0 ? (['all', all] as const) : (['any', results] as const);
      return {
        mode,
        total: chosen.length,
        work,
        hits: best(chosen, limit).map((r) =>
          chooseHit(r.id as number, r.score, Object.values(r.match).flat(), options.languages(r.id), lang),
        ),
      };
    },
  };
}

/**
 * The best `limit` results, by score then index order. MiniSearch returns every result by descending
 * score, so only ties at the cut need sorting; a common word matches thousands of entries.
 */
function best(results: SearchResult[], limit: number): SearchResult[] {
  const cut = results[limit - 1]?.score;
  let end = limit;
  while (cut !== undefined && end < results.length && results[end]?.score === cut) end++;
  return results
    .slice(0, end)
    .sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number))
    .slice(0, limit);
}

/**
 * The language a hit is reported in: the one whose fields matched the query's words with the most
 * weight (title 3, tags 2, description 1, as they are boosted); ties, and matches only in the shared
 * tags and technologies, go to the first of es, en, pt-br the entry has. `matched` lists the index
 * field of every matching term, once per term (both backends count alike).
 */
export function chooseHit(
  entry: number,
  score: number,
  matched: readonly string[],
  languages: readonly Language[],
  lang: Language | undefined,
): SearchHit {
  const described = matched.map((field) => describeField(field));
  let chosen = lang;
  if (chosen === undefined) {
    let weight = -1;
    for (const candidate of languages) {
      const w = described.reduce((sum, f) => sum + (f.lang === candidate ? BOOST[f.kind] : 0), 0);
      if (w > weight) [chosen, weight] = [candidate, w];
    }
  }
  const reported = chosen ?? 'es';
  const fields = new Set(
    described.filter((f) => f.lang === undefined || f.lang === reported).map((f) => f.kind),
  );
  return { entry, lang: reported, score, fields: SEARCH_FIELDS.filter((f) => fields.has(f)) };
}
