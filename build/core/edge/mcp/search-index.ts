import { LANGUAGES, type Language } from '../languages.ts';
import type { WorkMeter } from './budget.ts';
import {
  ALL_FIELDS,
  BOOST,
  describeField,
  documentTerms,
  reportHit,
  type SearchDocument,
  type SearchField,
  searchedFields,
  stemmingOf,
} from './search-fields.ts';
import { stemTerm } from './stem.ts';
import { MIN_FUZZY_LENGTH, MIN_PREFIX_LENGTH } from './text.ts';

/**
 * The embedded backend's search index: an inverted index kept as strings, read where it lies. A cold
 * isolate splits the sorted vocabulary and decodes two short tables, and nothing else: each posting
 * list is decoded when a query asks for its term, and a search scores into arrays allocated once per
 * isolate, keeping only the best `limit` hits. (MiniSearch, used before, rebuilt its whole radix tree of
 * maps when an isolate started and built a result object for every match a query scored: at 5,000 items
 * that was most of a 300 ms startup and, through garbage collection, a warm p99 of 6–12 ms.)
 *
 * Ranking is bm25 as SQLite FTS5 computes it over the D1 backend's table, on the same terms: each field a
 * column weighted by BOOST, a term counted once per field it is in, the length of an entry its number of
 * distinct terms across fields, k1 = 1.2, b = 0.75. What differs: here a field matched only by a
 * prefix's continuation or a one-typo variant counts half.
 */
export interface PreparedIndex {
  /** ALL_FIELDS when it was built: a bit per field, in this order. */
  fields: string[];
  /** Every term, sorted (UTF-16 code units), joined by line breaks. */
  terms: string;
  /** Where each term's postings start, as numbers (see DIGITS): the difference from the previous. */
  offsets: string;
  /**
   * Each term's postings, one after another: per entry that has the term, the difference of its
   * position from the previous entry's, then the bits of the fields it is in.
   */
  postings: string;
  /** Each entry's length: its distinct terms, summed over its fields. */
  lengths: string;
}

/**
 * 64 characters that JSON and JavaScript strings hold as they are (no quote, no backslash): `#`…`[`
 * and `]`…`c`. A number is written five bits to a character, lowest first; the digits 32–63 say that
 * more follow.
 */
const DIGITS = (() => {
  let digits = '';
  for (let code = 0x23; digits.length < 64; code++) if (code !== 0x5c) digits += String.fromCharCode(code);
  return digits;
})();
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < DIGITS.length; i++) VALUE[DIGITS.charCodeAt(i)] = i;

function writeNumber(out: string[], value: number): void {
  let n = value;
  while (n >= 32) {
    out.push(DIGITS[32 + (n & 31)] as string);
    n = Math.floor(n / 32);
  }
  out.push(DIGITS[n] as string);
}

/** Decodes a whole string of numbers. */
function readNumbers(text: string, into: Uint32Array | Float64Array): number {
  let count = 0;
  let n = 0;
  let shift = 1;
  for (let i = 0; i < text.length; i++) {
    const digit = VALUE[text.charCodeAt(i)] as number;
    if (digit < 0) throw new Error('search index: damaged');
    if (digit >= 32) {
      n += (digit - 32) * shift;
      shift *= 32;
    } else {
      into[count++] = n + digit * shift;
      n = 0;
      shift = 1;
    }
  }
  return count;
}

/** Build time: the index of the documents, in the form the module carries. */
export function buildSearchIndex(documents: readonly SearchDocument[]): PreparedIndex {
  const postings = new Map<string, number[]>();
  const lengths: string[] = [];
  documents.forEach((doc, position) => {
    const masks = new Map<string, number>();
    let length = 0;
    documentTerms(doc).forEach((terms, bit) => {
      if (!terms) return;
      length += terms.length;
      for (const term of terms) masks.set(term, (masks.get(term) ?? 0) | (1 << bit));
    });
    for (const [term, mask] of masks) {
      const list = postings.get(term);
      if (list) list.push(position, mask);
      else postings.set(term, [position, mask]);
    }
    writeNumber(lengths, length);
  });
  return encodeIndex(postings, lengths);
}

