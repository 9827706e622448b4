import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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
    const module = (await import(`${pathToFileURL(absolute).href}?v=${version}`)) as { default?: unknown };
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
