import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLED } from '../core/bundled.ts';
import { ContentIndexError } from '../core/errors.ts';

/** Imports the default export of a TypeScript or JavaScript configuration module. */
export async function importConfigModule(
  root: string,
  file: string,
  what: string,
  {
    helper = 'defineSite',
    flag = '--config',
    example,
  }: {
    helper?: string;
    flag?: string /** A minimal file to start from, for the not-found hint. */;
    example?: string;
  } = {},
): Promise<unknown> {
  const absolute = resolve(root, file);
  const shown = relative(root, absolute) || file;
  let source: Buffer;
  try {
    // Synchronously, as the configuration stage reads its small files: each awaited read waits for the
    // thread pool, and a dev save waited for some fifty of them in a row.
    source = readFileSync(absolute);
  } catch {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: shown,
        message: `${what} not found`,
        hint: example
          ? `create ${shown} with:\n${example}\n  or pass ${flag}`
          : `run content-index init (it writes ${shown} and the rest a site needs), create ${shown} yourself (see docs/configuration.md), or pass ${flag}`,
      },
    ]);
  }
  try {
    // The query makes an edited file a new module (dev mode, tests) while an unchanged one stays cached.
    const version = createHash('sha1').update(source).digest('hex').slice(0, 12);
    const module = (await importTypeScript(root, `${pathToFileURL(absolute).href}?v=${version}`)) as {
      default?: unknown;
    };
    return module.default;
  } catch (error) {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: shown,
        message: `could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
        hint: `fix the syntax error; the file must \`export default ${helper}({...})\``,
      },
    ]);
  }
}

/**
 * Node 20 cannot import TypeScript, and later lines strip types only in some versions, with other rules
 * for extension-less imports. So the CLI compiles the file (and the local files it imports) with esbuild
 * into a module under the site's `node_modules/.cache/content-index/config/`, where the site's own
 * packages resolve (no loader hooks in the process). `content-index` resolves to the running copy of the tool,
 * wherever it is installed. The compiled module is kept, named after what it was compiled from: the
 * next start imports it without loading esbuild at all, once it has checked that none of the files it
 * was made from changed (their SHA-256). From the sources (vitest, tsx) the runtime reads TypeScript
 * already.
 */
async function importTypeScript(root: string, url: string): Promise<unknown> {
  if (!BUNDLED) {
    try {
      return await import(url);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    }
  }
  const self = new URL(BUNDLED ? './index.js' : '../index.ts', import.meta.url).href;
  const entry = fileURLToPath(url);
  // Under the site's node_modules, where its packages resolve from and caches conventionally go (and
  // not in .content-index/: `dev` reads the configuration before it may create anything there).
  const cache = join(root, 'node_modules', '.cache', 'content-index', 'config');
  // The entry's path and bytes are in the URL's query; the tool's own address is in the compiled code.
  const key = sha256(`${COMPILED_FORMAT}\n${self}\n${url}`).slice(0, 24);
  const manifestFile = join(cache, `${key}.json`);
  const cached = await compiledModule(manifestFile, cache);
  if (cached) return import(pathToFileURL(cached).href);

  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'content-index-self',
        setup(build) {
          build.onResolve({ filter: /^content-index$/ }, () => ({ path: self, external: true }));
        },
      },
    ],
  });
  const code = result.outputFiles[0]?.text ?? '';
  const module = `${sha256(code).slice(0, 16)}.mjs`;
  // Every local file the module was bundled from (the entry and what it imports), with its hash.
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = resolve(process.cwd(), input);
    inputs[path] = sha256(await readFile(path));
  }
  await mkdir(cache, { recursive: true });
  await writeAtomically(join(cache, module), code);
  await writeAtomically(manifestFile, JSON.stringify({ module, inputs } satisfies CompiledManifest));
  await prune(cache).catch(() => undefined);
  return import(pathToFileURL(join(cache, module)).href);
}

/** Compiled configurations kept: every edit of a configuration file makes a new one. */
const KEPT_MODULES = 16;

/** Removes all but the most recently compiled configurations (and modules no manifest names). */
async function prune(cache: string): Promise<void> {
  const names = await readdir(cache);
  const manifests = await Promise.all(
    names
      .filter((n) => n.endsWith('.json'))
      .map(async (name) => ({ name, mtimeMs: (await stat(join(cache, name))).mtimeMs })),
  );
  manifests.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const kept = new Set<string>();
  for (const [i, { name }] of manifests.entries()) {
    if (i >= KEPT_MODULES) {
      await rm(join(cache, name), { force: true });
      continue;
    }
    const manifest = JSON.parse(await readFile(join(cache, name), 'utf8')) as CompiledManifest;
    kept.add(manifest.module);
  }
  for (const name of names) {
    if (name.endsWith('.mjs') && !kept.has(name)) await rm(join(cache, name), { force: true });
  }
}

/** Bumped when the compiled modules or their manifests change form. */
const COMPILED_FORMAT = 1;

interface CompiledManifest {
  module: string;
  /** Absolute path → SHA-256 of the file when the module was compiled from it. */
  inputs: Record<string, string>;
}

/** The kept module of a configuration, when every file it was compiled from is as it was then. */
async function compiledModule(manifestFile: string, cache: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as CompiledManifest;
    if (typeof manifest.module !== 'string' || !/^[0-9a-f]{16}\.mjs$/.test(manifest.module)) return undefined;
    for (const [path, hash] of Object.entries(manifest.inputs)) {
      if (sha256(readFileSync(path)) !== hash) return undefined;
    }
    // Named after its code's hash: a module changed since it was compiled (by hand, by a tool) would be
    // imported as the configuration, and its values published.
    const module = join(cache, manifest.module);
    return sha256(readFileSync(module)).slice(0, 16) === manifest.module.slice(0, 16) ? module : undefined;
  } catch {
    return undefined;
  }
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

async function writeAtomically(file: string, content: string): Promise<void> {
  const staging = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(staging, content);
  await rename(staging, file);
}
