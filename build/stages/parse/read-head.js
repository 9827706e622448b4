// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.
import { hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { closingEnd, frontMatterStart, openingOf } from './fences.js';

/** Front matter larger than this is refused: no real page needs it, and it bounds YAML work. */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;
const FIRST_READ = 4096;

/**
 * @typedef {object} Head
 * @property {number} size The file's size on disk.
 * @property {string} text The file up to and including its closing front-matter fence (`---`, `+++` or the JSON object's `}`), or all of it when there is none.
 * @property {boolean} unterminated True when the file opens a front-matter block that does not close within the limit.
 * @property {import('./fences.js').FrontMatterFormat} [format] The front matter's format, when the file opens one.
 * @property {string} [body] With readWhole: the rest of the file, after the front matter.
 * @property {string} [hash] With readWhole, when the file was read: the hash of its bytes (see wholeHash).
 * @property {Stamp} [stamp] The file's stamp as it was opened, before any of it was read.
 */

/**
 * A file's stamp, as parse-cache.ts keeps it (its Stamp): the same fields, spelled here so that this
 * file, which the worker runs, imports nothing of the cache.
 * @typedef {{ size: number, mtimeMs: number, ctimeMs: number, ino: number }} Stamp
 */

/**
 * Reads only as much of a file as its front matter needs. The index never uses the Markdown body, and
 * skipping it is most of the I/O on a real site (bodies are 10–50× larger than front matter).
 * Synchronous on purpose: many small sequential reads are faster without the thread-pool round trips.
 * @param {string} path
 * @param {number} maxFileBytes
 * @returns {Head}
 */
export function readHead(path, maxFileBytes) {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    const head = headOf(fd, stats.size, maxFileBytes);
    head.stamp = stampOf(stats);
    return head;
  } finally {
    closeSync(fd);
  }
}

/**
 * @param {number} fd
 * @param {number} size
 * @param {number} maxFileBytes
 * @returns {Head}
 */
function headOf(fd, size, maxFileBytes) {
  if (size > maxFileBytes) return { size, text: '', unterminated: false };
  let buffer = Buffer.allocUnsafe(Math.min(FIRST_READ, size));
  let length = readSync(fd, buffer, 0, buffer.length, 0);
  for (;;) {
    const text = buffer.toString('utf8', 0, length);
    const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    // Hugo skips a byte-order mark and blank lines before the front matter.
    const start = bom + frontMatterStart(bom ? text.slice(1) : text);
    const opening = openingOf(text.slice(start));
    // A file of blank lines so far may open its front matter further on: read on.
    if (!opening && (start < text.length || length >= size)) return { size, text, unterminated: false };
    const end = opening ? closingEnd(text.slice(start), opening.format) : -1;
    if (end >= 0) return { size, text: text.slice(0, end + start), unterminated: false };
    if (length >= size) return { size, text, unterminated: false };
    if (length >= MAX_FRONT_MATTER_BYTES)
      return { size, text: '', unterminated: true, ...(opening && { format: opening.format }) };
    const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 4, size, MAX_FRONT_MATTER_BYTES));
    buffer.copy(bigger, 0, 0, length);
    length += readSync(fd, bigger, length, bigger.length - length, length);
    buffer = bigger;
  }
}

/**
 * Reads a whole file, split into its head (as readHead gives it) and its body: what a build that
 * searches bodies reads. One read of the file, as large as it is (within `maxFileBytes`).
 * @param {string} path
 * @param {number} maxFileBytes
 * @param {boolean} [hashed] Whether to hash it (`hash`): not when only its body is wanted.
 * @returns {Head}
 */
export function readWhole(path, maxFileBytes, hashed = true) {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    const whole = wholeOf(fd, stats.size, maxFileBytes, hashed);
    whole.stamp = stampOf(stats);
    return whole;
  } finally {
    closeSync(fd);
  }
}

/**
 * @param {number} fd
 * @param {number} size
 * @param {number} maxFileBytes
 * @param {boolean} hashed
 * @returns {Head}
 */
function wholeOf(fd, size, maxFileBytes, hashed) {
  if (size > maxFileBytes) return { size, text: '', unterminated: false };
  const buffer = readOpened(fd, size);
  // What readHead would have read at most: the head is found within the same bytes. A file within
  // that (nearly every one) is decoded once, its body cut from the same text.
  const whole = buffer.length <= MAX_FRONT_MATTER_BYTES;
  const text = buffer.toString('utf8', 0, whole ? buffer.length : MAX_FRONT_MATTER_BYTES);
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Hugo skips a byte-order mark and blank lines before the front matter.
  const start = bom + frontMatterStart(bom ? text.slice(1) : text);
  const opening = openingOf(text.slice(start));
  const end = opening ? closingEnd(text.slice(start), opening.format) : -1;
  if (opening && end < 0 && buffer.length > MAX_FRONT_MATTER_BYTES)
    return { size, text: '', unterminated: true, format: opening.format };
  const hash = hashed ? wholeHash(buffer) : undefined;
  if (end < 0)
    return { size, text: whole ? text : buffer.toString('utf8'), unterminated: false, body: '', hash };
  const head = text.slice(0, end + start);
  return {
    size,
    text: head,
    unterminated: false,
    body: whole ? text.slice(end + start) : buffer.toString('utf8', Buffer.byteLength(head)),
    hash,
  };
}

/**
 * A stamp (parse-cache.ts) of an opened file's stats: taken before the file is read, as a stat before
 * opening it would be, and one system call fewer for each file the build stamps by its read.
 * @param {import('node:fs').Stats} stats
 * @returns {Stamp}
 */
function stampOf(stats) {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/**
 * The bytes of an opened file of `size` bytes (its fstat's), read as readFileSync reads them (at most
 * that many), without the second fstat it makes: one system call fewer for each of a site's files.
 * @param {number} fd
 * @param {number} size
 * @returns {Buffer}
 */
function readOpened(fd, size) {
  // Not a regular file's size (0 for some file systems' special files): read to the end.
  if (size === 0) return readFileSync(fd);
  const buffer = Buffer.allocUnsafe(size);
  let read = 0;
  for (let n = -1; n !== 0 && read < size; read += n) n = readSync(fd, buffer, read, size - read, read);
  return read < size ? buffer.subarray(0, read) : buffer;
}

/**
 * The hash of a whole file, for a parse cache that keeps bodies: the outcome then depends on the body
 * too. Of its bytes as read, not of its text: the text would be encoded again only to be hashed.
 * @param {Buffer} bytes
 * @returns {string}
 */
function wholeHash(bytes) {
  return hash('sha256', bytes, 'base64');
}

/**
 * The hash a file read whole (readWhole) is known by; the same for every file too large to read.
 * @param {{ hash?: string | undefined }} whole
 * @returns {string}
 */
export function sourceHash(whole) {
  return whole.hash ?? headHash('');
}

/**
 * The hash a parse cache keys a front matter's text by. The outcome of a successful parse depends on
 * that text alone (a body is never read), so equal texts have equal outcomes whatever the file.
 * @param {string} text
 * @returns {string}
 */
export function headHash(text) {
  return hash('sha256', text, 'base64');
}
