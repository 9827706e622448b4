import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
          : `create ${shown} (see the README's Configuration section) or pass ${flag}`,
      },
    ]);
  }
  try {
    // The query makes an edited file a new module (dev mode, tests) while an unchanged one stays cached.
    const version = createHash('sha1').update(source).digest('hex').slice(0, 12);
    const module = (await importTypeScript(`${pathToFileURL(absolute).href}?v=${version}`)) as {
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
 * `import()` where the runtime already reads TypeScript (tsx, vitest). The bundled CLI runs on plain
 * Node: there esbuild compiles the file (and the local files it imports) to a content-addressed module
 * in node_modules/.cache, ~50 ms where a TypeScript loader would take ~200.
 */
async function importTypeScript(url: string): Promise<unknown> {
  try {
    return await import(url);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
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
  });
  const code = result.outputFiles[0]?.text ?? '';
  const cache = fileURLToPath(new URL('../../node_modules/.cache/content-index/config/', import.meta.url));
  const file = join(cache, `${createHash('sha1').update(code).digest('hex').slice(0, 16)}.mjs`);
  await mkdir(cache, { recursive: true });
  await writeFile(file, code);
  return import(pathToFileURL(file).href);
}
