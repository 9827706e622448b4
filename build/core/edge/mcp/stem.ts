import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { foldTerm } from './text.ts';

/**
 * Word forms: a language's Snowball stemmer (`@orama/stemmers`) makes `modelos` and `modelo` one term,
 * `running` and `run`, `aprendizados` and `aprendizado`. Keyed by the language's primary subtag, so a
 * site with any subset of languages (or `pt-PT` beside `pt-br`) finds its stemmer; a language without
 * one is searched by its folded words alone.
 */
const STEMMERS: Readonly<Record<string, (word: string) => string>> = {
  es: spanish,
  en: english,
  pt: portuguese,
};

/**
 * The stemmers read accented suffixes (`-ación`, `-ência`, `-ável`) that a folded word, or a query typed
 * without accents, no longer has: `programacion` would stay whole while `programación` became `program`.
 * Terms are folded before they are stemmed, on both sides, so accents never decide a match; these
 * endings, which only ever carry the accent, get it back first, so that the stemmer still removes them.
 */
const ACCENTED_ENDINGS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  es: [
    ['acion', 'ación'],
    ['ucion', 'ución'],
    ['logia', 'logía'],
    ['logias', 'logías'],
  ],
  pt: [
    ['cao', 'ção'],
    ['coes', 'ções'],
    ['encia', 'ência'],
    ['encias', 'ências'],
    ['ancia', 'ância'],
    ['ancias', 'âncias'],
    ['avel', 'ável'],
    ['aveis', 'áveis'],
    ['ivel', 'ível'],
    ['iveis', 'íveis'],
  ],
};

const STEMMED = new Map<string, Map<string, string>>();

/** The primary subtag a stemmer is keyed by: `pt-br` → `pt`. */
function primary(lang: string): string {
  const dash = lang.indexOf('-');
  return dash < 0 ? lang : lang.slice(0, dash);
}

/** Whether words of this language are stemmed. */
export function hasStemmer(lang: string): boolean {
  return primary(lang) in STEMMERS;
}

/**
 * A folded term (text.ts `foldTerm`) in its language's stem, folded again: the same for every form of
 * the word, with or without its accents. Remembered per language: a site's vocabulary is small, its
 * words come back in every text, and queries repeat.
 */
export function stemTerm(lang: string, folded: string): string {
  const key = primary(lang);
  const stem = STEMMERS[key];
  if (stem === undefined) return folded;
  let memo = STEMMED.get(key);
  if (!memo) {
    memo = new Map();
    STEMMED.set(key, memo);
  }
  let stemmed = memo.get(folded);
  if (stemmed === undefined) {
    let word = folded;
    for (const [ending, accented] of ACCENTED_ENDINGS[key] ?? []) {
      if (word.endsWith(ending)) {
        word = word.slice(0, word.length - ending.length) + accented;
        break;
      }
    }
    stemmed = foldTerm(stem(word));
    // Bounded: a long-lived isolate meets new query words without end.
    if (memo.size >= 200_000) memo.clear();
    memo.set(folded, stemmed);
  }
  return stemmed;
}
