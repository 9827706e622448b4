/**
 * Makes text from front matter safe to put inside one line of Markdown (CommonMark), so a title such as
 * `# [Draft](x)\n> quote` reads back as exactly that text instead of a heading, a link and a quote.
 */

/** Folds every line break and run of whitespace into one space; drops control characters. */
export function foldLine(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g, '')
      .replace(/[\s\u0085\u2028\u2029]+/gu, ' ')
      .trim()
  );
}

/**
 * Backslash-escapes what CommonMark could read as markup inside a line: brackets and parentheses
 * (links), `<`/`>` (autolinks, HTML, quotes), emphasis and code markers, backslashes, and `&` when
 * it would start a character reference. Escaped ASCII punctuation reads back as itself.
 */
export function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]()<>]/g, '\\$&').replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&');
}

/** Escapes what would open a block at the start of a line: `#`, `>`, list markers, `=`. */
export function escapeLineStart(text: string): string {
  return text.replace(/^([#>+\-=])/, '\\$1').replace(/^(\d+)([.)])/, '$1\\$2');
}

/** One line of plain text as Markdown: folded and escaped. */
export function markdownText(text: string): string {
  return isPlainLine(text) ? text : escapeLineStart(escapeInline(foldLine(text)));
}

/**
 * Anything foldLine, escapeInline or escapeLineStart would change: a control character, whitespace
 * other than a space (JavaScript's `\s`), two spaces, a markup character, `&`.
 */
const CHANGED =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  /[\u0000-\u001f\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\\`*_[\]()<>&]| {2}/;
const CHANGED_START = /^(?:[#>+\-= ]|\d+[.)])/;

/**
 * Text that is already one plain Markdown line, as most titles and descriptions are: returned as it is,
 * without the six replacements (at 10,000 items the three llms.txt files make 100,000 such lines).
 */
function isPlainLine(text: string): boolean {
  return !CHANGED.test(text) && !CHANGED_START.test(text) && !text.endsWith(' ');
}

/** Heading text: also escapes every `#`, since trailing ones would close an ATX heading. */
export function headingText(text: string): string {
  return escapeInline(foldLine(text)).replace(/#/g, '\\#');
}

/** A link destination: parentheses escaped so an address such as `/a)b/` cannot end the link early. */
export function linkDestination(url: string): string {
  return url.replace(/[\\()<> ]/g, (c) => (c === ' ' ? '%20' : `\\${c}`));
}
