import type { Language } from '../languages.ts';
import { type McpEntry, translationOf } from './mcp-data.ts';
import type { SearchField } from './search-fields.ts';
import { stemTerm } from './stem.ts';
import { foldTerm, termMatches, tokenize } from './text.ts';
import { termOf } from './text-terms.ts';

/** The most characters of an item's text a snippet shows: never more of a body than this. */
export const SNIPPET_TEXT_CHARS = 160;
/** Matched words marked in one snippet, at most. */
const MAX_MARKS = 8;
/**
 * The longest a snippet can be: its text, an ellipsis at each end, and `**` around each marked word.
 * The output schema's maxLength.
 */
export const SNIPPET_MAX_CHARS = SNIPPET_TEXT_CHARS + 2 + 4 * MAX_MARKS;

/**
 * A word of the text, or a technology name written with symbols (`C++17`, `C#`, `ASP.NET`, `Node.js`),
 * which text.ts spells out as words before splitting: a token is matched by the terms of its words.
 */
const WORD =
  /(?<![\p{L}\p{N}])\p{L}\+\+[\p{L}\p{N}]*|(?<![\p{L}\p{N}])\p{L}#(?![\p{L}\p{N}#])|[\p{L}\p{N}\p{Co}\p{M}]*\.(?:net|js)(?![\p{L}\p{N}])|[\p{L}\p{N}\p{Co}\p{M}]+/giu;
const WORD_CHAR = /[\p{L}\p{N}\p{Co}\p{M}]/u;
/** Where a snippet is taken from, the first of these that matched. */
const SOURCES: readonly SearchField[] = ['body', 'description', 'title', 'tags', 'technologies'];

/** Context kept before the first match, when the window has room for it. */
const LEAD = 40;

interface Match {
  start: number;
  end: number;
  word: number;
}

/**
 * A hit's snippet: about 160 characters of the matched language's text around the best match, the
 * matched words marked `**like this**`. From the body when a word matched there, else from the
 * description, the title, the tags or the technologies, whichever matched first in that order; the
 * window is the one holding the most of the query's words, the earliest on a tie.
 */
export function hitSnippet(
  entry: McpEntry,
  hit: { lang: Language; fields: readonly SearchField[] },
  body: string | undefined,
  words: readonly string[],
): string {
  const { lang, fields } = hit;
  const translation = translationOf(entry, lang);
  for (const field of SOURCES) {
    if (!fields.includes(field)) continue;
    const text =
      field === 'body'
        ? body
        : field === 'description'
          ? translation?.description
          : field === 'title'
            ? translation?.title
            : field === 'tags'
              ? entry.tags?.[lang]?.join(', ')
              : entry.item.technologies?.join(', ');
    if (text === undefined) continue;
    const snippet = excerpt(text, field === 'tags' || field === 'technologies' ? undefined : lang, words);
    if (snippet !== undefined) return snippet;
  }
  // A match the text does not show word for word (a technology name written with symbols): the
  // description or title, unmarked.
  return clip(translation?.description ?? translation?.title ?? entry.item.title, 0);
}

