// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.
import { formatBytes } from './format-bytes.js';
import { closingHint, parseSource } from './parse-source.js';
import { headHash, MAX_FRONT_MATTER_BYTES, readHead } from './read-head.js';

/** @typedef {import('../../core/errors.ts').Problem} Problem */
/** @typedef {import('./parse-source.js').ParsedSource} ParsedSource */

/**
 * @typedef {object} ParseTask
 * @property {string} path Shown in messages.
 * @property {string} absolute
 */

/** @typedef {import('./parse-source.js').ParseFailure} ParseFailure */
/** @typedef {ParsedSource | ParseFailure} ParseOutcome */

/**
 * What reading one file gave: its outcome, and with a parse cache the hash of the front matter's text
 * that was parsed. `outcome` is absent when that hash was among the `known` ones: the caller holds the
 * outcome of the same text already, so it was read but not parsed again.
 * @typedef {object} Parsed
 * @property {ParseOutcome} [outcome]
 * @property {string} [hash]
 */

/**
 * Reads and parses a list of files in order. Runs on the main thread or in a worker.
 * @param {readonly ParseTask[]} tasks
 * @param {number} maxFileBytes
 * @param {ReadonlySet<string>} [known] Hashes of front-matter texts the caller has outcomes for: given, every parsed text is hashed.
 * @returns {Parsed[]}
 */
export function parseChunk(tasks, maxFileBytes, known) {
  return tasks.map((task) => parseOne(task, maxFileBytes, known));
}

/**
 * @param {ParseTask} task
 * @param {number} maxFileBytes
 * @param {ReadonlySet<string> | undefined} known
 * @returns {Parsed}
 */
function parseOne(task, maxFileBytes, known) {
  const text = readChecked(task, maxFileBytes);
  if (typeof text !== 'string') return { outcome: text };
  if (!known) return { outcome: parseSource(task.path, text) };
  const hash = headHash(text);
  return known.has(hash) ? { hash } : { outcome: parseSource(task.path, text), hash };
}

/**
 * The file's head (up to its closing front-matter fence), or why it cannot be parsed at all.
 * @param {ParseTask} task
 * @param {number} maxFileBytes
 * @returns {string | ParseFailure}
 */
function readChecked({ path, absolute }, maxFileBytes) {
  /** @type {import('./read-head.js').Head} */
  let head;
  try {
    head = readHead(absolute, maxFileBytes);
  } catch (error) {
    // Deleted after it was listed (dev, while an author deletes a folder): left out, as if deleted before.
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') {
      return { code: 'source_gone', file: path, message: 'was deleted while it was read' };
    }
    return {
      code: 'source_unreadable',
      file: path,
      message: `could not be read: ${/** @type {NodeJS.ErrnoException} */ (error).code ?? String(error)}`,
      hint: 'check that the file exists and is readable',
    };
  }
  if (head.size > maxFileBytes) {
    return {
      code: 'source_too_large',
      file: path,
      message: `is ${formatBytes(head.size)}, over the ${formatBytes(maxFileBytes)} limit for one source file`,
      hint: 'move large data out of the Markdown file; the limit protects the build from runaway inputs',
    };
  }
  if (head.unterminated) {
    return {
      code: 'source_too_large',
      file: path,
      line: 1,
      message: `front matter does not end within ${formatBytes(MAX_FRONT_MATTER_BYTES)}`,
      hint: closingHint(head.format ?? 'yaml'),
    };
  }
  return head.text;
}
