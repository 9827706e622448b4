import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthorFile } from '../core/headers-file.ts';

/**
 * The author's own `_headers` and `_redirects` live at the project root: inside `public/` those names
 * belong to the build, which merges these files into them.
 */
export async function loadAuthorFiles(
  root: string,
): Promise<{ headers?: AuthorFile; redirects?: AuthorFile }> {
  const files: { headers?: AuthorFile; redirects?: AuthorFile } = {};
  for (const [key, file] of [
    ['headers', '_headers'],
    ['redirects', '_redirects'],
  ] as const) {
    const text = await readFile(join(root, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text !== undefined) files[key] = { file, text };
  }
  return files;
}
