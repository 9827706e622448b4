import type { Language } from '../languages.ts';
import { type McpEntry, translationOf } from './mcp-data.ts';
import { type SearchField, termOf } from './search-fields.ts';
import { stemTerm } from './stem.ts';
import { termMatches, tokenize } from './text.ts';

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
  const sources: [SearchField, string | undefined, Language | undefined][] = [
    ['body', body, lang],
    ['description', translation?.description, lang],
    ['title', translation?.title, lang],
    ['tags', entry.tags?.[lang]?.join(', '), undefined],
    ['technologies', entry.item.technologies?.join(', '), undefined],
  ];
  for (const [field, text, stemming] of sources) {
    if (text === undefined || !fields.includes(field)) continue;
    const snippet = excerpt(text, stemming, words);
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
  const matchOf = (token: string): number => {
    for (const word of /[+#.]/.test(token) ? tokenize(token) : [token]) {
      const term = termOf(word, stemming);
      if (term === null) continue;
      for (let w = 0; w < forms.length; w++) if (termMatches(forms[w] as string, term)) return w;
    }
    return -1;
  };
  // The matches, up to the point past which no window can hold more of the words than one found.
  const matches: Match[] = [];
  const seen = new Set<number>();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const first = matches[0];
    if (seen.size === forms.length && first && m.index > first.start + SNIPPET_TEXT_CHARS) break;
    const word = matchOf(m[0]);
    if (word < 0) continue;
    matches.push({ start: m.index, end: m.index + m[0].length, word });
    seen.add(word);
    if (matches.length >= 256) break;
  }
  if (matches.length === 0) return undefined;
  // The window starting at a match that holds the most distinct words.
  let anchor = 0;
  let most = 0;
  for (let i = 0; i < matches.length; i++) {
    const start = (matches[i] as Match).start;
    const inside = new Set<number>();
    for (let j = i; j < matches.length; j++) {
      const m = matches[j] as Match;
      if (m.end > start + SNIPPET_TEXT_CHARS) break;
      inside.add(m.word);
    }
    if (inside.size > most) [anchor, most] = [i, inside.size];
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

/** At most SNIPPET_TEXT_CHARS of `text` from `start`, cut at a word's end, marked, with ellipses. */
function clip(text: string, start: number, matchOf?: (token: string) => number): string {
  let end = Math.min(text.length, start + SNIPPET_TEXT_CHARS);
  if (end < text.length && WORD_CHAR.test(text[end] ?? '') && WORD_CHAR.test(text[end - 1] ?? '')) {
    // Not in the middle of a word.
    const space = text.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  // Never half of a surrogate pair at either end.
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  if (isLowSurrogate(text.charCodeAt(end))) end--;
  const window = text.slice(start, end).trim();
  let marked = window;
  if (matchOf) {
    let marks = 0;
    marked = window.replace(WORD, (token) => {
      if (marks >= MAX_MARKS || matchOf(token) < 0) return token;
      marks++;
      return `**${token}**`;
    });
  }
  return `${start > 0 ? '…' : ''}${marked}${end < text.length ? '…' : ''}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
