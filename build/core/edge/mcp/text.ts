import { STOP_WORDS } from './stop-words.ts';

/**
 * How searchable text becomes terms, the same for both backends: the embedded index (search-index.ts)
 * holds these terms (stemmed in a field's language: search-fields.ts), and the D1 backend writes them into its FTS5 table and builds its MATCH
 * expressions from them. A word is a run of letters, digits, private-use characters and combining
 * marks: SQLite FTS5's `unicode61` tokenizer splits on everything else by default (spaces, punctuation,
 * symbols), so a folded term is always exactly one FTS5 token and both backends see the same words.
 */
const SEPARATOR = /[^\p{L}\p{N}\p{Co}\p{M}]+/u;

/**
 * Technology names whose meaning is in their symbols, which the split above would drop (`C++` and `C#`
 * would both be the word `c`, `.NET` the word `net`), rewritten as words before splitting, in indexed
 * text and queries alike. The rewritten words are plain letters, so they stay one FTS5 token and mean
 * the same on both backends:
 *
 * - a letter and `++`: `C++` → `cplusplus`, `C++17` → `cplusplus17` (which `C++` finds as a prefix);
 * - a single letter and `#`: `C#` → `csharp`, `F#` → `fsharp`;
 * - `.NET`: `dotnet` (`ASP.NET` → `asp dotnet`);
 * - a name and `.js`: `Node.js` → `nodejs`, `Vue.js` → `vuejs` (so `node` finds it as a prefix).
 */
const TECHNOLOGY_NAMES: readonly [RegExp, string][] = [
  [/(?<![\p{L}\p{N}])(\p{L})\+\+(?![\p{L}+])/gu, '$1plusplus'],
  [/(?<![\p{L}\p{N}])(\p{L})#(?![\p{L}\p{N}#])/gu, '$1sharp'],
  [/\.net(?![\p{L}\p{N}])/giu, ' dotnet'],
  [/(?<=[\p{L}\p{N}])\.js(?![\p{L}\p{N}])/giu, 'js'],
];

/** Only text holding one of the symbols is rewritten: most text is left as it is, unscanned. */
// With `u`, as the patterns: case-insensitive matching then folds as they do (`ſ` is an `s`).
const TECHNOLOGY_SYMBOLS = /[+#]|\.(?:net|js)/iu;

export function spellTechnologyNames(text: string): string {
  if (!TECHNOLOGY_SYMBOLS.test(text)) return text;
  let spelled = text;
  for (const [pattern, word] of TECHNOLOGY_NAMES) spelled = spelled.replace(pattern, word);
  return spelled;
}

/** The words of a text, as written (not folded), technology names spelled out as words. */
export function tokenize(text: string): string[] {
  return spellTechnologyNames(text)
    .split(SEPARATOR)
    .filter((word) => word !== '');
}

/**
 * Case and accent folding: `Programación` and `programacion` become the same term, in every language.
 * NFD splits a letter from its combining marks, which are then dropped (ñ → n, ç → c, ã → a).
 */
export function foldTerm(term: string): string {
  return term.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const PROCESSED = new Map<string, string | null>();

/** A word as it is indexed and searched: folded, or null for a common word (see stop-words.ts). */
export function processTerm(word: string): string | null {
  // Indexing meets the same words over and over (a tenth of the build's time at 10,000 items went to
  // folding them again); the cache is bounded because queries in a long-lived isolate bring new ones.
  let processed = PROCESSED.get(word);
  if (processed === undefined) {
    const folded = foldTerm(word);
    processed = folded === '' || STOP_WORDS.has(folded) ? null : folded;
    if (PROCESSED.size >= 50_000) PROCESSED.clear();
    PROCESSED.set(word, processed);
  }
  return processed;
}

/** Every word of a query, folded, common words included: empty when the query has no word at all. */
export function queryWords(query: string): string[] {
  return tokenize(query)
    .map(foldTerm)
    .filter((word) => word !== '');
}

/** The terms a text is indexed under, or a query searched for: its words without the common ones. */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of tokenize(text)) {
    const term = processTerm(word);
    if (term !== null) terms.push(term);
  }
  return terms;
}

/** Prefix matching needs a few letters, or `de` would match half the Spanish vocabulary. */
export const MIN_PREFIX_LENGTH = 3;
/** One typo (an edit distance of 1) is tolerated on words of this length or more. */
export const MIN_FUZZY_LENGTH = 5;

/**
 * Whether an indexed term answers a query term: the same, or starting with it (three letters or more),
 * or one insertion, deletion or substitution away from it (five letters or more). This is what
 * the embedded index matches, and what the D1 backend asks FTS5 for.
 */
export function termMatches(query: string, term: string): boolean {
  if (term === query) return true;
  if (query.length >= MIN_PREFIX_LENGTH && term.startsWith(query)) return true;
  return query.length >= MIN_FUZZY_LENGTH && withinOneEdit(query, term);
}

/**
 * Levenshtein distance ≤ 1, on UTF-16 code units. Compared in place: a snippet asks it of every word
 * it reads, and slices made for the comparison were garbage on every call.
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Past the first difference, one character skipped in the longer (in both when they are as long).
  let ia = a.length >= b.length ? i + 1 : i;
  let ib = b.length >= a.length ? i + 1 : i;
  for (; ia < a.length; ia++, ib++) if (a.charCodeAt(ia) !== b.charCodeAt(ib)) return false;
  return true;
}

/**
 * The keys a term is filed under for one-typo look-ups (a deletion neighbourhood): the term itself at
 * position -1, and the term without its character at position i, for each i. Two terms are one edit
 * apart exactly when they share a key under these rules: (t, -1) = (q, -1) is equality, (q without
 * i, -1) a deletion, (q, j) an insertion, (q without i, i) a substitution.
 */
export function deletionKeys(term: string): { key: string; position: number }[] {
  const keys = [{ key: term, position: -1 }];
  for (let i = 0; i < term.length; i++) {
    keys.push({ key: term.slice(0, i) + term.slice(i + 1), position: i });
  }
  return keys;
}
