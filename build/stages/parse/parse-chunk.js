// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.

import { bodyOfFile, bodyText } from './body-text.js';
import { formatBytes } from './format-bytes.js';
import { closingHint, parseSource } from './parse-source.js';
import { headHash, MAX_FRONT_MATTER_BYTES, readHead, readWhole, sourceHash } from './read-head.js';

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
 * @property {import('./read-head.js').Stamp} [stamp] The file's stamp as it was opened, when it was.
 */

/**
 * Reads and parses a list of files in order. Runs on the main thread or in a worker.
 * @param {readonly ParseTask[]} tasks
 * @param {number} maxFileBytes
 * @param {ReadonlySet<string>} [known] Hashes of texts the caller has outcomes for: given, every parsed text is hashed.
 * @param {boolean} [bodies] Read each whole file and reduce its body to words (MCP search); the hash is then the whole file's.
 * @returns {Parsed[]}
 */
export function parseChunk(tasks, maxFileBytes, known, bodies = false) {
  return tasks.map((task) => parseOne(task, maxFileBytes, known, bodies));
}

/**
 * The body of each file, reduced to its words, with the hash of what was read (body-text.js bodyOfFile),
 * or why it could not be read: for files whose front matter is known already (the parse cache keeps no
 * body text).
 * @param {readonly ParseTask[]} tasks
 * @param {number} maxFileBytes
 * @returns {({ body: string, hash: string } | ParseFailure)[]}
 */
export function bodiesOf(tasks, maxFileBytes) {
  return tasks.map((task) => {
    const found = bodyOfFile(task.absolute, maxFileBytes);
    return 'error' in found ? readFailure(task.path, found.error) : found;
  });
}

/**
 * A file that could not be read: gone since it was listed, or unreadable.
 * @param {string} path
 * @param {string} code The error's code (`ENOENT`, `EACCES`…).
 * @returns {ParseFailure}
 */
function readFailure(path, code) {
  // Deleted after it was listed (dev, while an author deletes a folder).
  if (code === 'ENOENT')
    return { code: 'source_gone', file: path, message: 'was deleted while it was read', hint: 'build again' };
  return {
    code: 'source_unreadable',
    file: path,
    message: `could not be read: ${code}`,
    hint: 'check that the file exists and is readable',
  };
}

/**
 * @param {ParseTask} task
 * @param {number} maxFileBytes
 * @param {ReadonlySet<string> | undefined} known
 * @param {boolean} bodies
 * @returns {Parsed}
 */
function parseOne(task, maxFileBytes, known, bodies) {
  const read = readChecked(task, maxFileBytes, bodies);
  const { stamp } = read;
  if ('failure' in read) return stamp ? { outcome: read.failure, stamp } : { outcome: read.failure };
  const { text, body } = read;
  const hash = known && (body === undefined ? headHash(text) : sourceHash(read));
  if (hash !== undefined && known?.has(hash)) return { hash, stamp };
  const outcome = parseSource(task.path, text);
  // Only a file whose front matter reads is indexed: the body of a broken one is never needed.
  if (body !== undefined && !('code' in outcome)) outcome.body = bodyText(body);
  return hash === undefined ? { outcome, stamp } : { outcome, hash, stamp };
}

/**
 * The file's head (up to its closing front-matter fence) and, with `bodies`, the rest of it; or why it
 * cannot be parsed at all. With its stamp as it was opened, when it was.
 * @param {ParseTask} task
 * @param {number} maxFileBytes
 * @param {boolean} bodies
 * @returns {({ text: string, body?: string | undefined, hash?: string | undefined } | { failure: ParseFailure }) & { stamp?: import('./read-head.js').Stamp | undefined }}
 */
function readChecked({ path, absolute }, maxFileBytes, bodies) {
  /** @type {import('./read-head.js').Head} */
  let head;
  try {
    head = bodies ? readWhole(absolute, maxFileBytes) : readHead(absolute, maxFileBytes);
  } catch (error) {
    // A file gone is left out by the caller, as if deleted before it was listed.
    return { failure: readFailure(path, /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error)) };
  }
  const { stamp } = head;
  if (head.size > maxFileBytes) {
    return {
      failure: {
        code: 'source_too_large',
        file: path,
        message: `is ${formatBytes(head.size)}, over the ${formatBytes(maxFileBytes)} limit for one source file`,
        hint: 'move large data out of the Markdown file; the limit protects the build from runaway inputs',
      },
      stamp,
    };
  }
  if (head.unterminated) {
    return {
      failure: {
        code: 'source_too_large',
        file: path,
        line: 1,
        message: `front matter does not end within ${formatBytes(MAX_FRONT_MATTER_BYTES)}`,
        hint: closingHint(head.format ?? 'yaml'),
      },
      stamp,
    };
  }
  return { text: head.text, body: head.body, hash: head.hash, stamp };
}