/** The excerpt of `text` around its best match of `words`, or undefined when none of them is in it. */
export function excerpt(
  text: string,
  stemming: Language | undefined,
  words: readonly string[],
): string | undefined {
  const forms = words.map((word) => (stemming === undefined ? word : stemTerm(stemming, word)));
  const matchWord = (word: string): number => {
    const term = termOf(word, stemming);
    if (term === null) return -1;
    for (let w = 0; w < forms.length; w++) if (termMatches(forms[w] as string, term)) return w;
    return -1;
  };
  const matchOf = (start: number, end: number): number => {
    const token = text.slice(start, end);
    if (!TECHNOLOGY.test(token)) return matchWord(token);
    for (const word of tokenize(token)) {
      const w = matchWord(word);
      if (w >= 0) return w;
    }
    return -1;
  };
  // The matches, up to the point past which no window can hold more of the words than one found. In a
  // long text, the words a form begins are found by a search for the forms (native, and nothing made of
  // the text between); the rest (one-typo variants, stems that are not a word's beginning) by reading
  // every word.
  let matches =
    text.length > 4 * SNIPPET_TEXT_CHARS ? collect(text, forms.length, matchOf, finderOf(forms)) : [];
  if (matches.length === 0) matches = collect(text, forms.length, matchOf);
  if (matches.length === 0) return undefined;
  // The window starting at a match that holds the most distinct words: two fingers over the matches,
  // with a count of each word's matches between them.
  let anchor = 0;
  let most = 0;
  const counts = new Uint16Array(forms.length);
  let distinct = 0;
  let j = 0;
  for (let i = 0; i < matches.length; i++) {
    const start = (matches[i] as Match).start;
    for (; j < matches.length && (matches[j] as Match).end <= start + SNIPPET_TEXT_CHARS; j++) {
      const w = (matches[j] as Match).word;
      const count = counts[w] as number;
      counts[w] = count + 1;
      if (count === 0) distinct++;
    }
    if (distinct > most) [anchor, most] = [i, distinct];
    const w = (matches[i] as Match).word;
    const count = (counts[w] as number) - 1;
    counts[w] = count;
    if (count === 0) distinct--;
  }
  const first = matches[anchor] as Match;
  let last = first;
  for (let j = anchor; j < matches.length; j++) {
    const m = matches[j] as Match;
    if (m.end > first.start + SNIPPET_TEXT_CHARS) break;
    last = m;
  }
  // Some context before the first match, as much as the matches leave room for.
  const room = SNIPPET_TEXT_CHARS - (last.end - first.start);
  let start = Math.max(0, first.start - Math.min(LEAD, Math.floor(room / 2)));
  if (start > 0) {
    // From the start of a word.
    const space = text.indexOf(' ', start - 1);
    start = space >= 0 && space < first.start ? space + 1 : first.start;
  }
  return clip(text, start, matchOf);
}

/** Technology names written with symbols, which text.ts spells out before splitting (`C++`, `Node.js`). */
const TECHNOLOGY = /[+#.]/;

/**
 * Whether a UTF-16 unit is part of a word as text.ts splits them: letters, digits, marks, private use.
 * ASCII is decided by range; the rest by the Unicode classes (a one-character string of Latin-1 is one
 * the runtime keeps, so this allocates nothing for es, en and pt-br text).
 */
function isWordUnit(code: number): boolean {
  if (code < 0x80)
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return WORD_CHAR.test(String.fromCharCode(code));
}

/**
 * The end of the word that starts at `start`: letters, digits and marks, and a technology name's
 * symbols (`C++17`, `C#`, `ASP.NET`, `Node.js`) when they follow.
 */
function wordEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && isWordUnit(text.charCodeAt(end))) end++;
  const next = text.charCodeAt(end);
  if (next === 43 /* + */ || next === 35 /* # */ || next === 46 /* . */) {
    WORD.lastIndex = start;
    const whole = WORD.exec(text);
    if (whole && whole.index === start) return start + whole[0].length;
  }
  return end;
}

/** Where the next word starts from `at` (before `end`): a word unit, or the dot of `.NET`. */
function wordStart(text: string, at: number, end: number): number {
  let start = at;
  while (start < end) {
    const code = text.charCodeAt(start);
    if (isWordUnit(code)) return start;
    if (code === 46 /* . */ && start + 1 < end && isWordUnit(text.charCodeAt(start + 1))) {
      WORD.lastIndex = start;
      const whole = WORD.exec(text);
      if (whole && whole.index === start) return start;
    }
    start++;
  }
  return end;
}

/**
 * The matches of the query's words in `text`, in order, until all of them have been seen and a window
 * past the first is full. With `finder`, only at the places it finds (each checked word by word).
 */
function collect(
  text: string,
  words: number,
  matchOf: (start: number, end: number) => number,
  finder?: RegExp,
): Match[] {
  const matches: Match[] = [];
  let seen = 0;
  const all = words >= 31 ? -1 : (1 << words) - 1;
  let at = 0;
  if (finder) finder.lastIndex = 0;
  while (at < text.length) {
    let start: number;
    if (finder) {
      const found = finder.exec(text);
      if (found === null) break;
      start = found.index;
      // The beginning of a word (the search itself does not look behind: that made it slow to make).
      if (start > 0 && isWordUnit(text.charCodeAt(start - 1))) {
        finder.lastIndex = start + 1;
        continue;
      }
    } else {
      start = wordStart(text, at, text.length);
      if (start >= text.length) break;
    }
    const end = wordEnd(text, start);
    at = end;
    if (finder) finder.lastIndex = end;
    const first = matches[0];
    // Every word seen and a window past the first match full, or the best window looked for far
    // enough: a word that is not in the first few windows after the first match rarely makes a better
    // snippet, and reading a whole 32 KiB body per hit is what made a 100-hit search slow.
    if (first && start > first.start + ((seen & all) === all ? 1 : 8) * SNIPPET_TEXT_CHARS) break;
    const word = matchOf(start, end);
    if (word < 0) continue;
    matches.push({ start, end, word });
    seen |= 1 << Math.min(word, 30);
    if (matches.length >= 48) break;
  }
  return matches;
}

