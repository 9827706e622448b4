import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContentIndexError } from '../core/errors.ts';
import type { AuthorFile } from '../core/output/headers-file.ts';

/**
 * The author's own `_headers` and `_redirects` live at the project root: inside `public/` those names
 * belong to the build, which merges these files into them. Both are optional.
 */
export async function loadAuthorFiles(
  root: string,
): Promise<{ headers?: AuthorFile; redirects?: AuthorFile }> {
  const files: { headers?: AuthorFile; redirects?: AuthorFile } = {};
  for (const [key, file] of [
    ['headers', '_headers'],
    ['redirects', '_redirects'],
  ] as const) {
    try {
      files[key] = { file, text: await readFile(join(root, file), 'utf8') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
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
  return files;
}
