import { LANGUAGES, type Language } from '../languages.ts';
import { stemTerm } from './stem.ts';
import { processTerm, tokenize } from './text.ts';

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

/** The term a word of a field's text is indexed under, or null for a common word. */
export function termOf(word: string, stemming: Language | undefined): string | null {
  const folded = processTerm(word);
  return folded === null || stemming === undefined ? folded : stemTerm(stemming, folded);
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

function distinctTerms(text: string, stemming: Language | undefined): string[] {
  const distinct = new Set<string>();
  // Each run of non-spaces once: a body says most of its words many times, and they are the same terms
  // each time. No pattern of tokenize spans a space, so the runs give the words the whole text does,
  // and each term still comes first where it first comes in the text.
  for (const run of distinctRuns(text)) {
    for (const word of tokenize(run)) {
      const term = termOf(word, stemming);
      if (term !== null) distinct.add(term);
    }
  }
  return [...distinct];
}

// The runs already met in the text being read, as a hash table of their places in its UTF-8: `new
// Set(text.split(' '))` made a string of every one of a body's words to find its few hundred distinct
// ones (23 million strings at 10,000 items: a sixth of a build from nothing). Read as bytes, not with
// charCodeAt: a build from nothing spent 1.8 s of CPU here at 10,000 items, twice what bytes take.
// Reused across calls; a slot (start, length, hash) belongs to the current call only when its stamp is
// the call's.
const encoder = new TextEncoder();
let utf8 = new Uint8Array(1 << 16);
let slots = new Int32Array(0);
let stamps = new Uint32Array(0);
let stamp = 0;

/**
 * The distinct runs of non-spaces of a text (`text.split(' ')` without empty or repeated runs), in order.
 * UTF-8 writes a lone surrogate as U+FFFD, so runs that differ only there count as one: they give the
 * same terms, since tokenize splits at both.
 */
function distinctRuns(text: string): string[] {
  const n = text.length;
  if (utf8.length < n * 3) utf8 = new Uint8Array(n * 3);
  const bytes = utf8;
  const { written } = encoder.encodeInto(text, bytes);
  let size = 256;
  while (size < 1 << 16 && size < n >> 3) size <<= 1;
  let mask = reserve(size);
  const runs: string[] = [];
  // `chars` counts UTF-16 units as the bytes go: one per lead byte, two for a 4-byte character.
  let start = 0;
  let chars = 0;
  while (start < written) {
    const from = chars;
    let hash = 0x811c9dc5 | 0;
    let end = start;
    for (; end < written; end++) {
      const c = bytes[end] as number;
      if (c === 32) break;
      hash = Math.imul(hash ^ c, 0x01000193);
      if ((c & 0xc0) !== 0x80) chars += c >= 0xf0 ? 2 : 1;
    }
    const length = end - start;
    if (length > 0 && !placeRun(bytes, start, length, hash, mask)) {
      runs.push(text.slice(from, chars));
      if (runs.length * 2 > mask) mask = regrow(bytes, mask);
    }
    start = end + 1;
    chars += 1;
  }
  return runs;
}

/** A fresh table of `size` slots (a power of two), as its mask. */
function reserve(size: number): number {
  if (stamps.length < size) {
    slots = new Int32Array(size * 3);
    stamps = new Uint32Array(size);
    stamp = 0;
  }
  stamp = (stamp + 1) >>> 0;
  if (stamp === 0) {
    stamps.fill(0);
    stamp = 1;
  }
  return size - 1;
}

/** Whether the run was met already; when it was not, it is placed. */
function placeRun(bytes: Uint8Array, start: number, length: number, hash: number, mask: number): boolean {
  for (let slot = (hash ^ (hash >>> 15)) & mask; ; slot = (slot + 1) & mask) {
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp;
      slots[slot * 3] = start;
      slots[slot * 3 + 1] = length;
      slots[slot * 3 + 2] = hash;
      return false;
    }
    if (slots[slot * 3 + 1] === length && slots[slot * 3 + 2] === hash) {
      const other = slots[slot * 3] as number;
      let k = 0;
      while (k < length && bytes[other + k] === bytes[start + k]) k++;
      if (k === length) return true;
    }
  }
}

/** The table twice as large, with the runs placed so far placed again; its new mask. */
function regrow(bytes: Uint8Array, mask: number): number {
  const held: number[] = [];
  for (let slot = 0; slot <= mask; slot++) {
    if (stamps[slot] === stamp)
      held.push(slots[slot * 3] as number, slots[slot * 3 + 1] as number, slots[slot * 3 + 2] as number);
  }
  const bigger = reserve((mask + 1) * 2);
  for (let i = 0; i < held.length; i += 3)
    placeRun(bytes, held[i] as number, held[i + 1] as number, held[i + 2] as number, bigger);
  return bigger;
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
