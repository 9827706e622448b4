// Plain JavaScript (JSDoc-typed, checked by tsc) so scripts/build-dist.mjs, which vendors these files into
// the package, runs it on Node without a TypeScript loader; docs-assets.ts uses it when run from sources.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Redoc's sidebar credit loads its logo from Redocly's CDN, which would send every reader's address to
 * a third party (the page's CSP would block it, but the attempt is still made). The credit text and
 * link stay; the logo becomes an empty inline image. Matching the exact string makes a Redoc update
 * that moves it fail instead of silently loading a remote file.
 */
const REMOTE_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const INLINE_LOGO = `"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"`;

/** The files `/docs/` needs, by the name they get there: the renderer's bundle and its licence notices. */
export const REDOC_FILES = ['redoc.standalone.js', 'redoc.standalone.js.LICENSE.txt', 'LICENSE-redoc.txt'];

/**
 * Reads Redoc's standalone bundle (patched) and its licences from an installed `redoc` package.
 * @param {string} bundlePath absolute path of `redoc/bundles/redoc.standalone.js`
 * @returns {Promise<{ name: string, content: string }[]>} in the order of REDOC_FILES
 */
export async function readRedoc(bundlePath) {
  const bundle = await readFile(bundlePath, 'utf8');
  const occurrences = bundle.split(REMOTE_LOGO).length - 1;
  if (occurrences !== 1) {
    throw new Error(
      `redoc's bundle has ${occurrences} references to its remote logo, expected 1: review build/stages/redoc-bundle.js`,
    );
  }
  const [script, notices, licence] = REDOC_FILES;
  return [
    { name: String(script), content: bundle.replace(REMOTE_LOGO, INLINE_LOGO) },
    { name: String(notices), content: await readFile(`${bundlePath}.LICENSE.txt`, 'utf8') },
    { name: String(licence), content: await readFile(join(dirname(bundlePath), '..', 'LICENSE'), 'utf8') },
  ];
}
