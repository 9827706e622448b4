// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.
import { closingHint, parseSource } from './parse-source.js';
import { MAX_FRONT_MATTER_BYTES, readHead } from './read-head.js';

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
 * Reads and parses a list of files in order. Runs on the main thread or in a worker.
 * @param {readonly ParseTask[]} tasks
 * @param {number} maxFileBytes
 * @returns {ParseOutcome[]}
 */
export function parseChunk(tasks, maxFileBytes) {
  return tasks.map((task) => parseOne(task, maxFileBytes));
}

/**
 * @param {ParseTask} task
 * @param {number} maxFileBytes
 * @returns {ParseOutcome}
 */
function parseOne({ path, absolute }, maxFileBytes) {
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
  return parseSource(path, head.text);
}

/**
 * @param {number} bytes
 * @returns {string}
 */
export function formatBytes(bytes) {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