/**
 * One document's share of the index: its length (its distinct terms, summed over its fields) and each
 * of its terms with the bits of the fields it is in, in order of first occurrence. It depends on the
 * document alone, so the build keeps it per item and joins the index from every item's
 * ({@link joinPostings}) instead of indexing every text again. tests/mcp/search-postings.test.ts holds
 * the join to {@link buildSearchIndex}, the index built whole.
 */
export interface DocumentPostings {
  length: number;
  terms: string[];
  masks: number[];
}

export function documentPostings(doc: SearchDocument): DocumentPostings {
  const masks = new Map<string, number>();
  let length = 0;
  documentTerms(doc).forEach((terms, bit) => {
    if (!terms) return;
    length += terms.length;
    for (const term of terms) masks.set(term, (masks.get(term) ?? 0) | (1 << bit));
  });
  return { length, terms: [...masks.keys()], masks: [...masks.values()] };
}

/** The index of documents 0…n-1 (their positions) from each one's postings, in index order. */
export function joinPostings(documents: readonly DocumentPostings[]): PreparedIndex {
  const postings = new Map<string, number[]>();
  const lengths: string[] = [];
  documents.forEach((doc, position) => {
    const { terms, masks } = doc;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i] as string;
      const list = postings.get(term);
      if (list) list.push(position, masks[i] as number);
      else postings.set(term, [position, masks[i] as number]);
    }
    writeNumber(lengths, doc.length);
  });
  return encodeIndex(postings, lengths);
}

