// What dist/ is made from, and whether the dist/ on disk was made from the sources as they are now:
// scripts/build-dist.mjs stamps each build with it, and bin/content-index.js asks it before running
// dist/ in a source checkout. Kept apart from build-dist.mjs so the question costs only the hashing.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
/** The hash of the inputs dist/ was last built from (in node_modules: never packed, never committed). */
export const STAMP = join(ROOT, 'node_modules', '.cache', 'content-index', 'dist-stamp');

const require = createRequire(import.meta.url);

/** Everything dist/ is made from; a change to any of them means a new build. */
export async function inputsHash() {
  const hash = createHash('sha256');
  const files = [
    ...(await filesUnder(join(ROOT, 'build'))),
    join(ROOT, 'package.json'),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'scripts', 'build-dist.mjs'),
    join(ROOT, 'scripts', 'dist-inputs.mjs'),
    join(ROOT, 'scripts', 'tsconfig.dist.json'),
    require.resolve('redoc/package.json'),
    require.resolve('esbuild/package.json'),
  ];
  const contents = await Promise.all(files.sort().map((file) => readFile(file)));
  files.forEach((file, i) => {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(/** @type {Buffer} */ (contents[i]));
  });
  return hash.digest('hex');
}

/** @param {string} dir @returns {Promise<string[]>} */
export async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * Whether dist/ was built from the inputs as they are now. `hash` is theirs when the answer is no (the
 * stamp a build of them writes).
 * @returns {Promise<{ current: boolean, hash: string }>}
 */
export async function distState() {
  const hash = await inputsHash();
  const stamp = await readFile(STAMP, 'utf8').catch(() => '');
  return { current: stamp === hash && existsSync(join(DIST, 'cli.js')), hash };
}