/** Letters and the accented forms they fold from, for a search that ignores accents as terms do. */
const ACCENTED: Readonly<Record<string, string>> = {
  a: 'aáàâãäå',
  e: 'eéèêë',
  i: 'iíìîï',
  o: 'oóòôõö',
  u: 'uúùûü',
  c: 'cç',
  n: 'nñ',
  y: 'yýÿ',
};

const FINDERS = new Map<string, RegExp>();

/**
 * A search for the forms, ignoring case and accents: plain letters and classes, no Unicode mode and no
 * look-behind, so that making one for a new query costs some 50 µs rather than half a millisecond.
 */
function finderOf(forms: readonly string[]): RegExp {
  const key = forms.join(' ');
  let finder = FINDERS.get(key);
  if (!finder) {
    const alternatives = [...new Set(forms)].map((form) =>
      [...form]
        .map((c) => (ACCENTED[c] ? `[${ACCENTED[c]}]` : c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')))
        .join(''),
    );
    finder = new RegExp(alternatives.join('|'), 'gi');
    if (FINDERS.size >= 1000) FINDERS.clear();
    FINDERS.set(key, finder);
  }
  return finder;
}

/** At most SNIPPET_TEXT_CHARS of `text` from `start`, cut at a word's end, marked, with ellipses. */
function clip(text: string, from: number, matchOf?: (start: number, end: number) => number): string {
  let start = from;
  let end = Math.min(text.length, start + SNIPPET_TEXT_CHARS);
  if (end < text.length && isWordUnit(text.charCodeAt(end)) && isWordUnit(text.charCodeAt(end - 1))) {
    // Not in the middle of a word.
    const space = text.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  // Never half of a surrogate pair at either end.
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  if (isLowSurrogate(text.charCodeAt(end))) end--;
  while (start < end && text.charCodeAt(start) === 32) start++;
  while (end > start && text.charCodeAt(end - 1) === 32) end--;
  let marked = '';
  let copied = start;
  if (matchOf) {
    let marks = 0;
    for (let at = start; at < end && marks < MAX_MARKS; ) {
      at = wordStart(text, at, end);
      if (at >= end) break;
      const stop = Math.min(end, wordEnd(text, at));
      if (matchOf(at, stop) >= 0) {
        marked += `${text.slice(copied, at)}**${text.slice(at, stop)}**`;
        copied = stop;
        marks++;
      }
      at = stop;
    }
  }
  marked += text.slice(copied, end);
  return `${from > 0 ? '…' : ''}${marked}${end < text.length ? '…' : ''}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Runs the snippet code on a text of the site (a body) at startup, so that the first request whose hit
 * matched in a body does not pay for compiling it: a word from its middle (the search for the forms),
 * and a word one typo away (the word-by-word reading).
 */
export function warmUpSnippets(text: string, lang: Language): void {
  warmUpWordClasses();
  const middle = text.indexOf(' ', text.length >> 1);
  const word =
    text
      .slice(middle + 1)
      .split(' ', 1)[0]
      ?.replace(/[^\p{L}]/gu, '') ?? '';
  if (word.length < 5) return;
  excerpt(text, lang, [foldTerm(word)]);
  excerpt(text, lang, [foldTerm(`${word.slice(0, 2)}${word.slice(3)}`)]);
}

/**
 * Compiles, at startup, the word classes a snippet reads text with: a Unicode property class is
 * compiled on its first use, which cost the first request with an accented word in its snippet about
 * 3 ms of its 9. Every site needs them, bodies indexed or not.
 */
export function warmUpWordClasses(): void {
  excerpt('Programación y visão em C++, C#, ASP.NET e Node.js', 'es', ['programacion', 'visao', 'node']);
}
