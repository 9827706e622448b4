#!/usr/bin/env node
// Builds dist/, what the published package runs: the CLI and the programmatic API as prebuilt JavaScript
// (with their type declarations), the Pages Functions' handlers, the JSON Schemas and Redoc's bundle.
// `npm ci` runs it (the `prepare` script), and so does `npm pack`; `npm test`, the npm scripts that run
// the CLI and bin/content-index.js in a source checkout call it too, and it returns at once when no
// input changed since the last build (scripts/dist-inputs.mjs).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { readRedoc } from '../build/stages/redoc-bundle.js';
import { bundledLicences, bundledPackages, requiresLeftOut } from './bundled-packages.mjs';
import { DIST, distState, filesUnder, ROOT, STAMP, stampText, writeStamp } from './dist-inputs.mjs';

const require = createRequire(import.meta.url);

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
  const node = await esbuild.build({
    ...common,
    plugins: [precompiled, bundledPackages],
    metafile: true,
    absWorkingDir: ROOT,
    entryPoints: {
      cli: join(ROOT, 'build/cli.ts'),
      index: join(ROOT, 'build/index.ts'),
      'parse-worker': join(ROOT, 'build/stages/parse/worker.js'),
      'd1-rows-worker': join(ROOT, 'build/stages/d1-rows-worker.ts'),
      'stamp-worker': join(ROOT, 'build/stages/stamp-worker.js'),
      // Started as a process of its own by `dev` (build/runtime/wrangler.ts), from beside the bundle.
      'wrangler-supervisor': join(ROOT, 'build/runtime/wrangler-supervisor.js'),
      // Started as a process of its own for the local D1 (build/runtime/d1-import.ts), from beside the bundle.
      'd1-local': join(ROOT, 'build/runtime/d1-local.js'),
      // Imported by the bin for `dev` alone, before the CLI (bin/content-index.js).
      'dev-process': join(ROOT, 'build/runtime/dev-process.ts'),
    },
    outdir: out,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    target: 'node20.19',
  });
  // Edge side: what a site's functions/ re-export; wrangler bundles it with them for workerd. The
  // neutral platform makes a `node:` import here a build error instead of a failure at the first request.
  const edge = await esbuild.build({
    ...common,
    metafile: true,
    absWorkingDir: ROOT,
    entryPoints: {
      api: join(ROOT, 'build/functions/api.ts'),
      mcp: join(ROOT, 'build/functions/mcp.ts'),
    },
    outdir: join(out, 'functions'),
    chunkNames: 'chunk-[hash]',
    platform: 'neutral',
    target: 'es2022',
  });
  const leftOut = requiresLeftOut(node.metafile);
  if (leftOut.length > 0) {
    throw new BuildDistError(
      `a package bundled into dist/ requires what the bundle does not hold, which would throw when run: ${leftOut.join(', ')}`,
      'bundle what it requires too, or leave the package out of scripts/bundled-packages.mjs',
    );
  }
  const licences = await bundledLicences([node.metafile, edge.metafile]);
  if (licences.unlicensed.length > 0) {
    throw new BuildDistError(
      `${licences.unlicensed.join(', ')}: bundled into dist/, but no licence file comes with the package to ship beside its code`,
      'leave the package out of the bundle (scripts/bundled-packages.mjs), or find its licence text and ship it with dist/',
    );
  }
  await writeFile(join(out, 'THIRD-PARTY-LICENSES.txt'), licences.text);
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
  if (!force && (await distState()).current) return;
  // One build at a time (two commands of a checkout may find dist/ stale at once): the second waits,
  // then finds the first's build current.
  const release = await lock();
  try {
    const { current, hash, stamps } = await distState();
    if (!force && current) return;
    await buildDist(hash, stamps);
  } finally {
    await release();
  }
}

/**
 * @param {string} hash
 * @param {string | undefined} stamps the inputs' stamps when they were hashed: an input edited during
 * the build no longer matches them, so the next question hashes again and finds the edit.
 */
async function buildDist(hash, stamps) {
  const started = performance.now();
  const staging = `${DIST}.tmp-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await bundle(staging);
    await declarations(staging);
    await cp(join(ROOT, 'build', 'schemas'), join(staging, 'schemas'), { recursive: true });
    // What the tool is made from: a build keeps what it made for the same tool alone (stages/fingerprint.ts).
    await writeFile(join(staging, 'build-id'), `${hash}\n`);
    const vendor = join(staging, 'vendor', 'redoc');
    await mkdir(vendor, { recursive: true });
    for (const file of await readRedoc(require.resolve('redoc/bundles/redoc.standalone.js'))) {
      await writeFile(join(vendor, file.name), file.content);
    }
    // Swap the whole folder, so a build that fails leaves a complete dist/ behind.
    const old = `${DIST}.old-${process.pid}`;
    if (existsSync(DIST)) await rename(DIST, old);
    await rename(staging, DIST);
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  await mkdir(dirname(STAMP), { recursive: true });
  await writeStamp(stampText(hash, stamps));
  if (!process.argv.includes('--quiet')) {
    console.error(`dist/ built in ${Math.round(performance.now() - started)} ms`);
  }
}

/**
 * A folder made as the lock (mkdir either makes it or fails), holding the builder's pid; one whose
 * builder is gone is taken over.
 * @returns {Promise<() => Promise<void>>}
 */
async function lock() {
  const dir = `${STAMP}.lock`;
  await mkdir(dirname(dir), { recursive: true });
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      await mkdir(dir);
      await writeFile(join(dir, 'pid'), String(process.pid));
      return () => rm(dir, { recursive: true, force: true });
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(join(dir, 'pid'), 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && !running(holder)) await rm(dir, { recursive: true, force: true });
    else if (Date.now() > deadline)
      throw new Error(`another build of dist/ holds ${dir}; delete it if none runs`);
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** @param {number} pid */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof BuildDistError)) throw error;
  process.stderr.write(`✗ dist/ was not built: ${error.message}\n  hint: ${error.hint}\n`);
  process.exitCode = 1;
}
