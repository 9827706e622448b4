// Loads the CLI. Fast path: a bundle of build/ that esbuild writes into node_modules/.cache the first
// time and again whenever a source under build/ is newer, so a run does not pay for compiling
// TypeScript on the fly (~200 ms a run). Fallback: tsx, which needs no write access.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @returns {Promise<{ main: (argv: readonly string[]) => Promise<number> }>} */
export async function loadCli() {
  if (process.env.CONTENT_INDEX_NO_BUNDLE !== '1') {
    try {
      return await import(pathToFileURL(await bundle()).href);
    } catch {
      // No esbuild, a read-only install, or a failed bundle: the sources run through tsx instead.
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('../build/cli.ts');
}

/** The bundle's entry file, written if no bundle of the current sources exists yet. */
async function bundle() {
  const sources = join(ROOT, 'build');
  const stamp = `${Math.floor(newest(sources))}-${process.version}`;
  const cache = join(ROOT, 'node_modules', '.cache', 'content-index');
  const dir = join(cache, `cli-${stamp}`);
  const entry = join(dir, 'cli.js');
  if (existsSync(entry)) return entry;
  const esbuild = await import('esbuild');
  const staging = `${dir}.tmp-${process.pid}`;
  await esbuild.build({
    entryPoints: { cli: join(sources, 'cli.ts') },
    outdir: staging,
    bundle: true,
    splitting: true, // keeps lazy imports lazy (the MCP SDK loads only for `content-index mcp`)
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    plugins: [sourceUrls],
  });
  mkdirSync(cache, { recursive: true });
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another process won the race: use its bundle
  }
  for (const old of readdirSync(cache)) {
    if (old.startsWith('cli-') && old !== `cli-${stamp}` && !old.includes('.tmp-')) {
      rmSync(join(cache, old), { recursive: true, force: true });
    }
  }
  return entry;
}

/**
 * Bundled code would resolve `new URL('…', import.meta.url)` against the bundle; the sources mean their
 * own folder (schemas, snapshots, the parse worker), so each file keeps its own address.
 * @type {import('esbuild').Plugin}
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /[\\/]build[\\/].*\.[jt]s$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: args.path.endsWith('.ts') ? 'ts' : 'js',
    }));
  },
};

/** @param {string} dir */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}
