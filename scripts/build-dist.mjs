#!/usr/bin/env node
// Builds dist/, what the published package runs: the CLI and the programmatic API as prebuilt JavaScript
// (with their type declarations), the Pages Functions' handlers, the JSON Schemas and Redoc's bundle.
// `npm ci` runs it (the `prepare` script), and so does `npm pack`; `npm test` and the npm scripts that run
// the CLI call it too, and it returns at once when no input changed since the last build.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { readRedoc } from '../build/stages/redoc-bundle.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const STAMP = join(ROOT, 'node_modules', '.cache', 'content-index', 'dist-stamp');
const require = createRequire(import.meta.url);

/** Everything dist/ is made from; a change to any of them means a new build. */
async function inputsHash() {
  const hash = createHash('sha256');
  const files = [
    ...(await filesUnder(join(ROOT, 'build'))),
    join(ROOT, 'package.json'),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'scripts', 'build-dist.mjs'),
    join(ROOT, 'scripts', 'tsconfig.dist.json'),
    require.resolve('redoc/package.json'),
    require.resolve('esbuild/package.json'),
  ];
  for (const file of files.sort()) {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex');
}

/** @param {string} dir @returns {Promise<string[]>} */
async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * ajv's standalone code for every schema the package validates with (build/core/validation/validators-standalone.ts),
 * compiled once here so that the CLI neither loads ajv nor compiles a schema when it starts.
 */