/** The module's form of the postings (per term: position, mask, …, in index order) and the lengths. */
function encodeIndex(
  postings: ReadonlyMap<string, readonly number[]>,
  lengths: readonly string[],
): PreparedIndex {
  const terms = [...postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: string[] = [];
  const offsets: string[] = [];
  let written = 0;
  for (const term of terms) {
    const list = postings.get(term) as number[];
    const start = out.length;
    let previous = 0;
    for (let i = 0; i < list.length; i += 2) {
      writeNumber(out, (list[i] as number) - previous);
      writeNumber(out, list[i + 1] as number);
      previous = list[i] as number;
    }
    // `out` holds one character per element.
    writeNumber(offsets, start - written);
    written = start;
  }
  return {
    fields: [...ALL_FIELDS],
    terms: terms.join('\n'),
    offsets: offsets.join(''),
    postings: out.join(''),
    lengths: lengths.join(''),
  };
}

export interface SearchOptions {
  /** The query's words, folded, without common words (text.ts `searchTerms`). */
  words: readonly string[];
  /** Only this language's text (and the tags and technologies every language shares) is searched. */
  lang?: Language;
  /** How many hits to return (the best ones). */
  limit: number;
  /** Only the entries it accepts are scored (the language and type filters). */
  accept?: (entry: number) => boolean;
  /** The languages an entry has: a hit is reported in one of them. */
  languages: (entry: number) => readonly Language[];
  /** Charged with every posting read, as it is read (budget.ts); it stops the search past the budget. */
  meter?: WorkMeter;
}

export interface SearchResults {
  /** `all`: every word matched; `any`: nothing matched every word, so the best partial matches are given. */
  mode: 'all' | 'any';
  /** How many entries matched. */
  total: number;
  /** The best `limit` entries, highest score first (ties: index order). */
  hits: SearchHit[];
  /** Postings read (see {@link SearchOptions.meter}). */
  work: number;
}

export interface SearchHit {
  entry: number;
  /** The language whose text matched best (the filter's language when there is one). */
  lang: Language;
  /** Relative to the best hit of the answer (1), at least 0.001. */
  score: number;
  /** Where the words were found, in that language's text and the shared tags and technologies. */
  fields: SearchField[];
}

export interface SearchIndex {
  /** How many entries it holds. */
  readonly size: number;
  search(options: SearchOptions): SearchResults;
}

const K1 = 1.2;
const B = 0.75;
/** A field matched only by a prefix's continuation or a one-typo variant weighs this much of an exact one. */
const LOOSE = 0.5;

/** Loads the prepared index: splits the vocabulary, decodes the offsets and lengths; nothing else. */
export function loadSearchIndex(prepared: PreparedIndex): SearchIndex {
  if (prepared.fields.join() !== ALL_FIELDS.join()) throw new Error('search index: other fields');
  const terms = prepared.terms === '' ? [] : prepared.terms.split('\n');
  const { postings } = prepared;
  const offsets = new Float64Array(terms.length + 1);
  readNumbers(prepared.offsets, offsets);
  for (let i = 1; i < terms.length; i++) offsets[i] = (offsets[i] as number) + (offsets[i - 1] as number);
  offsets[terms.length] = postings.length;
  const size = readNumbers(prepared.lengths, new Float64Array(prepared.lengths.length));
  const norm = new Float64Array(size);
  readNumbers(prepared.lengths, norm);
  let total = 0;
  for (let i = 0; i < size; i++) total += norm[i] as number;
  const average = total / Math.max(1, size) || 1;
  for (let i = 0; i < size; i++) norm[i] = K1 * (1 - B + (B * (norm[i] as number)) / average);
  // The weight of a set of fields, by its bits (a table: 14 fields for three languages, 16,384 sets).
  const weight = new Float64Array(1 << ALL_FIELDS.length);
  for (let mask = 1; mask < weight.length; mask++) {
    const bit = 31 - Math.clz32(mask & -mask);
    weight[mask] =
      (weight[mask & (mask - 1)] as number) + BOOST[describeField(ALL_FIELDS[bit] as string).kind];
  }
  // Each field's language (-1: shared) and weight; the bits of the bodies, and of each language.
  const fieldLanguage = new Int8Array(ALL_FIELDS.length);
  const fieldBoost = new Float64Array(ALL_FIELDS.length);
  const languageBits = LANGUAGES.map(() => 0);
  let bodyBits = 0;
  ALL_FIELDS.forEach((field, bit) => {
    const { kind, lang } = describeField(field);
    const l = lang === undefined ? -1 : LANGUAGES.indexOf(lang);
    fieldLanguage[bit] = l;
    fieldBoost[bit] = BOOST[kind];
    if (l >= 0) languageBits[l] = (languageBits[l] as number) | (1 << bit);
    if (kind === 'body') bodyBits |= 1 << bit;
  });
  // A language's own fields but its body: they count once per word for the language reported.
  const proseAndTagBits = languageBits.reduce((all, bits) => all | bits, 0) & ~bodyBits;
  // Terms by length, for the one-typo look-ups: `byLength` lists term numbers, `lengthStart` where
  // each length begins in it.
  let longest = 0;
  for (const term of terms) longest = Math.max(longest, term.length);
  const lengthStart = new Uint32Array(longest + 2);
  for (const term of terms) lengthStart[term.length + 1] = (lengthStart[term.length + 1] as number) + 1;
  for (let l = 1; l < lengthStart.length; l++)
    lengthStart[l] = (lengthStart[l] as number) + (lengthStart[l - 1] as number);
  const byLength = new Uint32Array(terms.length);
  const filled = lengthStart.slice();
  terms.forEach((term, i) => {
    const at = filled[term.length] as number;
    byLength[at] = i;
    filled[term.length] = at + 1;
  });

  // Per search, reused: entries touched by the search and by the current word, their scores and bits.
  const stamp = new Uint32Array(size);
  const touched = new Int32Array(size);
  const score = new Float64Array(size);
  const words = new Uint16Array(size);
  const fields = new Uint32Array(size);
  const wordStamp = new Uint32Array(size);
  const wordTouched = new Int32Array(size);
  const exact = new Uint32Array(size);
  const loose = new Uint32Array(size);
  // Per entry and language, the weight of the fields the words matched (chooseHit): bodies aside.
  const languageCount = LANGUAGES.length;
  const languageWeight = new Float64Array(size * languageCount);
  let searchNumber = 0;
  let wordNumber = 0;

  const find = (term: string): number => {
    let lo = 0;
    let hi = terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((terms[mid] as string) < term) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    size,
    search(options) {
      const { accept, limit, meter } = options;
      searchNumber++;
      let touchedCount = 0;
      let work = 0;
      const distinct = [...new Set(options.words)];
      const searched = searchedFields(options.lang);
      for (const word of distinct) {
        wordNumber++;
        let wordCount = 0;
        // Reads a term's postings into the word's entries: `allowed`, the fields its form is for.
        const read = (term: number, allowed: number, isExact: boolean) => {
          let at = offsets[term] as number;
          const end = offsets[term + 1] as number;
          let entry = 0;
          let read = 0;
          while (at < end) {
            let n = 0;
            let shift = 1;
            let digit = VALUE[postings.charCodeAt(at++)] as number;
            while (digit >= 32) {
              n += (digit - 32) * shift;
              shift *= 32;
              digit = VALUE[postings.charCodeAt(at++)] as number;
            }
            entry += n + digit * shift;
            let mask = 0;
            shift = 1;
            digit = VALUE[postings.charCodeAt(at++)] as number;
            while (digit >= 32) {
              mask += (digit - 32) * shift;
              shift *= 32;
              digit = VALUE[postings.charCodeAt(at++)] as number;
            }
            mask = (mask + digit * shift) & allowed;
            read++;
            if (mask === 0 || (accept !== undefined && !accept(entry))) continue;
            if (wordStamp[entry] !== wordNumber) {
              wordStamp[entry] = wordNumber;
              exact[entry] = 0;
              loose[entry] = 0;
              wordTouched[wordCount++] = entry;
            }
            if (isExact) exact[entry] = (exact[entry] as number) | mask;
            else loose[entry] = (loose[entry] as number) | mask;
          }
          work += read;
          meter?.spend(read);
        };
        // The word's form in each field: its stem in the field's language, or itself in the names;
        // each form matches itself exactly and its one-typo variants.
        const forms = new Map<string, number>();
        let everywhere = 0;
        searched.forEach((field) => {
          const lang = stemmingOf(field);
          const form = lang === undefined ? word : stemTerm(lang, word);
          const bit = 1 << ALL_FIELDS.indexOf(field);
          forms.set(form, (forms.get(form) ?? 0) | bit);
          everywhere |= bit;
        });
        // Continuations are of the word as typed (a word begun), not of its stem, which would make
        // "compar" of "comparaciones" find "compártela".
        const prefix = word.length >= MIN_PREFIX_LENGTH;
        for (const [form, allowed] of forms) {
          const at = find(form);
          if (terms[at] === form) read(at, allowed, true);
          if (form.length >= MIN_FUZZY_LENGTH) {
            const from = lengthStart[Math.min(form.length - 1, longest + 1)] as number;
            const to = lengthStart[Math.min(form.length + 2, longest + 1)] as number;
            for (let k = from; k < to; k++) {
              const t = byLength[k] as number;
              const term = terms[t] as string;
              if ((prefix && term.startsWith(word)) || !oneEditApart(form, term)) continue;
              read(t, allowed, false);
            }
          }
        }
        if (prefix) {
          for (let t = find(word); t < terms.length; t++) {
            const term = terms[t] as string;
            if (!term.startsWith(word)) break;
            // A term that is one of the word's forms was read as an exact match for its fields.
            const allowed = everywhere & ~(forms.get(term) ?? 0);
            if (allowed !== 0) read(t, allowed, false);
          }
        }
        // The word's share of each entry's score: bm25 of the fields it is in.
        const idf = Math.max(1e-6, Math.log((size - wordCount + 0.5) / (wordCount + 0.5)));
        for (let i = 0; i < wordCount; i++) {
          const entry = wordTouched[i] as number;
          const strong = exact[entry] as number;
          const weak = (loose[entry] as number) & ~strong;
          const w = (weight[strong] as number) + LOOSE * (weight[weak] as number);
          if (stamp[entry] !== searchNumber) {
            stamp[entry] = searchNumber;
            score[entry] = 0;
            words[entry] = 0;
            fields[entry] = 0;
            languageWeight.fill(0, entry * languageCount, (entry + 1) * languageCount);
            touched[touchedCount++] = entry;
          }
          const both = strong | weak;
          for (let rest = both & proseAndTagBits; rest !== 0; rest &= rest - 1) {
            const bit = 31 - Math.clz32(rest & -rest);
            const at = entry * languageCount + (fieldLanguage[bit] as number);
            languageWeight[at] = (languageWeight[at] as number) + (fieldBoost[bit] as number);
          }
          score[entry] = (score[entry] as number) + (idf * w * (K1 + 1)) / (w + (norm[entry] as number));
          words[entry] = (words[entry] as number) + 1;
          fields[entry] = (fields[entry] as number) | both;
        }
      }
      // Every word must match when possible; otherwise the best partial matches beat an empty answer.
      let all = 0;
      for (let i = 0; i < touchedCount; i++) if (words[touched[i] as number] === distinct.length) all++;
      const mode = all > 0 ? 'all' : 'any';
      const need = all > 0 ? distinct.length : 0;
      // The best `limit`, kept in a heap whose root is the worst of them.
      const better = (a: number, b: number) =>
        (score[a] as number) > (score[b] as number) || (score[a] === score[b] && a < b);
      const heap: number[] = [];
      for (let i = 0; i < touchedCount; i++) {
        const entry = touched[i] as number;
        if ((words[entry] as number) < need) continue;
        if (heap.length < limit) {
          heap.push(entry);
          siftUp(heap, heap.length - 1, better);
        } else if (better(entry, heap[0] as number)) {
          heap[0] = entry;
          siftDown(heap, better);
        }
      }
      heap.sort((a, b) => (better(a, b) ? -1 : 1));
      const best = heap[0] === undefined ? 0 : (score[heap[0]] as number);
      return {
        mode,
        total: all > 0 ? all : touchedCount,
        work,
        hits: heap.map((entry) => {
          const bits = fields[entry] as number;
          const matched: string[] = [];
          for (let bit = 0; bit < ALL_FIELDS.length; bit++)
            if (bits & (1 << bit)) matched.push(ALL_FIELDS[bit] as string);
          // A body counts once, the other fields once per word that matched them.
          const weightOf = (lang: Language) => {
            const l = LANGUAGES.indexOf(lang);
            const body = bits & bodyBits & (languageBits[l] as number) ? BOOST.body : 0;
            return (languageWeight[entry * languageCount + l] as number) + body;
          };
          const hit = reportHit(weightOf, matched, options.languages(entry), options.lang);
          const relative = best > 0 ? Math.max(0.001, (score[entry] as number) / best) : 1;
          return { entry, lang: hit.lang, score: relative, fields: hit.fields };
        }),
      };
    },
  };
}

function siftUp(heap: number[], from: number, better: (a: number, b: number) => boolean): void {
  let i = from;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    // The root is the worst: a child better than its parent is in place.
    if (!better(heap[parent] as number, heap[i] as number)) break;
    const swap = heap[parent] as number;
    heap[parent] = heap[i] as number;
    heap[i] = swap;
    i = parent;
  }
}

function siftDown(heap: number[], better: (a: number, b: number) => boolean): void {
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let worst = i;
    if (left < heap.length && better(heap[worst] as number, heap[left] as number)) worst = left;
    if (right < heap.length && better(heap[worst] as number, heap[right] as number)) worst = right;
    if (worst === i) return;
    const swap = heap[worst] as number;
    heap[worst] = heap[i] as number;
    heap[i] = swap;
    i = worst;
  }
}

/** Levenshtein distance of exactly one (the terms differ), on UTF-16 code units, without allocating. */
function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la === lb) {
    let diff = 0;
    for (let i = 0; i < la; i++) if (a.charCodeAt(i) !== b.charCodeAt(i) && ++diff > 1) return false;
    return diff === 1;
  }
  const short = la < lb ? a : b;
  const long = la < lb ? b : a;
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short.charCodeAt(i) === long.charCodeAt(i)) i++;
  for (let j = i; j < short.length; j++) if (short.charCodeAt(j) !== long.charCodeAt(j + 1)) return false;
  return true;
}
