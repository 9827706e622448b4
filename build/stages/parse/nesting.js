// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.

/**
 * How deep the text's flow collections (`[ … ]`, `{ … }`) nest, read in one pass without parsing and
 * without recursion, stopping as soon as it passes `limit`. The parsers recurse once per level: a front
 * matter of a few thousand `[` (a dozen KiB) exhausted the stack, in JSON's duplicate-key scan and error
 * locator, in YAML's and TOML's parsers, before any depth check could see the value. Quoted text is
 * skipped ("…" with backslash escapes; in YAML and TOML also '…'), and so are comments (# to the end of
 * the line) outside JSON.
 * @param {string} text
 * @param {import('./fences.js').FrontMatterFormat} format
 * @param {number} limit
 * @returns {number} The depth reached, at most limit + 1.
 */
export function flowDepth(text, format, limit) {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || (c === "'" && format !== 'json')) {
      for (i++; i < text.length && text[i] !== c; i++) if (c === '"' && text[i] === '\\') i++;
    } else if (c === '#' && format !== 'json') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '[' || c === '{') {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c === ']' || c === '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}
