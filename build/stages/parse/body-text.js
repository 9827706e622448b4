// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.
import { readWhole, sourceHash } from './read-head.js';

/**
 * The most of a body's text that is kept (UTF-8 bytes), per file and so per language: what MCP search
 * indexes and what its snippets are cut from. A long post's first 32 KiB hold well over 4,000 words.
 */
export const BODY_TEXT_BYTES = 32 * 1024;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:\s+|$)/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const TABLE_RULE = /^[\s|:-]*$/;
const QUOTE = /^(\s*>)+\s?/;
const LIST = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/;
const DEFINITION = /^ {0,3}\[[^\]\n[]+\]:\s*\S+.*$/;
// Each pattern excludes its own opening character from what it spans, so a run of unclosed openings
// costs one pass, never one pass per opening (what made a regex-based Markdown stripper quadratic).
const SHORTCODE = /\{\{[<%]([^{}\n]*)[>%]\}\}/g;
const QUOTED = /"([^"\n]*)"/g;
const IMAGE = /!\[([^\][\n]*)\]\([^()\n]*\)/g;
const LINK = /\[([^\][\n]*)\](?:\([^()\n]*\)|\[[^\][\n]*\])/g;
const AUTOLINK = /<(?:https?:|mailto:)[^<>\s]*>/g;
const TAG = /<\/?[A-Za-z][^<>\n]*>/g;
const COMMENT_OPEN = '<!--';
const COMMENT_CLOSE = '-->';
const MARKS = /[*`]+|~~/g;
const UNDERSCORES = /_+/g;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const ESCAPE = /\\([\\`*_{}[\]()#+\-.!|~<>])/g;
const ENTITY = /&(amp|lt|gt|quot|apos|nbsp|#\d{1,6}|#x[0-9a-fA-F]{1,5});/g;
const NAMED = /** @type {Record<string, string>} */ ({
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
});
/** A character that at least one of the inline patterns (`inline`) needs in the line to match. */
const INLINE_SYNTAX = /[{[<*`~_\\&|]/;
// Control characters (the embedded module separates texts with U+0001) and other spacing.
const SPACE = /[\s\p{Cc}]+/gu;
/**
 * The characters of SPACE but the space: `\s` and `\p{Cc}` listed (none is outside the BMP). A line
 * SPACE would change holds one of them or two spaces in a row. One class and an `includes` read a
 * line about a third faster than one pattern with both, on every line of every body.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
export const ODD_SPACE_CHAR = /[\0-\x1f\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * A Markdown body reduced to its words, as agents read a snippet: front matter excluded (the caller
 * gives the text after it), HTML tags and comments, link targets, emphasis and code marks, fences and
 * their info strings, Hugo shortcodes (their quoted captions kept) and table rules dropped; code kept as
 * words; whitespace collapsed. Cut at BODY_TEXT_BYTES, at a word's end. Linear in the text, and it stops
 * reading once it has that much.
 * @param {string} markdown
 * @returns {string}
 */
export function bodyText(markdown) {
  /** @type {string[]} */
  const out = [];
  let bytes = 0;
  let fence = '';
  let comment = false;
  let start = 0;
  while (start <= markdown.length && bytes < BODY_TEXT_BYTES) {
    let end = markdown.indexOf('\n', start);
    if (end < 0) end = markdown.length;
    let line = markdown.slice(start, end);
    start = end + 1;
    if (fence) {
      if (line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = '';
      else bytes += keep(out, collapse(line));
      continue;
    }
    if (comment) {
      const close = line.indexOf(COMMENT_CLOSE);
      if (close < 0) continue;
      comment = false;
      line = line.slice(close + COMMENT_CLOSE.length);
    }
    const opened = FENCE.exec(line);
    if (opened) {
      fence = /** @type {string} */ (opened[1]);
      continue;
    }
    line = withoutComments(line);
    const open = line.indexOf(COMMENT_OPEN);
    if (open >= 0) {
      comment = true;
      line = line.slice(0, open);
    }
    if (RULE.test(line) || SETEXT.test(line) || DEFINITION.test(line)) continue;
    if (line.includes('-') && TABLE_RULE.test(line)) continue;
    const bare = heading(line.replace(QUOTE, '').replace(LIST, ''));
    // Most lines are prose: none of the patterns below can match them, and each would scan the line.
    bytes += keep(out, collapse(INLINE_SYNTAX.test(bare) ? inline(bare) : bare));
  }
  return cut(out.join(' '), BODY_TEXT_BYTES);
}

/**
 * Runs of spacing and control characters as one space, the ends trimmed.
 * @param {string} text
 */
export function collapse(text) {
  return (ODD_SPACE_CHAR.test(text) || text.includes('  ') ? text.replace(SPACE, ' ') : text).trim();
}

/**
 * A line's inline syntax reduced to its words: shortcodes, images, links, HTML, emphasis and code
 * marks, escapes, entities and table pipes.
 * @param {string} line
 */
export function inline(line) {
  return line
    .replace(SHORTCODE, (_, args) => captions(String(args)))
    .replace(IMAGE, '$1')
    .replace(LINK, '$1')
    .replace(AUTOLINK, '')
    .replace(TAG, '')
    .replace(MARKS, '')
    .replace(UNDERSCORES, emphasis)
    .replace(ESCAPE, '$1')
    .replace(ENTITY, (_, name) => entity(name))
    .replaceAll('|', ' ');
}

/**
 * @param {string[]} out
 * @param {string} text
 * @returns {number} its UTF-8 bytes (and a space)
 */
function keep(out, text) {
  if (text === '') return 0;
  out.push(text);
  return Buffer.byteLength(text) + 1;
}

/**
 * A heading's text: the line without its opening `#`s and its closing ones.
 * @param {string} line
 */
function heading(line) {
  const opening = HEADING.exec(line);
  if (!opening) return line;
  let text = line.slice(opening[0].length).trimEnd();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  if (end < text.length && (end === 0 || text[end - 1] === ' ')) text = text.slice(0, end);
  return text;
}

/**
 * A shortcode's words: its quoted arguments that read as text (a caption, a title: they hold a space),
 * not its name, paths or identifiers.
 * @param {string} args
 */
function captions(args) {
  return [...args.matchAll(QUOTED)]
    .map((m) => /** @type {string} */ (m[1]))
    .filter((value) => value.includes(' '))
    .join(' ');
}

/**
 * A run of underscores: emphasis when at a word's edge (dropped), part of a name inside one (kept,
 * `snake_case`).
 * @param {string} run
 * @param {number} at
 * @param {string} line
 */
function emphasis(run, at, line) {
  const before = line[at - 1] ?? '';
  const after = line[at + run.length] ?? '';
  return WORD_CHAR.test(before) && WORD_CHAR.test(after) ? run : '';
}

/** @param {string} line */
function withoutComments(line) {
  let result = line;
  for (;;) {
    const open = result.indexOf(COMMENT_OPEN);
    if (open < 0) return result;
    const close = result.indexOf(COMMENT_CLOSE, open + COMMENT_OPEN.length);
    if (close < 0) return result;
    result = `${result.slice(0, open)} ${result.slice(close + COMMENT_CLOSE.length)}`;
  }
}

/** @param {string} name */
function entity(name) {
  if (name.startsWith('#')) {
    const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0x1f && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : ' ';
  }
  return NAMED[name] ?? ' ';
}

/**
 * At most `max` UTF-8 bytes of `text`, cut at a word's end.
 * @param {string} text
 * @param {number} max
 */
function cut(text, max) {
  if (Buffer.byteLength(text) <= max) return text;
  // Characters take one to four bytes: find the last whole one that fits.
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = /** @type {number} */ (text.codePointAt(i));
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > max) break;
    bytes += size;
    i += code > 0xffff ? 2 : 1;
  }
  const space = text.lastIndexOf(' ', i);
  return text.slice(0, space > 0 ? space : i).trimEnd();
}

/**
 * What reading a file for its body gave: the body reduced to its words with the hash of the bytes it
 * came from (sourceHash), or why the file could not be read.
 * @typedef {{ body: string, hash: string } | { error: string }} FileBody
 */

/**
 * The body of a file whose front matter is known already (the parse cache keeps no body text), reduced
 * to its words, with the hash of what was read: the caller tells a file changed since it was hashed.
 * @param {string} absolute
 * @param {number} maxFileBytes
 * @returns {FileBody}
 */
export function bodyOfFile(absolute, maxFileBytes) {
  try {
    const whole = readWhole(absolute, maxFileBytes);
    return { body: whole.unterminated ? '' : bodyText(whole.body ?? ''), hash: sourceHash(whole) };
  } catch (error) {
    return { error: /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error) };
  }
}
