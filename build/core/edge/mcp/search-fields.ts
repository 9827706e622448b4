import { LANGUAGES, type Language } from '../languages.ts';
import { distinctTerms } from './text-terms.ts';

/**
 * What is searched, the same for both backends: one document per entry, with each language's text in
 * fields of its own. One document per translation would index an entry's tags and technologies (the
 * same in every language) once per language and score each translation separately.
 */
export interface SearchDocument {
  /** The entry's position in the index's order. */
  id: number;
  /** Each translation's title, description, body text, and the tags only that translation has. */
  text: Partial<Record<Language, TranslationText>>;
  /** The tags every translation has. */
  tags: string[];
  technologies: string[];
}

export interface TranslationText {
  title: string;
  description?: string;
  tags: string[];
  /** The Markdown body reduced to its words (stages/parse/body-text.js), at most BODY_TEXT_BYTES. */
  body?: string;
}

/** What `matched_fields` names, in the order it names them. */
export const SEARCH_FIELDS = ['title', 'description', 'body', 'tags', 'technologies'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

const LANGUAGE_KINDS = ['body', 'description', 'title', 'tags'] as const;
type LanguageKind = (typeof LANGUAGE_KINDS)[number];
export const SHARED_FIELDS = ['tags', 'technologies'] as const;

/** `title:es`, `body:en`, `tags:pt-br`: one language's text; `tags`, `technologies`: every language's. */
export type IndexField = `${LanguageKind}:${Language}` | (typeof SHARED_FIELDS)[number];

export function fieldsOf(lang: Language): IndexField[] {
  return LANGUAGE_KINDS.map((kind): IndexField => `${kind}:${lang}`);
}

/**
 * Every field, in the order of the embedded index's field bits and of the D1 table's columns: bodies
 * first, so that the commonest matches have the smallest bits (the postings write them in fewer
 * characters), then each kind for every language, then the shared ones.
 */
export const ALL_FIELDS: readonly IndexField[] = [
  ...LANGUAGE_KINDS.flatMap((kind) => LANGUAGES.map((lang): IndexField => `${kind}:${lang}`)),
  ...SHARED_FIELDS,
];

const DESCRIBED = new Map<string, { kind: SearchField; lang?: Language }>();

/** What an index field says to a client: its kind, and its language when it has one. */
export function describeField(field: string): { readonly kind: SearchField; readonly lang?: Language } {
  let described = DESCRIBED.get(field);
  if (!described) {
    const [kind, lang] = field.split(':') as [SearchField, Language | undefined];
    described = lang === undefined ? { kind } : { kind, lang };
    DESCRIBED.set(field, described);
  }
  return described;
}

/**
 * Field weights, as bm25 takes them on D1 and the embedded index's scores do. A term counts once per
 * field whatever its frequency, and bm25 divides by the entry's length, bodies included: a title is
 * weighted twelve times a body so that an item with the word in its title comes before one with it only
 * in its text even when the first is a long post and the second a short tip (a length ratio of 6).
 */
export const BOOST: Record<SearchField, number> = {
  title: 3,
  tags: 2,
  technologies: 2,
  description: 1,
  body: 0.25,
};

/**
 * The language whose stemmer a field's words go through: titles, descriptions and bodies are prose;
 * tags and technologies are names, matched as written (folded), never stemmed.
 */
export function stemmingOf(field: string): Language | undefined {
  const { kind, lang } = describeField(field);
  return kind === 'title' || kind === 'description' || kind === 'body' ? lang : undefined;
}

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
 * The distinct terms of each index field of a document, in ALL_FIELDS order, in the order they first
 * come; undefined where the document has no text. A field's length, for ranking, is its count of
 * distinct terms on both backends (the D1 table holds each once). Worked out once per document: the
 * embedded index, its size bound and the D1 import all read them. Not through the memo by text below:
 * the build works them out once per item and keeps what it makes of them (its fragments), and a memo
 * would keep every body text of the site alive.
 */
export function documentTerms(doc: SearchDocument): readonly (readonly string[] | undefined)[] {
  let terms = TERMS.get(doc);
  if (!terms) {
    terms = ALL_FIELDS.map((field) => {
      const text = fieldText(doc, field);
      return text === undefined ? undefined : distinctTerms(text, stemmingOf(field));
    });
    TERMS.set(doc, terms);
  }
  return terms;
}

// By text as well, for the D1 backend's snippets: a warm isolate reads the same titles again and again.
const TEXT_TERMS = new Map<string, Map<string, readonly string[]>>();

/** The distinct terms of a field's text (`stemming`: the field's stemmingOf). */
export function fieldTerms(text: string, stemming: Language | undefined): readonly string[] {
  return termsOf(text, stemming);
}

function termsOf(text: string, stemming: Language | undefined): readonly string[] {
  const key = stemming ?? '';
  let memo = TEXT_TERMS.get(key);
  if (!memo) {
    memo = new Map();
    TEXT_TERMS.set(key, memo);
  }
  let terms = memo.get(text);
  if (!terms) {
    terms = distinctTerms(text, stemming);
    if (memo.size >= 200_000) memo.clear();
    memo.set(text, terms);
  }
  return terms;
}

/** The index fields a search looks in: one language's and the shared ones, or all of them. */
export function searchedFields(lang: Language | undefined): readonly IndexField[] {
  return lang === undefined ? ALL_FIELDS : [...fieldsOf(lang), ...SHARED_FIELDS];
}

/**
 * The language a hit is reported in, and the fields it names. The language is the filter's, or the one
 * of the entry's languages whose matched fields weigh most (BOOST), the first of LANGUAGES on a tie or
 * when only the shared tags and technologies matched. A title, description or tag counts once for
 * every query word it holds; a body once, whichever words it holds (what D1 can tell of a body without
 * reading it). `matched` lists each index field once for each query word matched in it (bodies once).
 */
export function chooseHit(
  matched: readonly string[],
  languages: readonly Language[],
  lang: Language | undefined,
): { lang: Language; fields: SearchField[] } {
  const weights = new Map<string, number>();
  for (const field of matched) {
    const { kind, lang: of } = describeField(field);
    if (of !== undefined) weights.set(of, (weights.get(of) ?? 0) + BOOST[kind]);
  }
  return reportHit((l) => weights.get(l) ?? 0, [...new Set(matched)], languages, lang);
}

/** chooseHit, given each language's weight and the (distinct) fields matched. */
export function reportHit(
  weightOf: (lang: Language) => number,
  matched: readonly string[],
  languages: readonly Language[],
  lang: Language | undefined,
): { lang: Language; fields: SearchField[] } {
  let chosen = lang;
  if (chosen === undefined) {
    let weight = -1;
    for (const candidate of languages) {
      const w = weightOf(candidate);
      if (w > weight) [chosen, weight] = [candidate, w];
    }
  }
  const reported = chosen ?? (LANGUAGES[0] as Language);
  let kinds = 0;
  for (const field of matched) {
    const described = describeField(field);
    if (described.lang === undefined || described.lang === reported)
      kinds |= 1 << SEARCH_FIELDS.indexOf(described.kind);
  }
  return { lang: reported, fields: SEARCH_FIELDS.filter((_, i) => kinds & (1 << i)) };
}
