import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ContentIndexError } from '../core/errors.ts';
import type { AuthorFile } from '../core/output/headers-file.ts';

export const AUTHOR_FILE_NAMES = ['_headers', '_redirects'] as const;
export type AuthorFileName = (typeof AUTHOR_FILE_NAMES)[number];

export interface AuthorFiles {
  headers: AuthorFile[];
  redirects: AuthorFile[];
  /**
   * The site generator's copies: output path → the texts a file there may hold when the generator put
   * it there (the bytes of its source), so the build replaces it with the merged file and calls it no
   * one's conflict.
   */
  generatorCopies: Map<string, string[]>;
}

/**
 * The author's `_headers` and `_redirects`: at the project root, and in each folder the site generator
 * copies into the output as it is (`generatorStatic`, Hugo's `static/`). Inside the output those names
 * belong to the build, which merges these files into them. All are optional.
 */
export async function loadAuthorFiles(
  root: string,
  generatorStatic: readonly string[] = [],
): Promise<AuthorFiles> {
  const files: AuthorFiles = { headers: [], redirects: [], generatorCopies: new Map() };
  for (const dir of ['', ...generatorStatic]) {
    for (const name of AUTHOR_FILE_NAMES) {
      const file = dir === '' ? name : posix.join(dir.split('\\').join('/'), name);
      const text = await readAuthorFile(join(root, file), file);
      if (text === undefined) continue;
      files[name === '_headers' ? 'headers' : 'redirects'].push({ file, text });
      if (dir !== '') files.generatorCopies.set(name, [...(files.generatorCopies.get(name) ?? []), text]);
    }
  }
  return files;
}

async function readAuthorFile(path: string, file: string): Promise<string | undefined> {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ContentIndexError([
      {
        code: 'source_unreadable',
        file,
        message: `could not be read: ${(error as Error).message}`,
        hint: 'check the file permissions, or remove the file',
      },
    ]);
  }
}
