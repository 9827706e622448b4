// What dist/ is made from, and whether the dist/ on disk was made from the sources as they are now:
// scripts/build-dist.mjs stamps each build with it, and bin/content-index.js asks it before running
// dist/ in a source checkout. Kept apart from build-dist.mjs so the question costs only stats or hashing.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
/** The hash of the inputs dist/ was last built from (in node_modules: never packed, never committed). */
export const STAMP = join(ROOT, 'node_modules', '.cache', 'content-index', 'dist-stamp');

const require = createRequire(import.meta.url);

// Synchronous on purpose: the bin asks before every command of a checkout, and a few hundred small
// files are read or stat'ed faster in one go than through the thread pool.

/** Everything dist/ is made from; a change to any of them means a new build. */
export async function inputFiles() {
  const files = [
    ...(await filesUnder(join(ROOT, 'build'))),
    join(ROOT, 'package.json'),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'scripts', 'build-dist.mjs'),
    join(ROOT, 'scripts', 'bundled-packages.mjs'),
    join(ROOT, 'scripts', 'dist-inputs.mjs'),
    join(ROOT, 'scripts', 'tsconfig.dist.json'),
    require.resolve('redoc/package.json'),
    // Bundled into dist/ (bundled-packages.mjs): another version installed is another dist/. What they
    // bring with them (fast-deep-equal, kind-of, …) is in npm's record of what it installed.
    manifestOf('gray-matter'),
    manifestOf('commander'),
    manifestOf('ajv'),
    manifestOf('jsonc-parser'),
    require.resolve('esbuild/package.json'),
  ];
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  if (existsSync(installed)) files.push(installed);
  return files.sort();
}

/**
 * An installed package's package.json, found from its entry up (commander's `exports` do not name the
 * file, and a package's folders may hold package.json files of their own, without its name).
 * @param {string} name
 */
export function manifestOf(name) {
  const entry = require.resolve(name);
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).name === name) return file;
  }
  throw new Error(`no package.json named ${name} in the folders above ${entry}`);
}

/** @param {string[]} [files] */
export async function inputsHash(files) {
  const inputs = files ?? (await inputFiles());
  const hash = createHash('sha256');
  for (const file of inputs) {
    hash.update(`${fromRoot(file)}\0`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

/** @param {string} dir @returns {Promise<string[]>} */
export async function filesUnder(dir) {
  const entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  // Joined by hand: each parentPath is already a normalised absolute path (path.join normalises again).
  return entries.filter((e) => e.isFile()).map((e) => `${e.parentPath}${sep}${e.name}`);
}

/**
 * A file's path from the root, as `relative` gives it, without resolving both paths for each of the
 * few hundred inputs the bin looks at.
 * @param {string} file
 */
function fromRoot(file) {
  return file.startsWith(ROOT) ? file.slice(ROOT.length) : relative(ROOT, file);
}

/**
 * Files changed this recently are hashed whatever their stamps say: a write in the same tick of the
 * file system's clock as the stamp was taken can leave size and times as they were.
 */
const RACY_MS = 2000;

/**
 * One digest of the inputs' stamps (path, size, modification and change times, inode), or undefined
 * when one of them changed too recently to be told apart by its stamp. A write changes the change time,
 * which no tool can set back (`touch -d` sets the modification time only), so equal stamps mean equal
 * files; the bin asks on every command of a checkout, and this costs a stat per file where the hash
 * reads them all (5–15 ms against 15–60 ms on this machine, quiet; several times both under load).
 * @param {string[]} files
 * @param {number} now
 */
function stampsDigest(files, now) {
  const hash = createHash('sha256');
  for (const file of files) {
    const s = statSync(file, { bigint: true });
    if (Number(s.ctimeMs) > now - RACY_MS || Number(s.mtimeMs) > now - RACY_MS) return undefined;
    hash.update(`${fromRoot(file)}\0${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}\0`);
  }
  return hash.digest('hex');
}

/**
 * The stamp a build of dist/ writes: the inputs' hash, and the digest of their stamps when they were
 * read, so that the next question is answered from the stamps alone while nothing changed.
 * @param {string} hash
 * @param {string | undefined} stamps
 */
export function stampText(hash, stamps) {
  return `${JSON.stringify({ hash, ...(stamps !== undefined && { stamps }) })}\n`;
}

/**
 * Writes the stamp whole or not at all: processes of a checkout ask for it at the same time (the test
 * suite starts many), and a stamp read while another process was writing it in place read as empty,
 * so dist/ was taken for stale and rebuilt under the commands running it.
 * @param {string} text
 */
export async function writeStamp(text) {
  const temporary = `${STAMP}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, STAMP);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** @returns {{ hash?: string, stamps?: string }} */
function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    return typeof stamp === 'object' && stamp !== null ? stamp : {};
  } catch {
    // None yet, or the bare hash of an older bin: answered by hashing, then written anew.
    return {};
  }
}

/**
 * Whether dist/ was built from the inputs as they are now. `hash` is theirs when the answer is no (the
 * stamp a build of them writes), and `stamps` their stamps' digest as they were before being read.
 * @returns {Promise<{ current: boolean, hash: string, stamps: string | undefined }>}
 */
export async function distState() {
  const files = await inputFiles();
  const now = Date.now();
  const stamp = readStamp();
  const stamps = stampsDigest(files, now);
  const built = existsSync(join(DIST, 'cli.js'));
  if (stamps !== undefined && stamp.hash !== undefined && stamp.stamps === stamps) {
    return { current: built, hash: stamp.hash, stamps };
  }
  const hash = await inputsHash(files);
  const current = stamp.hash === hash && built;
  if (current && stamps !== undefined) {
    // The same contents under new stamps (a checkout, a `touch`): remembered, so the next run skips the hash.
    await writeStamp(stampText(hash, stamps)).catch(() => {});
  }
  return { current, hash, stamps };
}
