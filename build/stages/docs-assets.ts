import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { BUNDLED } from '../core/bundled.ts';
import { DOCS_SCRIPT } from '../core/discovery/docs-page.ts';
import type { OutputFile } from '../core/output/outputs.ts';
import { REDOC_FILES, readRedoc } from './redoc-bundle.js';

/**
 * The renderer's bundle and its licence notices, for the API reference's folder (`docs/`). The package carries them in
 * `dist/vendor/redoc/`, patched when it was built, so an installed copy needs no `redoc` (about 92
 * packages and 83 MiB, for one file); the sources read the `redoc` dev dependency.
 */
export async function docsAssets(folder: string): Promise<OutputFile[]> {
  if (REDOC_FILES[0] !== DOCS_SCRIPT) throw new Error(`docs-page.ts expects ${DOCS_SCRIPT}`);
  if (!read) {
    const reading = readFiles();
    // Forgotten when it failed, so that the next build (dev) reads again instead of failing the same way.
    reading.catch(() => {
      if (read === reading) read = undefined;
    });
    read = reading;
  }
  const files = await read;
  return files.map((file) => ({ path: `${folder}${file.name}`, content: file.content }));
}

/**
 * Read once per process: the files are the tool's own and never change under it, and dev's builds
 * otherwise read and decoded the 1.1 MB bundle again at every save, then compared it in full with the
 * last build's copy before writing (the same string each time is known unchanged at once).
 */
let read: Promise<{ name: string; content: string }[]> | undefined;

function readFiles(): Promise<{ name: string; content: string }[]> {
  return BUNDLED
    ? Promise.all(
        REDOC_FILES.map(async (name) => ({
          name,
          content: await readFile(new URL(`./vendor/redoc/${name}`, import.meta.url), 'utf8'),
        })),
      )
    : readRedoc(createRequire(import.meta.url).resolve(`redoc/bundles/${DOCS_SCRIPT}`));
}
