// Plain JavaScript (typed by JSDoc, checked by tsc), as the rest of the parser. Apart from the parsers
// themselves: a build whose files all come from the parse cache loads none of them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** @typedef {import('./fences.js').FrontMatterFormat} FrontMatterFormat */

/**
 * 1-based line of each top-level key. The front matter's text starts on the file's first line (right
 * after `---`/`+++`, or at JSON's `{`), so index i is file line i + 1. Computed only when a message
 * needs a line: most files never do.
 * @param {string} frontMatter
 * @param {FrontMatterFormat} [format]
 * @returns {Record<string, number>}
 */
export function keyLines(frontMatter, format = 'yaml') {
  /** @type {Record<string, number>} */
  const lines = {};
  if (format === 'json') {
    // Required here, synchronously (`lines` is a getter): only a message about a JSON front matter
    // needs jsonc-parser, and every load.ts importer would pay for it at start otherwise.
    const { visit } = /** @type {typeof import('jsonc-parser')} */ (require('jsonc-parser'));
    let depth = 0;
    visit(frontMatter, {
      onObjectBegin: () => void depth++,
      onObjectEnd: () => void depth--,
      onObjectProperty: (property, _offset, _length, startLine) => {
        if (depth === 1 && !(property in lines)) lines[property] = startLine + 1;
      },
    });
    return lines;
  }
  const rows = frontMatter.split('\n');
  const key =
    format === 'toml'
      ? /^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*=/
      : /^(?:"([^"]+)"|'([^']+)'|([^\s#'"-][^:]*?))\s*:(?:\s|$)/;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] ?? '';
    // In TOML, keys after the first table header belong to that table.
    if (format === 'toml' && /^\s*\[/.test(row)) break;
    const match = key.exec(row);
    const name = match?.[1] ?? match?.[2] ?? match?.[3];
    if (name !== undefined && !(name in lines)) lines[name] = i + 1;
  }
  return lines;
}