async function precompiledValidators() {
  const esbuild = await import('esbuild');
  const generator = await esbuild.build({
    entryPoints: [join(ROOT, 'build/core/validation/validators-standalone.ts')],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    write: false,
    logLevel: 'warning',
  });
  // Beside the package's node_modules, where the generator's own imports (ajv) resolve.
  const file = join(ROOT, 'node_modules', '.cache', 'content-index', `validators-${process.pid}.mjs`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, generator.outputFiles[0]?.text ?? '');
  try {
    const { standaloneValidators } = await import(pathToFileURL(file).href);
    return /** @type {string} */ (standaloneValidators('./_ajv.ts'));
  } catch (error) {
    throw refusedSchema(error) ?? error;
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * A schema ajv's strict mode refuses (validators-standalone.ts SchemaRefused): a message naming the
 * file and the keyword, for whoever edited it, instead of ajv's stack trace.
 * @param {unknown} error
 * @returns {BuildDistError | undefined}
 */
function refusedSchema(error) {
  const refused =
    /** @type {{ name?: string, file?: string, keyword?: string, at?: string, reason?: string }} */ (error);
  if (refused?.name !== 'SchemaRefused' || !refused.file) return undefined;
  const file = `build/schemas/${refused.file}`;
  const where = refused.at ? ` at ${refused.at}` : '';
  const what = refused.keyword ? `the keyword "${refused.keyword}"${where}` : `the schema${where}`;
  return new BuildDistError(
    `${file}: ajv's strict mode refuses ${what}: ${refused.reason}`,
    refused.keyword
      ? `a keyword must suit the type of its field (minimum and maximum for numbers, minLength for strings, …) and be one JSON Schema knows: fix or remove "${refused.keyword}" in ${file}, then run node scripts/build-dist.mjs again`
      : `fix ${file}, then run node scripts/build-dist.mjs again`,
  );
}

/** A failure of the build of dist/ that a message explains: printed without a stack trace. */
class BuildDistError extends Error {
  /** @param {string} message @param {string} hint */
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

/** @param {string} out */
async function bundle(out) {
  const esbuild = await import('esbuild');
  const validators = await precompiledValidators();
  /** @type {import('esbuild').Plugin} */
  const precompiled = {
    name: 'precompiled-validators',
    setup(build) {
      build.onLoad({ filter: /[\\/]build[\\/]core[\\/]validation[\\/]precompiled-validators\.ts$/ }, () => ({
        contents: validators,
        loader: 'js',
        resolveDir: join(ROOT, 'build', 'core', 'validation'),
      }));
    },
  };
  const common = /** @type {const} */ ({
    bundle: true,
    splitting: true, // lazy imports stay lazy: the MCP SDK loads only for `content-index mcp`
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
    define: { CONTENT_INDEX_BUNDLED: 'true' },
    legalComments: 'none',
  });
  // Node side. Every output file lands in dist/ itself, chunks included, so code that finds files
  // beside itself (build/core/bundled.ts) has one folder to count from.
  await esbuild.build({
    ...common,
    plugins: [precompiled],
    entryPoints: {
      cli: join(ROOT, 'build/cli.ts'),
      index: join(ROOT, 'build/index.ts'),
      'parse-worker': join(ROOT, 'build/stages/parse/worker.js'),
      // Started as a process of its own by `dev` (build/runtime/wrangler.ts), from beside the bundle.
      'wrangler-supervisor': join(ROOT, 'build/runtime/wrangler-supervisor.js'),
    },
    outdir: out,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    target: 'node20.19',
  });
  // Edge side: what a site's functions/ re-export; wrangler bundles it with them for workerd. The
  // neutral platform makes a `node:` import here a build error instead of a failure at the first request.
  await esbuild.build({
    ...common,
    entryPoints: {
      api: join(ROOT, 'build/functions/api.ts'),
      mcp: join(ROOT, 'build/functions/mcp.ts'),
    },
    outdir: join(out, 'functions'),
    chunkNames: 'chunk-[hash]',
    platform: 'neutral',
    target: 'es2022',
  });
}

/**
 * Type declarations for `content-index` and `content-index/functions/*`, with `.js` import paths.
 * @param {string} out
 */
async function declarations(out) {
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  const types = join(out, 'types');
  try {
    await promisify(execFile)(
      process.execPath,
      [tsc, '-p', join(ROOT, 'scripts', 'tsconfig.dist.json'), '--outDir', types],
      { cwd: ROOT },
    );
  } catch (error) {
    const { stdout = '', stderr = '' } = /** @type {{ stdout?: string, stderr?: string }} */ (error);
    throw new Error(`tsc could not write the declarations:\n${stdout}${stderr}`);
  }
  for (const file of await filesUnder(types)) {
    const text = await readFile(file, 'utf8');
    // The sources import `./x.ts`; a consumer's TypeScript resolves `./x.js` to the emitted `./x.d.ts`.
    const fixed = text.replace(/((?:from|import)\s*\(?\s*['"]\.{1,2}\/[^'"]*?)\.ts(['"])/g, '$1.js$2');
    if (fixed !== text) await writeFile(file, fixed);
  }
}

async function main() {
  const force = process.argv.includes('--force');
  const hash = await inputsHash();
  const stamp = await readFile(STAMP, 'utf8').catch(() => '');
  if (!force && stamp === hash && existsSync(join(DIST, 'cli.js'))) return;

  const started = performance.now();
  const staging = `${DIST}.tmp-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await bundle(staging);
    await declarations(staging);
    await cp(join(ROOT, 'build', 'schemas'), join(staging, 'schemas'), { recursive: true });
    const vendor = join(staging, 'vendor', 'redoc');
    await mkdir(vendor, { recursive: true });
    for (const file of await readRedoc(require.resolve('redoc/bundles/redoc.standalone.js'))) {
      await writeFile(join(vendor, file.name), file.content);
    }
    // Swap the whole folder, so a build that fails or races another leaves a complete dist/ behind.
    const old = `${DIST}.old-${process.pid}`;
    if (existsSync(DIST)) await rename(DIST, old);
    await rename(staging, DIST);
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  await mkdir(dirname(STAMP), { recursive: true });
  await writeFile(STAMP, hash);
  if (!process.argv.includes('--quiet')) {
    console.error(`dist/ built in ${Math.round(performance.now() - started)} ms`);
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof BuildDistError)) throw error;
  process.stderr.write(`✗ dist/ was not built: ${error.message}\n  hint: ${error.hint}\n`);
  process.exitCode = 1;
}
