// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.

/** @typedef {'yaml' | 'toml' | 'json'} FrontMatterFormat */

/**
 * @typedef {object} Opening
 * @property {FrontMatterFormat} format
 * @property {string} tag What follows the opening fence on its line (`---js` → `js`), trimmed.
 */

/**
 * Where a file's front matter may open: after the blank lines (spaces, tabs, line breaks) Hugo skips
 * before it. The text has no byte-order mark.
 * @param {string} text
 * @returns {number}
 */
export function frontMatterStart(text) {
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
  }
  return i;
}

/** The fence each format closes with, as authors see it in hints. */
export const CLOSING_FENCE = { yaml: '---', toml: '+++', json: '}' };

/**
 * How a file opens its front matter, as Hugo reads it: `---` YAML, `+++` TOML, `{` JSON. A fourth
 * fence character (`----`) is a Markdown rule, not front matter. The text has no byte-order mark.
 * @param {string} text
 * @returns {Opening | undefined}
 */
export function openingOf(text) {
  const first = text.charCodeAt(0);
  if (first === 0x7b /* { */) return { format: 'json', tag: '' };
  if (first !== 0x2d /* - */ && first !== 0x2b /* + */) return undefined;
  const fence = first === 0x2d ? '---' : '+++';
  if (!text.startsWith(fence) || text[3] === fence[0]) return undefined;
  const lineEnd = text.indexOf('\n');
  return {
    format: first === 0x2d ? 'yaml' : 'toml',
    tag: text.slice(3, lineEnd < 0 ? text.length : lineEnd).trim(),
  };
}

const CLOSE = {
  yaml: /\r?\n---[ \t]*(?:\r?\n|$)/g,
  toml: /\r?\n\+\+\+[ \t]*(?:\r?\n|$)/g,
};

/**
 * Index just past the closing fence (with its line break), or -1 when the text does not close it.
 * @param {string} text
 * @param {FrontMatterFormat} format
 * @returns {number}
 */
export function closingEnd(text, format) {
  if (format === 'json') return jsonEnd(text);
  const close = CLOSE[format];
  close.lastIndex = 3;
  const match = close.exec(text);
  return match ? match.index + match[0].length : -1;
}

/**
 * Hugo's reading of JSON front matter: the object ends at the brace that balances the first one,
 * counting braces outside strings (a backslash escapes the next character). Returns the index just past
 * it, or -1.
 * @param {string} text
 * @returns {number}
 */
function jsonEnd(text) {
  let level = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22 /* " */) inString = !inString;
    else if (inString) continue;
    else if (c === 0x7b /* { */) level++;
    else if (c === 0x7d /* } */ && --level === 0) return i + 1;
  }
  return -1;
}
