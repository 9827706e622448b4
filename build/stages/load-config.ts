import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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
    source = await readFile(absolute);
  } catch {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: shown,
        message: `${what} not found`,
        hint: example
          ? `create ${shown} with:\n${example}\n  or pass ${flag}`
          : `create ${shown} (see docs/configuration.md) or pass ${flag}`,
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
 * into a content-addressed module under the site's `node_modules/.cache/`, where the site's own packages
 * resolve (~50 ms, no loader hooks in the process). `content-index` resolves to the running copy of the
 * tool, wherever it is installed. From the sources (vitest, tsx) the runtime reads TypeScript already.
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
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(url)],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
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
  const cache = join(root, 'node_modules', '.cache', 'content-index', 'config');
  const file = join(cache, `${createHash('sha1').update(code).digest('hex').slice(0, 16)}.mjs`);
  await mkdir(cache, { recursive: true });
  await writeFile(file, code);
  return import(pathToFileURL(file).href);
}
